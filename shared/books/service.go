package books

import (
	"context"
	"fmt"
	"strings"
	"sync"
	"time"
	"unicode/utf8"

	"github.com/bookplatform/backend/shared/apperr"
	"github.com/bookplatform/backend/shared/ids"
	"github.com/bookplatform/backend/shared/page"
	"github.com/bookplatform/backend/shared/text"
)

// Errors of the catalog. Storage returns them wrapped with context.
var (
	ErrNotFound = apperr.NotFound("Book not found")
	// ErrChanged: another import claimed the ISBN or changed the book
	// since it was read; the import reads it again and retries.
	ErrChanged = apperr.Conflict("Book changed by another import; retry")
)

// Storer is the storage the catalog needs. Implementations return the
// errors named on each method wrapped with context, never (nil, nil).
type Storer interface {
	// GetBook reads a book by id. Errors: ErrNotFound.
	GetBook(ctx context.Context, id string) (*Book, error)
	// GetBookByISBN reads the book of a bare ISBN-13. Errors: ErrNotFound.
	GetBookByISBN(ctx context.Context, isbn13 string) (*Book, error)
	// GetBooks reads books by id in one batch, in the order of ids;
	// unknown ids are left out.
	GetBooks(ctx context.Context, ids []string) ([]*Book, error)
	// RankedPostings reads up to limit postings of word's list in rank
	// order (Indexing.SortKey), starting after the sort key after ("": from
	// the start); more is false when the list has nothing after them.
	RankedPostings(ctx context.Context, word, after string, limit int) (ps []Posting, more bool, err error)
	// MatchingPostings reads on in word's list after the sort key after,
	// up to scan postings, and returns only those whose TitleKey or
	// AuthorKey contains each of words as a substring (a superset of the
	// word matches a search verifies), in rank order; last is the sort key
	// of the last posting it read, matching or not, where the next read
	// starts, and more is false when the list has nothing after it. The
	// store filters, so a search whose words rarely meet reads far more
	// of a list than it transfers.
	MatchingPostings(ctx context.Context, word, after string, scan int, words []string) (ps []Posting, last string, more bool, err error)
	// Completions returns up to limit indexed words that start with
	// prefix, in word order.
	Completions(ctx context.Context, prefix string, limit int) ([]string, error)
	// PutWords records indexed words for Completions (idempotent).
	PutWords(ctx context.Context, words []string) error

	// FindBooksByISBN reads, consistently, the stored books of bare
	// ISBN-13s, keyed by ISBN-13; unknown ones are absent.
	FindBooksByISBN(ctx context.Context, isbn13s []string) (map[string]*Book, error)
	// CreateBook stores a new book, claims its ISBN-13 and writes its
	// index items, all or nothing. Errors: ErrChanged (the ISBN is claimed).
	CreateBook(ctx context.Context, b *Book, ix Indexing) error
	// CreateBooks stores new books, their ISBN claims and index items with
	// batched unconditional writes, many at once. The ids derive from the
	// ISBNs (BookIDOf), so writing a book again (a resumed or concurrent
	// import) writes the same items, never a second book. A book's item is
	// written only after all its index items and its claim, so a write cut
	// short never leaves a stored book missing from search.
	CreateBooks(ctx context.Context, bs []NewBook) error
	// UpdateBook writes next's catalog fields, timestamps, version, search
	// tokens, rank and index version over prev, never the counters, if the
	// stored version is still prev.Version (else ErrChanged). With ix set it
	// also writes the book's index items for ix and deletes those of
	// prev's index (PriorIndexing, or prev.SearchTokens under the old
	// layout) whose keys ix does not have, in the same transaction.
	UpdateBook(ctx context.Context, prev, next *Book, ix *Indexing) error
}

// Search limits (spec: Limits, "Book search limit").
const (
	DefaultSearchLimit = 20
	MaxSearchLimit     = 50
)

