package books

import (
	"cmp"
	"slices"
	"strings"
	"unicode/utf8"
)

// MaxIndexTokens bounds the distinct words one book is indexed under, so
// that the book, its ISBN claim and all its index items are written in one
// DynamoDB transaction (at most 100 items): an update writes the book, up
// to 48 index items for its words and deletes up to 48 for words it lost.
// Only a title and authors of more than 48 distinct words lose their
// last words from the index.
const MaxIndexTokens = 48

// PartitionRunes is how many leading characters of a word name its posting
// partition. A word of at least this length can be searched as a prefix
// within one partition; a shorter last query word is matched as a prefix
// only when another word of the query fetches the candidates.
const PartitionRunes = 3

// maxSources bounds the posting lists one search reads (each is one
// Query, all at once). Every list is a complete candidate set, so reading
// fewer is still exact.
const maxSources = 4

// MaxQueryRunes is the longest accepted search query.
const MaxQueryRunes = 200

// Indexing is how a book appears in the search index: one posting per
// word of its title and authors, each carrying the folded title and author
// text so a search can match and rank candidates without reading books.
type Indexing struct {
	Tokens    []string // distinct words, title first, at most MaxIndexTokens
	TitleKey  string   // folded title words joined by single spaces
	AuthorKey string   // folded author words joined by single spaces
}

// IndexingOf returns the index entry of a book. Publisher, description and
// categories are not indexed: the spec searches by title, author or ISBN,
// and every indexed word lengthens posting lists that each search reads.
func IndexingOf(b *Book) Indexing {
	title := Tokenize(b.Title)
	var authors []string
	for _, a := range b.Authors {
		authors = append(authors, Tokenize(a)...)
	}
	seen := map[string]bool{}
	var tokens []string
	for _, w := range append(slices.Clone(title), authors...) {
		w = cutBytes(w, MaxTokenBytes)
		if !seen[w] && len(tokens) < MaxIndexTokens {
			seen[w] = true
			tokens = append(tokens, w)
		}
	}
	return Indexing{Tokens: tokens, TitleKey: strings.Join(title, " "), AuthorKey: strings.Join(authors, " ")}
}

// Term names one posting list: the books indexed under Word exactly, or
// under any word starting with Word when Prefix is set.
type Term struct {
	Word   string
	Prefix bool
}

// Posting is one entry of a posting list as a search reads it.
type Posting struct {
	BookID    string
	TitleKey  string
	AuthorKey string
}

// query is a parsed search: its folded words, how the last one matches,
// and the posting lists to read.
type query struct {
	words []string
	// prefixLast is set when the last word matches as a prefix; it is not
	// when that word is short and alone (no posting list could hold all
	// its completions).
	prefixLast bool
	key        string // words joined by single spaces
	sources    []Term
}

// parseQuery plans a search. Each source must be a superset of the
// answer, so that whichever list is read the filter gives the same
// result: a non-last word exactly, the last word as a prefix when it is
// long enough to name one partition. Stop words are sources only when the
// query has nothing else; a lone word shorter than PartitionRunes is
// matched exactly (its completions span many partitions).
func parseQuery(q string) query {
	words := Tokenize(q)
	qu := query{words: words, key: strings.Join(words, " "), prefixLast: true}
	if len(words) == 0 {
		return qu
	}
	last := words[len(words)-1]
	lastLong := utf8.RuneCountInString(last) >= PartitionRunes
	add := func(t Term) {
		if !slices.Contains(qu.sources, t) {
			qu.sources = append(qu.sources, t)
		}
	}
	for pass := 0; pass < 2 && len(qu.sources) == 0; pass++ {
		withStop := pass == 1
		for _, w := range words[:len(words)-1] {
			if withStop || !IsStopWord(w) {
				add(Term{Word: w})
			}
		}
		if lastLong && (withStop || !IsStopWord(last)) {
			add(Term{Word: last, Prefix: true})
		}
	}
	if len(qu.sources) == 0 {
		// One short word alone ("it", "ha"): its exact list.
		qu.prefixLast = false
		qu.sources = []Term{{Word: last}}
	}
	// Longer words are rarer: read those first when there are many.
	slices.SortStableFunc(qu.sources, func(a, b Term) int {
		return cmp.Compare(utf8.RuneCountInString(b.Word), utf8.RuneCountInString(a.Word))
	})
	if len(qu.sources) > maxSources {
		qu.sources = qu.sources[:maxSources]
	}
	return qu
}

// Ranking tiers, best first.
const (
	tierExactTitle  = iota // the folded title is the query
	tierTitlePrefix        // the folded title starts with the query
	tierAllInTitle         // every query word is in the title
	tierAuthor             // some word matched only in the authors
)

// match reports whether a posting's book matches every query word (the
// last as a prefix when prefixLast) in its title or authors, and its tier.
func (q query) match(p Posting) (tier int, ok bool) {
	title, authors := strings.Fields(p.TitleKey), strings.Fields(p.AuthorKey)
	allInTitle := true
	for i, w := range q.words {
		prefix := q.prefixLast && i == len(q.words)-1
		inTitle := containsWord(title, w, prefix)
		if !inTitle && !containsWord(authors, w, prefix) {
			return 0, false
		}
		allInTitle = allInTitle && inTitle
	}
	switch {
	case p.TitleKey == q.key:
		return tierExactTitle, true
	case strings.HasPrefix(p.TitleKey, q.key):
		return tierTitlePrefix, true
	case allInTitle:
		return tierAllInTitle, true
	default:
		return tierAuthor, true
	}
}

func containsWord(words []string, w string, prefix bool) bool {
	for _, x := range words {
		if x == w || prefix && strings.HasPrefix(x, w) {
			return true
		}
	}
	return false
}

// ranked is a matching book with its sort keys.
type ranked struct {
	tier     int
	titleKey string
	id       string
}

// rank filters candidates to the books matching q and orders them: tier,
// then folded title, then id. The order is total, so offset pages neither
// skip nor repeat while the catalog is unchanged. A book found under
// several words of a prefix list is counted once.
func (q query) rank(candidates []Posting) []ranked {
	seen := make(map[string]bool, len(candidates))
	var out []ranked
	for _, p := range candidates {
		if seen[p.BookID] {
			continue
		}
		seen[p.BookID] = true
		if tier, ok := q.match(p); ok {
			out = append(out, ranked{tier: tier, titleKey: p.TitleKey, id: p.BookID})
		}
	}
	slices.SortFunc(out, func(a, b ranked) int {
		return cmp.Or(cmp.Compare(a.tier, b.tier), cmp.Compare(a.titleKey, b.titleKey), cmp.Compare(a.id, b.id))
	})
	return out
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
