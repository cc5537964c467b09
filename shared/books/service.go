package books

import (
	"context"
	"errors"
	"fmt"
	"strings"
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
	// Postings reads one posting list of the search index, whole.
	Postings(ctx context.Context, t Term) ([]Posting, error)

	// FindBooksByISBN reads, consistently, the stored books of bare
	// ISBN-13s, keyed by ISBN-13; unknown ones are absent.
	FindBooksByISBN(ctx context.Context, isbn13s []string) (map[string]*Book, error)
	// CreateBook stores a new book, claims its ISBN-13 and writes its
	// index items, all or nothing. Errors: ErrChanged (the ISBN is claimed).
	CreateBook(ctx context.Context, b *Book, ix Indexing) error
	// UpdateBook writes next's catalog fields, timestamps, version and
	// search tokens over prev, never the counters, if the stored version
	// is still prev.Version (else ErrChanged). With ix set it also rewrites
	// the book's index items to ix and deletes those of prev.SearchTokens
	// that ix no longer has, in the same transaction.
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
	Now   func() time.Time
	// ImportConcurrency is how many books an import writes at once
	// (default 8).
	ImportConcurrency int
}

// Service is the catalog: reading books, searching, importing.
type Service struct {
	d Deps
}

// NewService returns the catalog service.
func NewService(d Deps) *Service {
	if d.Now == nil {
		d.Now = time.Now
	}
	if d.ImportConcurrency <= 0 {
		d.ImportConcurrency = 8
	}
	return &Service{d: d}
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

// SearchResult is one page of a search and the number of all matches.
type SearchResult struct {
	Items []*Book
	Total int
}

// Search finds books by title, author or ISBN (docs/decisions.md,
// "Catalog search"). A query that is a valid ISBN answers that book only.
// Otherwise every query word must match a word of the title or authors,
// case and accents aside, the last one as a prefix; results are ranked
// exact title, title starting with the query, all words in the title,
// matches in authors, then by title and id. Total counts every match.
// Errors: BadRequest for an empty or over-long q, limit outside 1-50,
// a negative offset.
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

	if isbn13, _, err := NormalizeISBN(q); err == nil {
		b, err := s.d.Store.GetBookByISBN(ctx, isbn13)
		switch {
		case errors.Is(err, ErrNotFound):
			return SearchResult{Items: []*Book{}}, nil
		case err != nil:
			return SearchResult{}, fmt.Errorf("search ISBN %s: %w", isbn13, err)
		case offset > 0:
			return SearchResult{Items: []*Book{}, Total: 1}, nil
		}
		return SearchResult{Items: []*Book{b}, Total: 1}, nil
	}

	qu := parseQuery(q)
	if len(qu.words) == 0 {
		return SearchResult{Items: []*Book{}}, nil
	}
	candidates, err := s.firstList(ctx, qu.sources)
	if err != nil {
		return SearchResult{}, fmt.Errorf("search %q: %w", q, err)
	}
	matches := qu.rank(candidates)
	res := SearchResult{Items: []*Book{}, Total: len(matches)}
	if offset >= len(matches) {
		return res, nil
	}
	page := matches[offset:min(offset+limit, len(matches))]
	ids := make([]string, len(page))
	for i, m := range page {
		ids[i] = m.id
	}
	found, err := s.d.Store.GetBooks(ctx, ids)
	if err != nil {
		return SearchResult{}, fmt.Errorf("search %q: read page: %w", q, err)
	}
	res.Items = found
	return res, nil
}

// firstList reads the posting lists of terms at once and returns the
// first one read whole; the others are cancelled. Any list is a complete
// candidate set (parseQuery), so the result does not depend on which one
// wins, and the search waits only for the quickest (usually the shortest)
// list. It returns only after every read has stopped, so no call of this
// request outlives it.
func (s *Service) firstList(ctx context.Context, terms []Term) ([]Posting, error) {
	if len(terms) == 1 {
		return s.d.Store.Postings(ctx, terms[0])
	}
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	type result struct {
		postings []Posting
		err      error
	}
	results := make(chan result, len(terms))
	for _, t := range terms {
		go func() {
			p, err := s.d.Store.Postings(ctx, t)
			results <- result{p, err}
		}()
	}
	var (
		winner   []Posting
		won      bool
		firstErr error
	)
	for range terms {
		r := <-results
		switch {
		case won:
		case r.err == nil:
			winner, won = r.postings, true
			cancel()
		case firstErr == nil || errors.Is(firstErr, context.Canceled):
			firstErr = r.err
		}
	}
	if won {
		return winner, nil
	}
	return nil, firstErr
}
