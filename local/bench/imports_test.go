package main

import (
	"bytes"
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"net/http"
	"os"
	"runtime"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/bookplatform/backend/local/testenv"
	"github.com/bookplatform/backend/shared/books"
	"github.com/bookplatform/backend/shared/dynamo"
	"github.com/bookplatform/backend/shared/ids"
	"github.com/bookplatform/backend/shared/inventory/csvimport"
	"github.com/bookplatform/backend/shared/users"
)

// EnvBenchImport turns TestImportBench on: it builds catalogs and import
// files of thousands of rows, minutes of work at 50,000.
const EnvBenchImport = "BENCH_IMPORT"

var (
	importOut   = flag.String("import-out", "", "write the import throughput table to this file")
	importSizes = flag.String("import-sizes", "1000,50000", "rows of the synthetic import files, each imported into a fresh table")
	importConc  = flag.Int("import-concurrency", 0, "rows applied at once (0: the importer's default)")
)

// TestImportBench measures the inventory CSV import (shared/inventory/
// csvimport) at each size of -import-sizes: the reader alone (parse,
// validate, no storage), then the importer's run as the csv-import
// worker does it (csvimport.Importer.Run over the table: ISBN lookups,
// one StockWriter.Set per row, a checkpoint per chunk), into an empty
// store (every row creates an item) and again (every row is unchanged).
// Throughput is data rows a second; memory is the peak heap in use above
// the run's start (sampled every 5 ms) and the bytes allocated per row.
// DynamoDB Local on a shared machine: the figures compare runs, they do
// not predict AWS.
func TestImportBench(t *testing.T) {
	if os.Getenv(EnvBenchImport) == "" {
		t.Skipf("set %s=1 to run (minutes at 50,000 rows)", EnvBenchImport)
	}
	var out strings.Builder
	fmt.Fprintf(&out, "   %-8s %-22s %10s %10s %12s %12s\n", "rows", "run", "seconds", "rows/s", "peak heap", "alloc/row")
	for _, f := range strings.Split(*importSizes, ",") {
		n, err := strconv.Atoi(strings.TrimSpace(f))
		if err != nil || n <= 0 {
			t.Fatalf("bad size %q", f)
		}
		for _, line := range benchImport(t, n) {
			out.WriteString(line)
		}
	}
	t.Log("\n" + out.String())
	if *importOut != "" {
		if err := os.WriteFile(*importOut, []byte(out.String()), 0o644); err != nil {
			t.Fatal(err)
		}
	}
}

// importFile is a file of n rows over the books of isbns, with notes
// quoted around a comma, prices in decimal units and a cost.
func importFile(isbns []string) []byte {
	var b bytes.Buffer
	b.WriteString("isbn,quantity,price,condition,cost,location,notes\r\n")
	for i, isbn := range isbns {
		fmt.Fprintf(&b, "%s,%d,%d.%02d,%s,%d.50,Shelf %d,\"Row %d, benchmarked\"\r\n", isbn, 1+i%9, 5+i%40, i%100,
			[]string{"new", "used_good", "used_like_new"}[i%3], 2+i%20, i%50, i)
	}
	return b.Bytes()
}

// benchISBNs are n distinct valid ISBN-13s of the 979-8 range.
func benchISBNs(n int) []string {
	out := make([]string, n)
	for i := range out {
		out[i] = books.CompleteISBN13(fmt.Sprintf("9798%08d", i))
	}
	return out
}

