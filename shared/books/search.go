package books

import (
	"cmp"
	"fmt"
	"math/bits"
	"slices"
	"strings"
	"unicode/utf8"
)

// MaxIndexTokens bounds the distinct words one book is indexed under, so
// that the book, its ISBN claim and all its index items are written in one
// DynamoDB transaction (at most 100 items): an update writes the book, up
// to 48 index items for its words, deletes up to 48 for words it lost and
// puts its book.changed event (98; a back-office request's audit entry
// would make 99).
// Only a title and authors of more than 48 distinct words lose their
// last words from the index.
const MaxIndexTokens = 48

// PrefixRunes is the shortest last query word matched as a prefix on its
// own: completions of a shorter one would be hundreds of words. A shorter
// last word is a prefix only when another word of the query drives the
// search ("harry p"); alone ("it", "ha") it is matched exactly.
const PrefixRunes = 3

// maxCompletions bounds the words a lone prefix is completed to: their
// ranked lists are merged, each read only as far as the page needs.
const maxCompletions = 8

// MaxQueryRunes is the longest accepted search query.
const MaxQueryRunes = 200

// Posting classes: where a word stands in a book, the first part of a
// posting's sort key, so a list reads title matches before author ones.
const (
	ClassTitleStart = iota // the title's first word (exact and prefix titles)
	ClassTitle             // another word of the title
	ClassAuthor            // a word of the authors only
)

// Indexing is how a book appears in the search index: one posting per
// word of its title and authors, keyed in rank order (SortKey) and
// carrying the folded title and author text so a search verifies the other
// query words without reading books.
type Indexing struct {
	Tokens    []string // distinct words, title first, at most MaxIndexTokens
	Classes   []int    // the class of each token (ClassTitleStart...)
	TitleKey  string   // folded title words joined by single spaces
	AuthorKey string   // folded author words joined by single spaces
	Rank      int      // the book's popularity bucket (RankOf) when indexed
}

// IndexVersion is the layout of the index items IndexingOf describes: a
// book stored with an older one has its postings rewritten by the next
// import of it (docs/data-model.md, "Search postings").
const IndexVersion = 2

// IndexingOf returns the index entry of a book, ranked by its current
// counters. Publisher, description and categories are not indexed: the
// spec searches by title, author or ISBN.
func IndexingOf(b *Book) Indexing {
	return indexingAt(b, RankOf(b))
}

// indexingAt is IndexingOf with the popularity bucket given: the one a
// book's stored postings were written with (Book.SearchRank), to find
// their keys again.
func indexingAt(b *Book, rank int) Indexing {
	title := Tokenize(b.Title)
	var authors []string
	for _, a := range b.Authors {
		authors = append(authors, Tokenize(a)...)
	}
	ix := Indexing{TitleKey: strings.Join(title, " "), AuthorKey: strings.Join(authors, " "), Rank: rank}
	seen := map[string]bool{}
	for i, w := range append(slices.Clone(title), authors...) {
		w = cutBytes(w, MaxTokenBytes)
		if seen[w] || len(ix.Tokens) == MaxIndexTokens {
			continue
		}
		seen[w] = true
		class := ClassAuthor
		switch {
		case i == 0:
			class = ClassTitleStart
		case i < len(title):
			class = ClassTitle
		}
		ix.Tokens = append(ix.Tokens, w)
		ix.Classes = append(ix.Classes, class)
	}
	return ix
}

// PriorIndexing is the index a stored book's postings were written with
// (its SearchRank, not its current counters), nil for a book indexed
// under an older layout (whose items storage finds by SearchTokens).
func PriorIndexing(b *Book) *Indexing {
	if b.IndexVersion != IndexVersion {
		return nil
	}
	ix := indexingAt(b, b.SearchRank)
	return &ix
}

// titleSortRunes bounds the title in a posting's sort key (which DynamoDB
// caps at 1,024 bytes); titles equal for that long tie on the book id.
const titleSortBytes = 200

// SortKey is the rank order of the i-th token's posting: its class, then
// the popularity bucket (highest first), then the folded title, then the
// book id. The title ends in " #", below any letter or digit, so a title
// sorts before the longer titles it starts ("harry potter" before "harry
// potter and ..."). Every book has its own key, so the order is total.
func (ix Indexing) SortKey(i int, bookID string) string {
	return fmt.Sprintf("%d%02d%s #%s", ix.Classes[i], maxRank-ix.Rank, cutBytes(ix.TitleKey, titleSortBytes), bookID)
}

// BookIDOfSortKey reads the book id back from a posting's sort key.
func BookIDOfSortKey(sk string) string { return sk[strings.LastIndexByte(sk, '#')+1:] }

