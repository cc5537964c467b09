package books

import (
	"context"
	"errors"
	"fmt"
)

// Query is a search as an engine receives it: checked by Service.Search
// (q trimmed, 1 to MaxQueryRunes characters; limit 1-50; offset 0 to
// page.MaxOffset) and parsed the one way both engines read it.
type Query struct {
	// Text is q as given, trimmed.
	Text string
	// ISBN13 is set when Text is a valid ISBN-10 or ISBN-13: the search
	// answers that book only.
	ISBN13 string
	// Words are Text's folded words (Tokenize); every one must match a
	// word of the title or authors, the last one as a prefix when
	// PrefixLast. This is also the type-ahead: there is no other
	// completion call, a reader's partial last word is completed here.
	Words []string
	// PrefixLast is unset for a lone word shorter than PrefixRunes,
	// whose completions would be too many to mean anything.
	PrefixLast bool
	Limit      int
	Offset     int
}

// Searcher is a search engine over the catalog (docs/decisions.md,
// "Search behind one interface"): the table's own index (NewIndexSearch,
// the default) or OpenSearch (shared/booksearch/opensearch). An engine
// answers a page of books in its rank order (an ISBN match alone; then
// title matches before author matches, then popularity, then a key unique
// to the book, so paging neither repeats nor skips) and the number of
// matches, exact or flagged as a lower bound. It never fails for a query
// Service.Search admitted: there are no client errors left to find.
type Searcher interface {
	Search(ctx context.Context, q Query) (SearchResult, error)
}

// QueryOf parses a checked q into the Query engines receive.
func QueryOf(q string, limit, offset int) Query {
	qu := parseQuery(q)
	out := Query{Text: q, Words: qu.words, PrefixLast: qu.prefixLast, Limit: limit, Offset: offset}
	if isbn13, _, err := NormalizeISBN(q); err == nil {
		out.ISBN13 = isbn13
	}
	return out
}

// IndexSearch is the search over the table's own index: ranked posting
// lists of words (PK TERM#<word>) read only as far as a page needs, and
// the ISBN claim for an ISBN (docs/decisions.md, "Catalog search at
// size"). It is the default engine.
type IndexSearch struct{ st Storer }

// NewIndexSearch returns the search over st's index.
func NewIndexSearch(st Storer) *IndexSearch { return &IndexSearch{st: st} }

// Search answers q from the posting lists: every query word must match a
// word of the title or authors, case and accents aside, the last one as
// a prefix; results come in the rank order of the list the search reads:
// title matches (the title's first word first) before author matches,
// then popularity, then title, then id. It reads only as much of that
// list as the page needs, so its cost does not grow with the catalog;
// Total is exact when the list was read to its end and a lower bound
// otherwise. The page's books are read with one GetBooks.
func (x *IndexSearch) Search(ctx context.Context, q Query) (SearchResult, error) {
	if q.ISBN13 != "" {
		b, err := x.st.GetBookByISBN(ctx, q.ISBN13)
		switch {
		case errors.Is(err, ErrNotFound):
			return SearchResult{Items: []*Book{}}, nil
		case err != nil:
			return SearchResult{}, fmt.Errorf("search ISBN %s: %w", q.ISBN13, err)
		case q.Offset > 0:
			return SearchResult{Items: []*Book{}, Total: 1}, nil
		}
		return SearchResult{Items: []*Book{b}, Total: 1}, nil
	}

	if len(q.Words) == 0 {
		return SearchResult{Items: []*Book{}}, nil
	}
	found, err := x.collect(ctx, query{words: q.Words, prefixLast: q.PrefixLast}, q.Offset+q.Limit)
	if err != nil {
		return SearchResult{}, fmt.Errorf("search %q: %w", q.Text, err)
	}
	res := SearchResult{Items: []*Book{}, Total: len(found.ids), TotalIsLowerBound: !found.complete}
	if q.Offset >= len(found.ids) {
		return res, nil
	}
	page, err := x.st.GetBooks(ctx, found.ids[q.Offset:min(q.Offset+q.Limit, len(found.ids))])
	if err != nil {
		return SearchResult{}, fmt.Errorf("search %q: read page: %w", q.Text, err)
	}
	res.Items = page
	return res, nil
}
