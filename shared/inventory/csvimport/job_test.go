package csvimport

import (
	"context"
	"errors"
	"fmt"
	"runtime"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/bookplatform/backend/shared/books"
	"github.com/bookplatform/backend/shared/inventory"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// fakes: a catalog, a stock and a jobs store in memory.
type fakeWorld struct {
	mu      sync.Mutex
	catalog map[string]*books.Book // ISBN-13 → book
	stock   map[string]inventory.Stock
	sets    int
	failSet int // fail the n-th Set with a storage error (0: never)
	jobs    map[string]*Job
	errs    map[string][]RowError
}

func newFakeWorld(isbns ...string) *fakeWorld {
	w := &fakeWorld{catalog: map[string]*books.Book{}, stock: map[string]inventory.Stock{}, jobs: map[string]*Job{}, errs: map[string][]RowError{}}
	for _, i := range isbns {
		w.catalog[i] = &books.Book{ID: "book-" + i, ISBN13: i}
	}
	return w
}

func (w *fakeWorld) FindBooksByISBN(_ context.Context, isbns []string) (map[string]*books.Book, error) {
	w.mu.Lock()
	defer w.mu.Unlock()
	out := map[string]*books.Book{}
	for _, i := range isbns {
		if b := w.catalog[i]; b != nil {
			out[i] = b
		}
	}
	return out, nil
}

func (w *fakeWorld) Import(_ context.Context, recs []books.Record) (books.ImportResult, error) {
	w.mu.Lock()
	defer w.mu.Unlock()
	var res books.ImportResult
	for _, r := range recs {
		if strings.Contains(r.Title, "BAD") {
			res.Errors = append(res.Errors, books.ImportError{Line: r.Line, ISBN: r.ISBN, Message: "title is bad"})
			continue
		}
		w.catalog[r.ISBN] = &books.Book{ID: books.BookIDOf(r.ISBN), ISBN13: r.ISBN, Title: r.Title}
		res.Created++
	}
	return res, nil
}

func (w *fakeWorld) Set(_ context.Context, storeID string, s inventory.Stock, _ inventory.Cause) (inventory.SetResult, error) {
	w.mu.Lock()
	defer w.mu.Unlock()
	w.sets++
	if w.failSet > 0 && w.sets == w.failSet {
		return inventory.SetResult{}, errors.New("storage down")
	}
	if !w.hasBook(s.BookID) {
		return inventory.SetResult{}, books.ErrNotFound
	}
	prev, had := w.stock[storeID+"/"+s.BookID]
	w.stock[storeID+"/"+s.BookID] = s
	return inventory.SetResult{Created: !had, Changed: fmt.Sprint(prev) != fmt.Sprint(s)}, nil
}

// hasBook reports whether the catalog has a book of id (the fakes' ids
// are "book-<isbn>" or the importer's BookIDOf).
func (w *fakeWorld) hasBook(id string) bool {
	if isbn, ok := strings.CutPrefix(id, "book-"); ok {
		return w.catalog[isbn] != nil
	}
	for _, b := range w.catalog {
		if b.ID == id {
			return true
		}
	}
	return false
}

func (w *fakeWorld) ByBooks(context.Context, string, []string) (map[string]*inventory.Item, error) {
	return nil, nil
}
func (w *fakeWorld) All(context.Context, string, func([]*inventory.Item) error) error { return nil }

func (w *fakeWorld) CreateJob(_ context.Context, j *Job) error {
	w.mu.Lock()
	defer w.mu.Unlock()
	c := *j
	w.jobs[j.ID] = &c
	return nil
}

func (w *fakeWorld) GetJob(_ context.Context, id string) (*Job, error) {
	w.mu.Lock()
	defer w.mu.Unlock()
	j, ok := w.jobs[id]
	if !ok {
		return nil, ErrJobNotFound
	}
	c := *j
	return &c, nil
}

func (w *fakeWorld) Checkpoint(_ context.Context, j *Job, p Progress) error {
	w.mu.Lock()
	defer w.mu.Unlock()
	s := w.jobs[j.ID]
	if s.RowsDone != p.From {
		return ErrStale
	}
	s.RowsDone, s.Imported, s.Failed = p.To, s.Imported+p.Imported, s.Failed+p.Failed
	if p.Final {
		s.Status = Done
	}
	w.errs[j.ID] = append(w.errs[j.ID], p.Errors...)
	return nil
}

func (w *fakeWorld) SetHandoff(_ context.Context, j *Job, at int) error { return nil }
func (w *fakeWorld) FailJob(_ context.Context, j *Job, reason string) error {
	return nil
}
func (w *fakeWorld) JobErrors(_ context.Context, id string, limit int) ([]RowError, error) {
	return w.errs[id], nil
}

const (
	isbnA = "9780306406157"
	isbnB = "9780198534532"
	isbnC = "9780141439518" // not in the catalog
)

func newJob(w *fakeWorld) *Job {
	j := &Job{ID: "job-1", StoreID: "store-1", UserID: "owner", Status: Running, Handoff: -1}
	_ = w.CreateJob(context.Background(), j)
	return j
}

func importer(w *fakeWorld, chunk int) *Importer {
	return &Importer{Stock: w, Books: w, Catalog: w, Jobs: w, Chunk: chunk, Concurrency: 4}
}

func TestRun_appliesRowsAndReports(t *testing.T) {
	w := newFakeWorld(isbnA, isbnB)
	file := "isbn,quantity,price,condition,title,author\n" +
		isbnA + ",3,12.99,new,,\n" +
		isbnB + ",1,4.50,used_good,,\n" +
		isbnC + ",2,1.00,new,,\n" + // unknown, no title: fails
		"9780141439600,2,1.00,new,Emma,Jane Austen\n" + // unknown with a title: added
		"9780140449136,2,1.00,new,BAD,\n" + // the catalog refuses it
		"0306406152,5,1.00,new,,\n" + // isbnA again (as an ISBN-10): fails
		"x,1,1,new,,\n"
	job, err := importer(w, 100).Run(context.Background(), newJob(w), strings.NewReader(file), time.Time{})
	require.NoError(t, err)
	assert.Equal(t, Done, job.Status)
	assert.Equal(t, 7, job.RowsDone)
	assert.Equal(t, 3, job.Imported)
	assert.Equal(t, 4, job.Failed)
	assert.Equal(t, 1299, w.stock["store-1/book-"+isbnA].PriceCents)
	assert.Equal(t, 3, w.stock["store-1/book-"+isbnA].Quantity, "the duplicate row did not overwrite the first")
	assert.Contains(t, w.stock, "store-1/"+books.BookIDOf("9780141439600"), "the new book's stock, by the importer's id")

	errs := w.errs["job-1"]
	require.Len(t, errs, 4, "%+v", errs)
	assert.Equal(t, RowError{Row: 4, Column: "isbn", Value: isbnC, Reason: "is not in the catalog: give the row a title (and author) to add the book"}, errs[0])
	assert.Equal(t, 6, errs[1].Row)
	assert.Equal(t, "title", errs[1].Column)
	assert.Contains(t, errs[1].Reason, "title is bad")
	assert.Equal(t, RowError{Row: 7, Column: "isbn", Value: "0306406152", Reason: "is the same book as row 2: a store has one item per book"}, errs[2])
	assert.Equal(t, 8, errs[3].Row)
}

// A run cut short by a storage failure resumes at its checkpoint: the
// counts of the chunks before it are not counted again, the rows of the
// failed chunk are applied again (harmless: Set sets), and a duplicate
// before the checkpoint is still known after it.
func TestRun_resumesFromItsCheckpoint(t *testing.T) {
	var isbns []string
	file := "isbn,quantity,price,condition\n"
	for i := range 10 {
		d12 := fmt.Sprintf("978000000%03d", i)
		isbn := books.CompleteISBN13(d12)
		isbns = append(isbns, isbn)
		file += isbn + ",1,1.00,new\n"
	}
	file += isbns[0] + ",9,1.00,new\n" // row 12: a duplicate of row 2
	w := newFakeWorld(isbns...)
	w.failSet = 6 // in the third chunk of 2 rows
	im := importer(w, 2)
	im.Concurrency = 1
	job, err := im.Run(context.Background(), newJob(w), strings.NewReader(file), time.Time{})
	require.Error(t, err)
	stored, _ := w.GetJob(context.Background(), "job-1")
	assert.Equal(t, 4, stored.RowsDone, "two chunks checkpointed")
	assert.Equal(t, 4, stored.Imported)

	job, err = im.Run(context.Background(), stored, strings.NewReader(file), time.Time{})
	require.NoError(t, err)
	assert.Equal(t, Done, job.Status)
	stored, _ = w.GetJob(context.Background(), "job-1")
	assert.Equal(t, 11, stored.RowsDone)
	assert.Equal(t, 10, stored.Imported, "each row counted once")
	assert.Equal(t, 1, stored.Failed)
	require.Len(t, w.errs["job-1"], 1)
	assert.Equal(t, 12, w.errs["job-1"][0].Row)
	assert.Equal(t, 1, w.stock["store-1/book-"+isbns[0]].Quantity)

	// Run again (a redelivered message): nothing happens.
	sets := w.sets
	_, err = im.Run(context.Background(), job, strings.NewReader(file), time.Time{})
	require.NoError(t, err)
	assert.Equal(t, sets, w.sets)
}

func TestRun_stopsAfterItsDeadline(t *testing.T) {
	w := newFakeWorld(isbnA, isbnB)
	file := "isbn,quantity,price,condition\n" + isbnA + ",1,1,new\n" + isbnB + ",1,1,new\n"
	job, err := importer(w, 1).Run(context.Background(), newJob(w), strings.NewReader(file), time.Now().Add(-time.Second))
	require.NoError(t, err)
	assert.Equal(t, Running, job.Status, "one chunk, then the deadline")
	assert.Equal(t, 1, job.RowsDone)

	_, err = importer(w, 1).Run(context.Background(), &Job{ID: "job-1", StoreID: "store-1", Status: Running, RowsDone: 0}, strings.NewReader(file), time.Time{})
	assert.ErrorIs(t, err, ErrStale, "an attempt behind the checkpoint stops")
}

// BenchmarkRun_50000 runs a 50,000-row import over the in-memory fakes:
// the importer's own cost (reading, validating, chunking, the seen set,
// checkpoints) without the storage's, and its peak heap above the start,
// which holds no more than a chunk of rows and the file's set of ISBNs.
func BenchmarkRun_50000(b *testing.B) {
	const rows = 50_000
	isbns := make([]string, rows)
	var sb strings.Builder
	sb.WriteString("isbn,quantity,price,condition,cost,location,notes\r\n")
	for i := range isbns {
		d12 := fmt.Sprintf("9798%08d", i)
		isbns[i] = books.CompleteISBN13(d12)
		fmt.Fprintf(&sb, "%s,%d,12.99,used_good,6.50,Shelf %d,\"Row %d, benchmarked\"\r\n", isbns[i], 1+i%9, i%50, i)
	}
	file := sb.String()
	b.ReportAllocs()
	var peak uint64
	for b.Loop() {
		b.StopTimer()
		w := newFakeWorld(isbns...)
		runtime.GC()
		var ms runtime.MemStats
		runtime.ReadMemStats(&ms)
		base := ms.HeapInuse
		stop := make(chan struct{})
		done := make(chan struct{})
		go func() {
			defer close(done)
			for {
				var m runtime.MemStats
				runtime.ReadMemStats(&m)
				if m.HeapInuse > base && m.HeapInuse-base > peak {
					peak = m.HeapInuse - base
				}
				select {
				case <-stop:
					return
				case <-time.After(5 * time.Millisecond):
				}
			}
		}()
		b.StartTimer()
		job, err := importer(w, DefaultChunk).Run(context.Background(), newJob(w), strings.NewReader(file), time.Time{})
		b.StopTimer()
		close(stop)
		<-done
		if err != nil || job.Imported != rows {
			b.Fatalf("%+v %v", job, err)
		}
		b.StartTimer()
	}
	b.ReportMetric(float64(rows*b.N)/b.Elapsed().Seconds(), "rows/s")
	b.ReportMetric(float64(peak)/(1<<20), "peakMB")
}

// batchWorld is a fakeWorld whose stock can create many items at once
// (inventory.BatchWriter), counting the calls.
type batchWorld struct {
	*fakeWorld
	setNewCalls, setNewStocks int
}

func (w *batchWorld) SetNew(ctx context.Context, storeID string, sts []inventory.Stock, c inventory.Cause) ([]inventory.SetResult, []error) {
	w.mu.Lock()
	w.setNewCalls++
	w.setNewStocks += len(sts)
	w.mu.Unlock()
	res, errs := make([]inventory.SetResult, len(sts)), make([]error, len(sts))
	for i, s := range sts {
		res[i], errs[i] = w.Set(ctx, storeID, s, c)
	}
	return res, errs
}

// With a BatchWriter, a chunk's new items go through one SetNew (a few
// transactions, one addition to the store's count each) instead of one
// Set after another; its per-stock errors are the rows' errors.
func TestRun_createsAChunkThroughSetNew(t *testing.T) {
	w := &batchWorld{fakeWorld: newFakeWorld(isbnA, isbnB)}
	im := &Importer{Stock: w, Books: w, Catalog: w, Jobs: w, Chunk: 100, Concurrency: 4}
	file := "isbn,quantity,price,condition,title\n" +
		isbnA + ",3,12.99,new,\n" +
		isbnB + ",1,4.50,used_good,\n" +
		"9780141439600,2,1.00,new,Emma\n"
	w.catalog[isbnC] = &books.Book{ID: "book-gone", ISBN13: isbnC} // found, but Set will not find it
	file += isbnC + ",1,1.00,new,\n"
	job, err := im.Run(context.Background(), newJob(w.fakeWorld), strings.NewReader(file), time.Time{})
	require.NoError(t, err)
	assert.Equal(t, 1, w.setNewCalls, "one SetNew for the chunk's creations")
	assert.Equal(t, 4, w.setNewStocks)
	assert.Equal(t, 3, job.Imported)
	assert.Equal(t, 1, job.Failed)
	require.Len(t, w.errs["job-1"], 1)
	assert.Equal(t, 5, w.errs["job-1"][0].Row)
}
