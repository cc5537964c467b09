package inventory

import (
	"cmp"
	"slices"
	"strings"
	"unicode/utf8"

	"github.com/bookplatform/backend/shared/apperr"
	"github.com/bookplatform/backend/shared/books"
)

// Search within a store (GET /inventory?search=) reads the store's own
// postings: one per word of each item's book title and authors and one
// for its ISBN-13, written with the item (shared/dynamo). A search reads
// the postings of one word of the query, at most MaxSearchPostings of
// them, and keeps the items whose posting matches every word; it never
// reads the store's items one by one. A whole word's postings are read
// only until the page is found (with one match more), so most searches
// read about a page of postings and say their total is a lower bound.

// MaxSearchPostings bounds the postings one search reads: a search whose
// driving word is in more of the store's items counts the matches among
// the first MaxSearchPostings (in title order for a whole word, in word
// order for a prefix) and says its total is a lower bound. It bounds a
// search's cost: 2,000 postings took a search of a common word in a
// store of 20,000 items past the 50 ms target.
const MaxSearchPostings = 500

// Word is one word of a search: matched whole, or as the beginning of a
// word (Prefix: the last word of the query, as a reader types it).
type Word struct {
	Text   string
	Prefix bool
}

// Search is a parsed search; the zero Search is none.
type Search struct {
	Words []Word
	// ISBN is set when the whole search was an ISBN (10 or 13, hyphens
	// allowed): its one word is the ISBN-13.
	ISBN bool
}

// IsZero reports whether s searches nothing (no search given).
func (s Search) IsZero() bool { return len(s.Words) == 0 }

// ParseSearch reads a search: an ISBN-10 or ISBN-13 (check digit
// verified) is that book's ISBN-13; anything else its words
// (books.Tokenize), the last one a prefix when it is at least
// books.PrefixRunes long or follows another word. "" is no search.
// Errors: a 400 for a search over books.MaxQueryRunes or without a
// letter or digit.
func ParseSearch(q string) (Search, error) {
	q = strings.TrimSpace(q)
	if q == "" {
		return Search{}, nil
	}
	if utf8.RuneCountInString(q) > books.MaxQueryRunes {
		return Search{}, apperr.Validation("search is too long", map[string]string{"search": "must be at most 200 characters"})
	}
	if isbn13, _, err := books.NormalizeISBN(q); err == nil {
		return Search{Words: []Word{{Text: isbn13}}, ISBN: true}, nil
	}
	words := books.Tokenize(q)
	if len(words) == 0 {
		return Search{}, apperr.Validation("search has no letter or digit", map[string]string{"search": "must contain a letter or digit"})
	}
	words = slices.Compact(words)
	var s Search
	for i, w := range words {
		w = cutWord(w)
		last := i == len(words)-1
		// The last word is a prefix when it can drive (it is long enough
		// to name its postings' partition) or another word drives.
		s.Words = append(s.Words, Word{Text: w, Prefix: last && (utf8.RuneCountInString(w) >= books.PrefixRunes || len(words) > 1)})
	}
	return s, nil
}

// Driver is the word whose postings a search reads: every match has it.
// The longest whole word that is not a stop word (longer words are
// rarer), else the prefix if it is not a stop word, else the longest
// whole word, else the prefix. A prefix shorter than books.PrefixRunes
// never drives (its words span many partitions): it is only verified.
func (s Search) Driver() Word {
	ws := slices.Clone(s.Words)
	rank := func(w Word) int {
		stop := books.IsStopWord(w.Text)
		switch {
		case w.Prefix && utf8.RuneCountInString(w.Text) < books.PrefixRunes:
			return 4
		case !w.Prefix && !stop:
			return 0
		case w.Prefix && !stop:
			return 1
		case !w.Prefix:
			return 2
		}
		return 3
	}
	slices.SortStableFunc(ws, func(a, b Word) int {
		if c := cmp.Compare(rank(a), rank(b)); c != 0 {
			return c
		}
		return cmp.Compare(utf8.RuneCountInString(b.Text), utf8.RuneCountInString(a.Text))
	})
	return ws[0]
}

// Match reports whether an item's posting (its book's folded title and
// author words and its ISBN-13) has every word of s.
func (s Search) Match(titleKey, authorKey, isbn13 string) bool {
	words := append(strings.Fields(titleKey), strings.Fields(authorKey)...)
	words = append(words, isbn13)
	for _, w := range s.Words {
		if !slices.ContainsFunc(words, func(x string) bool {
			return x == w.Text || (w.Prefix || len(w.Text) >= MaxWordBytes-utf8.UTFMax) && strings.HasPrefix(x, w.Text)
		}) {
			return false
		}
	}
	return true
}

// Index is what an item's postings are made of: its book's words and
// texts, taken when the item is created.
type Index struct {
	Words     []string // the title and author words (at most books.MaxIndexTokens), then the ISBN-13
	TitleKey  string   // folded title words joined by single spaces
	AuthorKey string   // folded author words joined by single spaces
	ISBN13    string
}

// IndexOf is the index of an item of b.
func IndexOf(b *books.Book) Index {
	ix := books.IndexingOf(b)
	var words []string
	for _, w := range ix.Tokens {
		if w = cutWord(w); !slices.Contains(words, w) {
			words = append(words, w)
		}
	}
	if b.ISBN13 != "" && !slices.Contains(words, b.ISBN13) {
		words = append(words, b.ISBN13)
	}
	return Index{Words: words, TitleKey: ix.TitleKey, AuthorKey: ix.AuthorKey, ISBN13: b.ISBN13}
}

// MaxWordBytes bounds a word of an item's postings: with the title (200
// bytes) and the item id it makes a posting's sort key, which DynamoDB
// caps at 1,024 bytes. A query word is cut the same way, and a cut word
// matches as a prefix.
const MaxWordBytes = 200

// cutWord bounds a word as postings hold it (MaxWordBytes).
func cutWord(w string) string {
	n := MaxWordBytes
	if len(w) <= n {
		return w
	}
	for n > 0 && !utf8.RuneStart(w[n]) {
		n--
	}
	return w[:n]
}
