package csvimport

import (
	"context"
	"errors"
	"fmt"
	"io"
	"slices"
	"sync"
	"time"

	"github.com/bookplatform/backend/shared/apperr"
	"github.com/bookplatform/backend/shared/books"
	"github.com/bookplatform/backend/shared/inventory"
	"golang.org/x/sync/errgroup"
)

// Status is where an import job stands.
type Status string

// Job statuses.
const (
	// Running: rows remain (the request that uploaded the file, or the
	// csv-import worker, is applying them).
	Running Status = "running"
	// Done: every row was applied or reported.
	Done Status = "done"
	// Failed: the job stopped before the end (its messages kept failing
	// and went to the dead-letter queue); the rows done stay done.
	Failed Status = "failed"
)

// Job is one import of one file into one store. Its progress is a
// checkpoint (RowsDone): the rows before it are applied or reported, and
// their counts and errors are stored with it in one write, so a job
// resumed after any failure starts there and counts nothing twice.
type Job struct {
	ID, StoreID string
	// UserID is the owner who uploaded the file (the history's cause).
	UserID string
	// FileKey is the file's key in the media bucket.
	FileKey string
	Status  Status
	// Total is the file's data rows (blank rows aside), counted at upload.
	Total int
	// RowsDone is the checkpoint: how many data rows are done.
	RowsDone         int
	Imported, Failed int
	// Handoff is the checkpoint the last continuation message was sent
	// for (-1: none; the request that uploaded the file is running the
	// job). A delivery of an older message resends that one and stops.
	Handoff int
	// Reason says why a Failed job stopped.
	Reason    string
	CreatedAt time.Time
	UpdatedAt time.Time
}

// Progress is what one stretch of rows did: the rows [From, To) and
// their counts and errors. Final marks the file's end (the job is Done).
type Progress struct {
	From, To         int
	Imported, Failed int
	Errors           []RowError
	Final            bool
}

// Errors of the jobs' storage.
var (
	ErrJobNotFound = apperr.NotFound("Import job not found")
	// ErrStale: the job's checkpoint is not where the writer read it:
	// another attempt moved it on, and this one stops.
	ErrStale = errors.New("import job checkpoint moved on")
)

// Jobs stores import jobs and their error reports.
type Jobs interface {
	// CreateJob stores a new job.
	CreateJob(ctx context.Context, j *Job) error
	// GetJob reads a job, strongly consistent. Errors: ErrJobNotFound.
	GetJob(ctx context.Context, jobID string) (*Job, error)
	// Checkpoint records p in one transaction: the checkpoint moves from
	// p.From to p.To, the counts grow by p's and p's errors are stored,
	// if the checkpoint is still p.From. Errors: ErrStale.
	Checkpoint(ctx context.Context, j *Job, p Progress) error
	// SetHandoff records that a continuation from the current checkpoint
	// at is being sent, if the checkpoint is at. Errors: ErrStale.
	SetHandoff(ctx context.Context, j *Job, at int) error
	// FailJob marks a job Failed with reason, unless it is Done.
	FailJob(ctx context.Context, j *Job, reason string) error
	// JobErrors reads the first limit row errors of a job, in row order.
	JobErrors(ctx context.Context, jobID string, limit int) ([]RowError, error)
}

// BookFinder finds the catalog's books by ISBN-13 (the books store).
type BookFinder interface {
	FindBooksByISBN(ctx context.Context, isbn13s []string) (map[string]*books.Book, error)
}

// BookImporter adds books to the catalog: the catalog importer's code
// path (books.Service.Import), so a book added by an inventory import is
// validated, indexed and identified as any imported book.
type BookImporter interface {
	Import(ctx context.Context, records []books.Record) (books.ImportResult, error)
}

// Importer applies import jobs: the one code path of the upload's inline
// run and of the csv-import worker.
type Importer struct {
	Stock   inventory.StockWriter
	Books   BookFinder
	Catalog BookImporter
	Jobs    Jobs
	Limits  Limits
	// Chunk is how many rows go between two checkpoints (default 100);
	// Concurrency how many of them are applied at once (default 8).
	Chunk, Concurrency int
	Now                func() time.Time
}

// Defaults of an Importer.
const (
	DefaultChunk       = 100
	DefaultConcurrency = 8
)

func (im *Importer) now() time.Time {
	if im.Now != nil {
		return im.Now()
	}
	return time.Now()
}

