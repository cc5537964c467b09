package books

import (
	"context"
	"errors"
	"fmt"
	"io"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"unicode/utf8"

	"github.com/bookplatform/backend/shared/apperr"
	"golang.org/x/sync/errgroup"
)

// ImportResult says what an import did. Errors lists every record not
// imported (Failed) with its line and a reason, in line order.
type ImportResult struct {
	Created   int           `json:"created"`
	Updated   int           `json:"updated"`
	Unchanged int           `json:"unchanged"`
	Failed    int           `json:"failed"`
	Errors    []ImportError `json:"errors"`
}

// Format is a catalog file format.
type Format string

// Catalog file formats.
const (
	FormatJSONLines Format = "jsonl"
	FormatCSV       Format = "csv"
)

// FormatOf returns the format a file name's extension names: .jsonl,
// .ndjson and .json are JSON lines, .csv is CSV.
func FormatOf(name string) (Format, error) {
	switch strings.ToLower(filepath.Ext(name)) {
	case ".jsonl", ".ndjson", ".json":
		return FormatJSONLines, nil
	case ".csv":
		return FormatCSV, nil
	}
	return "", fmt.Errorf("catalog file %s: unknown format (want .jsonl or .csv)", name)
}

// Parse reads a catalog file in the given format (ParseJSONLines,
// ParseCSV).
func Parse(r io.Reader, f Format) ([]Record, []ImportError, error) {
	switch f {
	case FormatJSONLines:
		return ParseJSONLines(r)
	case FormatCSV:
		return ParseCSV(r)
	}
	return nil, nil, fmt.Errorf("unknown catalog format %q", f)
}

// ImportFile parses a catalog file and imports its records: the one path
// that the local importer command and a future import worker share. Lines
// that cannot be read count as Failed beside invalid records.
func (s *Service) ImportFile(ctx context.Context, r io.Reader, f Format) (ImportResult, error) {
	recs, perrs, err := Parse(r, f)
	if err != nil {
		return ImportResult{}, err
	}
	res, err := s.Import(ctx, recs)
	res.Failed += len(perrs)
	res.Errors = append(res.Errors, perrs...)
	slices.SortStableFunc(res.Errors, func(a, b ImportError) int { return a.Line - b.Line })
	return res, err
}

// importBatch is how many records are looked up at once (BatchGetItems
// of ISBN claims and books) and whose new books are written together:
// large enough that a batch's writes keep every write worker busy.
const importBatch = 500

// maxImportAttempts bounds the retries of one record that loses a race
// against another import of the same book.
const maxImportAttempts = 4

// Import upserts records by ISBN-13. A new ISBN creates a book whose id
// derives from the ISBN (BookIDOf); new books are written in batches,
// many at once, so a large catalog loads at thousands of books a second.
// A known one keeps its id, createdAt and counters while its catalog
// fields and index items are replaced (words no longer in its title or
// authors leave the index) in one transaction; an identical record
// changes nothing. Invalid records are reported and skipped; when the
// same ISBN appears twice the later record wins and the earlier is
// reported. The error is for a storage failure: the records written until
// then stay written, and re-running the import is safe (a new book
// written again is the same items, a stored one is found by its claim).
func (s *Service) Import(ctx context.Context, records []Record) (ImportResult, error) {
	res := ImportResult{Errors: []ImportError{}}
	type item struct {
		rec  Record
		book *Book
	}
	var items []item
	lastLine := map[string]int{} // ISBN-13 → index in items
	for _, rec := range records {
		b, err := rec.toBook()
		if err != nil {
			res.Errors = append(res.Errors, ImportError{Line: rec.Line, ISBN: rec.ISBN, Message: err.Error()})
			continue
		}
		if i, dup := lastLine[b.ISBN13]; dup {
			prev := items[i].rec
			res.Errors = append(res.Errors, ImportError{Line: prev.Line, ISBN: prev.ISBN,
				Message: fmt.Sprintf("ISBN %s appears again on line %d; the later record was imported", b.ISBN13, rec.Line)})
			items[i] = item{rec, b}
			continue
		}
		lastLine[b.ISBN13] = len(items)
		items = append(items, item{rec, b})
	}

	var mu sync.Mutex
	for start := 0; start < len(items); start += importBatch {
		chunk := items[start:min(start+importBatch, len(items))]
		isbns := make([]string, len(chunk))
		for i, it := range chunk {
			isbns[i] = it.book.ISBN13
		}
		existing, err := s.d.Store.FindBooksByISBN(ctx, isbns)
		if err != nil {
			return s.finish(res), fmt.Errorf("import: look up ISBNs: %w", err)
		}
		var creates []NewBook
		var updates []item
		for _, it := range chunk {
			if existing[it.book.ISBN13] == nil {
				creates = append(creates, s.newBook(it.book))
			} else {
				updates = append(updates, it)
			}
		}
		if err := s.recordWords(ctx, creates); err != nil {
			return s.finish(res), fmt.Errorf("import: %w", err)
		}
		if len(creates) > 0 {
			if err := s.d.Store.CreateBooks(ctx, creates); err != nil {
				return s.finish(res), fmt.Errorf("import: create %d books: %w", len(creates), err)
			}
			res.Created += len(creates)
		}
		// Each changed book is written by its own goroutine (a
		// transaction conditional on its version), ImportConcurrency at a
		// time. A record's own problem is reported and the import goes
		// on; a storage failure stops it (the group's context ends the
		// other writes).
		g, gctx := errgroup.WithContext(ctx)
		g.SetLimit(s.d.ImportConcurrency)
		for _, it := range updates {
			g.Go(func() error {
				outcome, err := s.importOne(gctx, it.book, existing[it.book.ISBN13])
				if err != nil && apperr.CodeOf(err) == apperr.CodeInternal {
					return fmt.Errorf("import ISBN %s (line %d): %w", it.book.ISBN13, it.rec.Line, err)
				}
				mu.Lock()
				defer mu.Unlock()
				if e, ok := apperr.As(err); ok {
					res.Errors = append(res.Errors, ImportError{Line: it.rec.Line, ISBN: it.rec.ISBN, Message: e.Message})
					return nil
				}
				switch outcome {
				case outcomeCreated:
					res.Created++
				case outcomeUpdated:
					res.Updated++
				default:
					res.Unchanged++
				}
				return nil
			})
		}
		if err := g.Wait(); err != nil {
			return s.finish(res), err
		}
	}
	return s.finish(res), nil
}

