// Package catalog loads catalog files into the book service for the local
// tools: the importer command (local/importbooks) and the local run's demo
// catalog (`make run`). Both go through ImportFile: the file is parsed by
// books.Parse and upserted by books.Service.Import, the path a deployed
// import worker would use too; this package opens files by name, reports
// progress and results to a person.
package catalog

import (
	"context"
	"fmt"
	"io"
	"os"
	"slices"
	"strings"
	"time"

	"github.com/bookplatform/backend/shared/books"
)

// DemoFile is the demo catalog, relative to the module root
// (local/data/README.md says where its books come from).
const DemoFile = "local/data/catalog.jsonl"

// BatchSize is how many records ImportFile hands the book service at a
// time, and so how often it reports progress: the service's own lookup
// batch, so a batch costs one round of ISBN lookups.
const BatchSize = 100

// Importer is what loading a catalog file needs of the book service.
type Importer interface {
	Import(ctx context.Context, records []books.Record) (books.ImportResult, error)
}

var _ Importer = (*books.Service)(nil)

// Progress is told how many of a file's records have been imported (done)
// of the records the file holds (total): once with done 0 when the file
// is read, then after each batch.
type Progress func(done, total int)

// ImportFile imports the catalog file at path, JSON lines or CSV by its
// extension (books.FormatOf), as ImportFileProgress without progress.
func ImportFile(ctx context.Context, imp Importer, path string) (books.ImportResult, error) {
	return ImportFileProgress(ctx, imp, path, nil)
}

// ImportFileProgress imports the catalog file at path, JSON lines or CSV
// by its extension (books.FormatOf), BatchSize records at a time, calling
// progress (when not nil) as it goes. The result is the one a single
// books.Service.ImportFile call would give: lines that cannot be read
// count as Failed beside invalid records, errors in line order. The error
// is for a file that cannot be read or a storage failure; the batches
// written until then stay written.
//
// The batching is here because books.Service.Import reports nothing until
// it is done, which leaves a first `make run` silent for 10-25 s.
func ImportFileProgress(ctx context.Context, imp Importer, path string, progress Progress) (books.ImportResult, error) {
	if progress == nil {
		progress = func(int, int) {}
	}
	format, err := books.FormatOf(path)
	if err != nil {
		return books.ImportResult{}, err
	}
	f, err := os.Open(path)
	if err != nil {
		return books.ImportResult{}, fmt.Errorf("open catalog: %w", err)
	}
	defer f.Close()
	records, unread, err := books.Parse(f, format)
	if err != nil {
		return books.ImportResult{}, fmt.Errorf("read %s: %w", path, err)
	}

	res := books.ImportResult{Errors: append([]books.ImportError{}, unread...), Failed: len(unread)}
	done := 0
	progress(done, len(records))
	for _, batch := range batches(records, BatchSize) {
		r, err := imp.Import(ctx, batch)
		res.Created += r.Created
		res.Updated += r.Updated
		res.Unchanged += r.Unchanged
		res.Failed += r.Failed
		res.Errors = append(res.Errors, r.Errors...)
		if err != nil {
			sortErrors(res.Errors)
			return res, fmt.Errorf("import %s: %w", path, err)
		}
		done += len(batch)
		progress(done, len(records))
	}
	sortErrors(res.Errors)
	return res, nil
}

// batches cuts records into batches of about size records in file order,
// except that every record of an ISBN joins the batch of that ISBN's first
// record. Import then sees a repeated ISBN within one call and treats it
// as it does within a whole file (the later record wins, the earlier is
// reported), where a cut between the two would import both silently.
func batches(records []books.Record, size int) [][]books.Record {
	var groups [][]books.Record
	first := map[string]int{} // ISBN-13 → index in groups
	for _, rec := range records {
		isbn13, _, err := books.NormalizeISBN(strings.TrimSpace(rec.ISBN))
		if err == nil {
			if i, seen := first[isbn13]; seen {
				groups[i] = append(groups[i], rec)
				continue
			}
			first[isbn13] = len(groups)
		}
		// A record without a valid ISBN is rejected by Import on its own.
		groups = append(groups, []books.Record{rec})
	}
	var out [][]books.Record
	var cur []books.Record
	for _, g := range groups {
		cur = append(cur, g...)
		if len(cur) >= size {
			out, cur = append(out, cur), nil
		}
	}
	if len(cur) > 0 {
		out = append(out, cur)
	}
	return out
}

func sortErrors(errs []books.ImportError) {
	slices.SortStableFunc(errs, func(a, b books.ImportError) int { return a.Line - b.Line })
}

// Summary is one line a person reads after an import.
func Summary(res books.ImportResult, took time.Duration) string {
	return fmt.Sprintf("%d created, %d updated, %d unchanged, %d failed in %s",
		res.Created, res.Updated, res.Unchanged, res.Failed, took.Round(10*time.Millisecond))
}

// WriteErrors writes one line per record that was not imported, at most
// max lines (0: all) and then how many were left out.
func WriteErrors(w io.Writer, name string, res books.ImportResult, max int) {
	for i, e := range res.Errors {
		if max > 0 && i == max {
			fmt.Fprintf(w, "... and %d more\n", len(res.Errors)-max)
			return
		}
		isbn := ""
		if e.ISBN != "" {
			isbn = " (ISBN " + e.ISBN + ")"
		}
		fmt.Fprintf(w, "%s:%d%s: %s\n", name, e.Line, isbn, e.Message)
	}
}