// Run applies job's file from the job's checkpoint, a chunk of rows at a
// time, each chunk's outcome stored as one checkpoint, until the file
// ends (the job is Done) or until is passed after a checkpoint (zero:
// no deadline). It returns the job as it stands; a Running job has rows
// left for a continuation. The rows before the checkpoint are read again
// (the file is a stream) but not applied.
//
// Rows are upserts by store and book that set the item's state
// (StockWriter.Set): applying a row twice changes nothing, so a chunk cut
// short and run again is harmless, and its counts are stored only with
// its checkpoint. A row whose ISBN an earlier valid row of the file
// already set fails (one item per store and book: which row should win
// is the file's to say). A row for a book the catalog lacks adds it when
// the row has a title (and author), else fails.
//
// Errors: a storage failure (the job stays at its last checkpoint, to be
// resumed), ErrStale (another attempt moved the job on), a file that no
// longer reads as it did at upload.
func (im *Importer) Run(ctx context.Context, job *Job, file io.Reader, until time.Time) (*Job, error) {
	if job.Status != Running {
		return job, nil
	}
	rd, err := NewReader(file, im.Limits)
	if err != nil {
		return job, fmt.Errorf("import %s: %w", job.ID, err)
	}
	chunk := im.Chunk
	if chunk <= 0 {
		chunk = DefaultChunk
	}
	seen := map[string]int{} // ISBN-13 of each valid row → its row number
	// Skip to the checkpoint.
	for rd.Rows() < job.RowsDone {
		row, _, err := rd.Next()
		if err != nil {
			return job, fmt.Errorf("import %s: skip to row %d: %w", job.ID, job.RowsDone, err)
		}
		if row != nil {
			if _, dup := seen[row.ISBN13]; !dup {
				seen[row.ISBN13] = row.Number
			}
		}
	}
	for {
		var rows []*Row
		p := Progress{From: job.RowsDone}
		failedRows := map[int]bool{}
		report := func(errs ...RowError) {
			for _, e := range errs {
				p.Errors = append(p.Errors, e)
				failedRows[e.Row] = true
			}
		}
		for rd.Rows()-p.From < chunk {
			row, errs, err := rd.Next()
			if errors.Is(err, io.EOF) {
				p.Final = true
				break
			}
			if err != nil {
				return job, fmt.Errorf("import %s: %w", job.ID, err)
			}
			report(errs...)
			if row == nil {
				continue
			}
			if first, dup := seen[row.ISBN13]; dup {
				report(RowError{Row: row.Number, Column: ColISBN, Value: cut(row.ISBN),
					Reason: fmt.Sprintf("is the same book as row %d: a store has one item per book", first)})
				continue
			}
			seen[row.ISBN13] = row.Number
			rows = append(rows, row)
		}
		p.To = rd.Rows()
		imported, errs, err := im.apply(ctx, job, rows)
		if err != nil {
			return job, err
		}
		report(errs...)
		slices.SortStableFunc(p.Errors, func(a, b RowError) int { return a.Row - b.Row })
		p.Imported, p.Failed = imported, len(failedRows)
		if err := im.Jobs.Checkpoint(ctx, job, p); err != nil {
			return job, fmt.Errorf("import %s: checkpoint at row %d: %w", job.ID, p.To, err)
		}
		job.RowsDone, job.Imported, job.Failed, job.UpdatedAt = p.To, job.Imported+p.Imported, job.Failed+p.Failed, im.now()
		if p.Final {
			job.Status = Done
			return job, nil
		}
		if !until.IsZero() && im.now().After(until) {
			return job, nil
		}
	}
}