// maxRank is the highest popularity bucket.
const maxRank = 63

// RankOf is a book's popularity bucket: the bit length of its reviews plus
// lines (0 for none, 1 for one, 2 for 2-3, 3 for 4-7, ...). Postings are
// ordered by it, so it changes only when the count crosses a power of two
// (about 20 times in the life of a book with a million readers), and a
// book's postings are rewritten only then (Service.refreshRanks).
func RankOf(b *Book) int {
	return min(bits.Len(uint(max(0, b.TotalReviews+b.TotalLines))), maxRank)
}

// Posting is one entry of a posting list as a search reads it.
type Posting struct {
	SortKey   string
	TitleKey  string
	AuthorKey string
}

// BookID is the posting's book.
func (p Posting) BookID() string { return BookIDOfSortKey(p.SortKey) }

// query is a parsed search: its folded words and how the last one matches.
type query struct {
	words []string
	// prefixLast is set when the last word matches as a prefix; it is not
	// when that word is short and alone (its completions are too many).
	prefixLast bool
	key        string // words joined by single spaces
}

func parseQuery(q string) query {
	words := Tokenize(q)
	qu := query{words: words, key: strings.Join(words, " "), prefixLast: true}
	if len(words) == 1 && utf8.RuneCountInString(words[0]) < PrefixRunes {
		qu.prefixLast = false
	}
	return qu
}

// plan is where a search reads its candidates: the ranked lists of exact
// words (one of them drives), or, when no exact word is worth reading,
// the completions of the last word (merged).
type plan struct {
	exact  []string // words whose lists are probed; the driver is one of them
	prefix string   // the last word to complete, when exact is empty
}

// planOf picks the lists a search may read. Every list it names holds all
// the answers, so verifying its postings gives the whole result: the
// non-stop whole words (every answer has each); else the last word's
// completions when it is long enough and not a stop word; else the stop
// words; a lone short word is its own exact list.
func (q query) plan() plan {
	if len(q.words) == 0 {
		return plan{}
	}
	last := q.words[len(q.words)-1]
	whole := q.words
	if q.prefixLast {
		whole = q.words[:len(q.words)-1]
	}
	var nonStop, stop []string
	for _, w := range whole {
		switch {
		case slices.Contains(nonStop, w) || slices.Contains(stop, w):
		case IsStopWord(w):
			stop = append(stop, w)
		default:
			nonStop = append(nonStop, w)
		}
	}
	lastLong := utf8.RuneCountInString(last) >= PrefixRunes
	switch {
	case len(nonStop) > 0:
		return plan{exact: firstLongest(nonStop)}
	case q.prefixLast && lastLong && !IsStopWord(last):
		return plan{prefix: last}
	case len(stop) > 0:
		return plan{exact: firstLongest(stop)}
	case q.prefixLast && lastLong:
		return plan{prefix: last}
	}
	// One short word alone ("it", "ha"), or a stop word and a short last
	// word: the short word exactly.
	return plan{exact: []string{last}}
}

// maxProbes bounds the exact lists one search probes (one Query each, in
// parallel).
const maxProbes = 4

// firstLongest orders words longest first (longer words are rarer) and
// keeps maxProbes of them.
func firstLongest(words []string) []string {
	words = slices.Clone(words)
	slices.SortStableFunc(words, func(a, b string) int {
		return cmp.Compare(utf8.RuneCountInString(b), utf8.RuneCountInString(a))
	})
	return words[:min(len(words), maxProbes)]
}

// match reports whether a posting's book matches every query word (the
// last as a prefix when prefixLast) in its title or authors.
func (q query) match(p Posting) bool {
	title, authors := strings.Fields(p.TitleKey), strings.Fields(p.AuthorKey)
	for i, w := range q.words {
		prefix := q.prefixLast && i == len(q.words)-1
		if !containsWord(title, w, prefix) && !containsWord(authors, w, prefix) {
			return false
		}
	}
	return true
}

func containsWord(words []string, w string, prefix bool) bool {
	for _, x := range words {
		if x == w || prefix && strings.HasPrefix(x, w) {
			return true
		}
	}
	return false
}

// MaxTokenBytes bounds an indexed word: it is part of a sort key, which
// DynamoDB caps at 1,024 bytes, and one over-long word (hundreds of CJK
// characters without a space) must not fail a whole import. A query is at
// most 200 characters, so a prefix search still finds the cut word.
const MaxTokenBytes = 900

// cutBytes shortens s to at most n bytes at a character boundary.
func cutBytes(s string, n int) string {
	if len(s) <= n {
		return s
	}
	for n > 0 && !utf8.RuneStart(s[n]) {
		n--
	}
	return s[:n]
}