// Deps are the service's collaborators.
type Deps struct {
	Store Storer
	// Search is the search engine; nil is the table's own index
	// (NewIndexSearch of Store).
	Search Searcher
	Now    func() time.Time
	// ImportConcurrency is how many changed books an import updates at
	// once, each in its own transaction (default 8); new books go in
	// batches (Storer.CreateBooks), whose parallelism is the store's.
	ImportConcurrency int
}

// Service is the catalog: reading books, searching, importing.
type Service struct {
	d      Deps
	search Searcher

	// words are the index words this service has stored for Completions
	// (recordWords), so an import writes each word once.
	wordsMu sync.Mutex
	words   map[string]bool
}

// NewService returns the catalog service.
func NewService(d Deps) *Service {
	if d.Now == nil {
		d.Now = time.Now
	}
	if d.ImportConcurrency <= 0 {
		d.ImportConcurrency = 8
	}
	s := &Service{d: d, search: d.Search}
	if s.search == nil {
		s.search = NewIndexSearch(d.Store)
	}
	return s
}

// Get returns a book by id. Errors: ErrNotFound (also for an id that is
// not a UUID: no book can have it).
func (s *Service) Get(ctx context.Context, id string) (*Book, error) {
	id, ok := ids.Parse(id)
	if !ok {
		return nil, ErrNotFound
	}
	b, err := s.d.Store.GetBook(ctx, id)
	if err != nil {
		return nil, fmt.Errorf("get book %s: %w", id, err)
	}
	return b, nil
}

// GetByISBN returns the book of an ISBN-10 or ISBN-13 in any format.
// Errors: BadRequest for an invalid ISBN, NotFound.
func (s *Service) GetByISBN(ctx context.Context, isbn string) (*Book, error) {
	isbn13, _, err := NormalizeISBN(isbn)
	if err != nil {
		return nil, err
	}
	b, err := s.d.Store.GetBookByISBN(ctx, isbn13)
	if err != nil {
		return nil, fmt.Errorf("get book by ISBN %s: %w", isbn13, err)
	}
	return b, nil
}

// SearchResult is one page of a search and the number of matches.
type SearchResult struct {
	Items []*Book
	Total int
	// TotalIsLowerBound is set when the search stopped reading before the
	// end of its candidate list: Total counts the matches it read, and
	// there may be more (docs/decisions.md, "Catalog search at size").
	TotalIsLowerBound bool
}

// Search finds books by title, author or ISBN (docs/decisions.md,
// "Catalog search", "Catalog search at size" and "Search behind one
// interface"): it checks the query and asks the configured engine
// (Deps.Search). A query that is a valid ISBN answers that book only.
// Otherwise every query word must match a word of the title or authors,
// case and accents aside, the last one as a prefix; title matches come
// before author matches, then popularity, ties stable. Total is exact
// unless TotalIsLowerBound says otherwise.
// Errors: BadRequest for an empty or over-long q, limit outside 1-50, a
// negative offset.
func (s *Service) Search(ctx context.Context, q string, limit, offset int) (SearchResult, error) {
	q = strings.TrimSpace(q)
	switch {
	case text.Blank(q):
		return SearchResult{}, apperr.New(apperr.CodeBadRequest, "Query parameter q is required")
	case utf8.RuneCountInString(q) > MaxQueryRunes:
		return SearchResult{}, apperr.New(apperr.CodeBadRequest, "Query parameter q is longer than %d characters", MaxQueryRunes)
	case limit < 1 || limit > MaxSearchLimit:
		return SearchResult{}, apperr.New(apperr.CodeBadRequest, "limit must be between 1 and %d", MaxSearchLimit)
	case offset < 0 || offset > page.MaxOffset:
		return SearchResult{}, apperr.New(apperr.CodeBadRequest, "offset must be from 0 to %d", page.MaxOffset)
	}

	return s.search.Search(ctx, QueryOf(q, limit, offset))
}