// apply sets the stock of valid rows: their books found (or added), then
// each row's Set, Concurrency at a time. It returns how many rows were
// imported and the errors of the others; the error is a storage failure.
func (im *Importer) apply(ctx context.Context, job *Job, rows []*Row) (int, []RowError, error) {
	if len(rows) == 0 {
		return 0, nil, nil
	}
	isbns := make([]string, len(rows))
	for i, r := range rows {
		isbns[i] = r.ISBN13
	}
	found, err := im.Books.FindBooksByISBN(ctx, isbns)
	if err != nil {
		return 0, nil, fmt.Errorf("import %s: look up ISBNs: %w", job.ID, err)
	}
	bookIDs := map[string]string{}
	for isbn, b := range found {
		bookIDs[isbn] = b.ID
	}
	var errs []RowError
	var records []books.Record
	byNumber := map[int]*Row{}
	for _, r := range rows {
		switch {
		case bookIDs[r.ISBN13] != "":
		case r.Title == "":
			errs = append(errs, RowError{Row: r.Number, Column: ColISBN, Value: cut(r.ISBN),
				Reason: "is not in the catalog: give the row a title (and author) to add the book"})
		default:
			records = append(records, books.Record{Line: r.Number, ISBN: r.ISBN13, Title: r.Title, Authors: r.Authors})
			byNumber[r.Number] = r
		}
	}
	if len(records) > 0 {
		res, err := im.Catalog.Import(ctx, records)
		if err != nil {
			return 0, nil, fmt.Errorf("import %s: add books to the catalog: %w", job.ID, err)
		}
		refused := map[int]bool{}
		for _, e := range res.Errors {
			refused[e.Line] = true
			r := byNumber[e.Line]
			if r == nil {
				continue
			}
			errs = append(errs, RowError{Row: e.Line, Column: ColTitle, Value: cut(r.Title), Reason: "cannot add the book to the catalog: " + e.Message})
		}
		for _, rec := range records {
			if !refused[rec.Line] {
				// The importer's id for a new book derives from its ISBN.
				bookIDs[rec.ISBN] = books.BookIDOf(rec.ISBN)
			}
		}
	}

	// Rows of books the store has no item for yet create one, and every
	// creation moves the store's item count: run side by side they would
	// only conflict on it, so they go together through SetNew (a few
	// transactions, each adding its number of items to the count once)
	// or, with a StockWriter that cannot, one at a time; the other rows
	// (updates of distinct items) go Concurrency at a time.
	var ids []string
	for _, r := range rows {
		if id := bookIDs[r.ISBN13]; id != "" {
			ids = append(ids, id)
		}
	}
	have, err := im.Stock.ByBooks(ctx, job.StoreID, ids)
	if err != nil {
		return 0, nil, fmt.Errorf("import %s: read the store's items: %w", job.ID, err)
	}
	var mu sync.Mutex
	imported := 0
	cause := inventory.Cause{Kind: inventory.CauseImport, UserID: job.UserID, Ref: job.ID, Reason: "CSV bulk import"}
	// record counts a row's outcome; a storage failure stops the job.
	record := func(r *Row, err error) error {
		if err != nil && retryable(err) {
			return fmt.Errorf("import %s: row %d: %w", job.ID, r.Number, err)
		}
		mu.Lock()
		defer mu.Unlock()
		if err != nil {
			msg := err.Error()
			if e, ok := apperr.As(err); ok {
				msg = e.Message
			}
			errs = append(errs, RowError{Row: r.Number, Reason: msg})
			return nil
		}
		imported++
		return nil
	}
	set := func(ctx context.Context, r *Row, id string) error {
		_, err := im.Stock.Set(ctx, job.StoreID, r.Stock(id), cause)
		return record(r, err)
	}
	conc := im.Concurrency
	if conc <= 0 {
		conc = DefaultConcurrency
	}
	g, gctx := errgroup.WithContext(ctx)
	g.SetLimit(conc)
	var creates []*Row
	for _, r := range rows {
		id := bookIDs[r.ISBN13]
		switch {
		case id == "":
		case have[id] == nil:
			creates = append(creates, r)
		default:
			g.Go(func() error { return set(gctx, r, id) })
		}
	}
	g.Go(func() error {
		if bw, ok := im.Stock.(inventory.BatchWriter); ok && len(creates) > 0 {
			sts := make([]inventory.Stock, len(creates))
			for i, r := range creates {
				sts[i] = r.Stock(bookIDs[r.ISBN13])
			}
			_, setErrs := bw.SetNew(gctx, job.StoreID, sts, cause)
			for i, r := range creates {
				if err := record(r, setErrs[i]); err != nil {
					return err
				}
			}
			return nil
		}
		for _, r := range creates {
			if err := set(gctx, r, bookIDs[r.ISBN13]); err != nil {
				return err
			}
		}
		return nil
	})
	if err := g.Wait(); err != nil {
		return 0, nil, err
	}
	return imported, errs, nil
}

// retryable reports whether a row's error is the storage's, not the
// row's: the job stops at its checkpoint and is resumed later.
func retryable(err error) bool {
	switch apperr.CodeOf(err) {
	case apperr.CodeInternal, apperr.CodeUnavailable:
		return true
	}
	return false
}