func (s *Service) finish(res ImportResult) ImportResult {
	res.Failed = len(res.Errors)
	slices.SortStableFunc(res.Errors, func(a, b ImportError) int { return a.Line - b.Line })
	return res
}

type outcome int

const (
	outcomeUnchanged outcome = iota
	outcomeCreated
	outcomeUpdated
)

// importOne creates or updates one book. A lost race (another import
// claimed the ISBN first, or changed the book since it was read) reads
// the book again and retries.
func (s *Service) importOne(ctx context.Context, in, prev *Book) (outcome, error) {
	for attempt := 1; ; attempt++ {
		var err error
		if prev == nil {
			err = s.create(ctx, in)
			if err == nil {
				return outcomeCreated, nil
			}
		} else {
			var changed bool
			changed, err = s.update(ctx, prev, in)
			if err == nil {
				if changed {
					return outcomeUpdated, nil
				}
				return outcomeUnchanged, nil
			}
		}
		if !errors.Is(err, ErrChanged) || attempt == maxImportAttempts {
			return 0, err
		}
		found, ferr := s.d.Store.FindBooksByISBN(ctx, []string{in.ISBN13})
		if ferr != nil {
			return 0, ferr
		}
		prev = found[in.ISBN13]
	}
}

// newBook is in as a new book: its derived id, timestamps, version 1 and
// index entry.
func (s *Service) newBook(in *Book) NewBook {
	b := *in
	b.ID = BookIDOf(b.ISBN13)
	b.CreatedAt = s.d.Now().UTC()
	b.UpdatedAt = b.CreatedAt
	b.Version = 1
	ix := IndexingOf(&b)
	b.SearchTokens, b.SearchRank, b.IndexVersion = ix.Tokens, ix.Rank, IndexVersion
	return NewBook{Book: &b, Index: ix}
}

func (s *Service) create(ctx context.Context, in *Book) error {
	nb := s.newBook(in)
	if err := s.recordWords(ctx, []NewBook{nb}); err != nil {
		return err
	}
	return s.d.Store.CreateBooks(ctx, []NewBook{nb})
}

// update writes in's catalog fields over prev; it reports false when
// nothing differs (the index included, which a change of tokenisation
// would make differ).
func (s *Service) update(ctx context.Context, prev, in *Book) (bool, error) {
	next := *prev
	next.ISBN13, next.ISBN10, next.Title, next.Authors = in.ISBN13, in.ISBN10, in.Title, in.Authors
	next.Publisher, next.PublishedDate, next.Description = in.Publisher, in.PublishedDate, in.Description
	next.PageCount, next.Language, next.Categories = in.PageCount, in.Language, in.Categories
	ix := IndexingOf(&next)
	prevIx := PriorIndexing(prev)
	sameIndex := prevIx != nil && slices.Equal(prev.SearchTokens, ix.Tokens) && prevIx.TitleKey == ix.TitleKey &&
		prevIx.AuthorKey == ix.AuthorKey && prevIx.Rank == ix.Rank
	if sameCatalog(prev, &next) && sameIndex {
		return false, nil
	}
	next.UpdatedAt = s.d.Now().UTC()
	next.Version = prev.Version + 1
	var ixp *Indexing
	if !sameIndex {
		ixp = &ix
		next.SearchTokens, next.SearchRank, next.IndexVersion = ix.Tokens, ix.Rank, IndexVersion
		if err := s.recordWords(ctx, []NewBook{{Book: &next, Index: ix}}); err != nil {
			return false, err
		}
	}
	return true, s.d.Store.UpdateBook(ctx, prev, &next, ixp)
}

// recordWords stores the words of the books' indexes that Completions may
// need to find (PrefixRunes or longer) and this service has not stored
// yet. Words are written before the books, so a posting's word is always
// there to be completed; a word left over by a failed write is harmless
// (its list is empty).
func (s *Service) recordWords(ctx context.Context, bs []NewBook) error {
	var fresh []string
	s.wordsMu.Lock()
	if len(s.words) > maxKnownWords {
		s.words = nil
	}
	if s.words == nil {
		s.words = map[string]bool{}
	}
	for _, nb := range bs {
		for _, w := range nb.Index.Tokens {
			if utf8.RuneCountInString(w) >= PrefixRunes && !s.words[w] {
				s.words[w] = true
				fresh = append(fresh, w)
			}
		}
	}
	s.wordsMu.Unlock()
	if len(fresh) == 0 {
		return nil
	}
	if err := s.d.Store.PutWords(ctx, fresh); err != nil {
		s.wordsMu.Lock()
		for _, w := range fresh {
			delete(s.words, w)
		}
		s.wordsMu.Unlock()
		return fmt.Errorf("record %d index words: %w", len(fresh), err)
	}
	return nil
}

// maxKnownWords bounds the words a service remembers having stored: a
// catalog of a million books has a few hundred thousand distinct words.
const maxKnownWords = 1 << 20