// measuredRun runs f, sampling the heap in use, and returns its duration,
// the peak heap above the start and the bytes allocated.
func measuredRun(f func() error) (time.Duration, uint64, uint64, error) {
	runtime.GC()
	var ms runtime.MemStats
	runtime.ReadMemStats(&ms)
	base, alloc0 := ms.HeapInuse, ms.TotalAlloc
	var peak atomic.Uint64
	stop := make(chan struct{})
	var wg sync.WaitGroup
	wg.Go(func() {
		tick := time.NewTicker(5 * time.Millisecond)
		defer tick.Stop()
		for {
			var m runtime.MemStats
			runtime.ReadMemStats(&m)
			if m.HeapInuse > base && m.HeapInuse-base > peak.Load() {
				peak.Store(m.HeapInuse - base)
			}
			select {
			case <-stop:
				return
			case <-tick.C:
			}
		}
	})
	start := time.Now()
	err := f()
	d := time.Since(start)
	close(stop)
	wg.Wait()
	runtime.ReadMemStats(&ms)
	return d, peak.Load(), ms.TotalAlloc - alloc0, err
}

func benchImport(t *testing.T, n int) []string {
	t.Helper()
	ctx := context.Background()
	isbns := benchISBNs(n)
	file := importFile(isbns)
	var lines []string
	row := func(run string, d time.Duration, peak, alloc uint64) {
		lines = append(lines, fmt.Sprintf("   %-8d %-22s %10.2f %10.0f %10.1fMB %10.0fB\n", n, run, d.Seconds(), float64(n)/d.Seconds(),
			float64(peak)/(1<<20), float64(alloc)/float64(n)))
	}

	// The reader alone: the file streamed, every row validated.
	d, peak, alloc, err := measuredRun(func() error {
		rd, err := csvimport.NewReader(bytes.NewReader(file), csvimport.Limits{})
		if err != nil {
			return err
		}
		for {
			_, errs, err := rd.Next()
			if errors.Is(err, io.EOF) {
				return nil
			}
			if err != nil || len(errs) > 0 {
				return fmt.Errorf("%v %v", err, errs)
			}
		}
	})
	if err != nil {
		t.Fatal(err)
	}
	row(fmt.Sprintf("parse (%d KB)", len(file)>>10), d, peak, alloc)

	env := testenv.New(t)
	owner := env.Signup(t, "importbench")
	env.SetTier(t, owner, users.TierBookstore)
	res := env.Do("POST", "/v1/stores", map[string]any{
		"name": "Bench Imports", "slug": "bench-imports", "addressLine1": "1005 W Burnside St", "city": "Portland",
		"state": "OR", "postalCode": "97209", "country": "US",
	}, owner.Token)
	if res.Status != http.StatusCreated {
		t.Fatalf("store: %s", res)
	}
	storeID := res.JSON["id"].(string)
	recs := make([]books.Record, n)
	for i, isbn := range isbns {
		recs[i] = books.Record{ISBN: isbn, Title: "Benchmark Book " + strconv.Itoa(i), Authors: []string{"Bench Author"}}
	}
	if r, err := env.App.Books.Import(ctx, recs); err != nil || r.Created != n {
		t.Fatalf("catalog: %+v %v", r, err)
	}
	h := env.App.Table
	im := &csvimport.Importer{
		Stock: dynamo.NewInventory(h), Books: dynamo.NewBooks(h), Catalog: env.App.Books, Jobs: dynamo.NewImportJobs(h), Now: env.App.Now,
		Concurrency: *importConc,
	}
	for _, run := range []string{"import (creates)", "re-import (unchanged)"} {
		now := env.App.Now()
		job := &csvimport.Job{ID: ids.New(), StoreID: storeID, UserID: owner.ID, Status: csvimport.Running, Total: n, Handoff: -1, CreatedAt: now, UpdatedAt: now}
		if err := im.Jobs.CreateJob(ctx, job); err != nil {
			t.Fatal(err)
		}
		var done *csvimport.Job
		d, peak, alloc, err := measuredRun(func() error {
			var err error
			done, err = im.Run(ctx, job, bytes.NewReader(file), time.Time{})
			return err
		})
		if err != nil {
			t.Fatal(err)
		}
		if done.Status != csvimport.Done || done.Imported != n {
			t.Fatalf("%s: %+v", run, done)
		}
		row(run, d, peak, alloc)
	}
	return lines
}
