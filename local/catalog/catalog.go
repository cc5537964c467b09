// Package catalog loads catalog files into the book service for the local
// tools: the importer command (local/importbooks) and the local run's demo
// catalog (`make run`). Both go through ImportFile: the file is parsed by
// books.Parse and upserted by books.Service.Import, the path a deployed
// import worker would use too; this package opens files by name, reports
// progress and results to a person.
package catalog

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"io/fs"
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

// ImportFileProgress imports the catalog file at path as ImportFileWith
// with progress only.
//
// The batching is here because books.Service.Import reports nothing until
// it is done, which leaves a first `make run` silent for 10-25 s.
func ImportFileProgress(ctx context.Context, imp Importer, path string, progress Progress) (books.ImportResult, error) {
	return ImportFileWith(ctx, imp, path, Options{Progress: progress})
}

// Options of ImportFileWith.
type Options struct {
	// Progress, when set, is told of each batch done.
	Progress Progress
	// BatchSize is how many records one Import call gets (default
	// BatchSize); a bulk load wants more, to keep the service's parallel
	// writes busy.
	BatchSize int
	// Checkpoint, when set, is a file where the import notes each batch
	// done and the result so far, so that a run stopped by a crash or
	// Ctrl-C resumes after the last batch done (see Checkpoint). It is
	// deleted when the import finishes.
	Checkpoint string
}

// ImportFileWith imports the catalog file at path, JSON lines or CSV by
// its extension (books.FormatOf), opt.BatchSize records at a time. The
// result is the one a single books.Service.ImportFile call would give:
// lines that cannot be read count as Failed beside invalid records,
// errors in line order. The error is for a file that cannot be read, a
// checkpoint that does not fit the file, or a storage failure; the
// batches written until then stay written (and noted in the checkpoint).
func ImportFileWith(ctx context.Context, imp Importer, path string, opt Options) (books.ImportResult, error) {
	progress := opt.Progress
	if progress == nil {
		progress = func(int, int) {}
	}
	size := opt.BatchSize
	if size <= 0 {
		size = BatchSize
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
	id, err := fileIdentity(f, size)
	if err != nil {
		return books.ImportResult{}, fmt.Errorf("read %s: %w", path, err)
	}
	records, unread, err := books.Parse(f, format)
	if err != nil {
		return books.ImportResult{}, fmt.Errorf("read %s: %w", path, err)
	}

	res := books.ImportResult{Errors: append([]books.ImportError{}, unread...), Failed: len(unread)}
	all := batches(records, size)
	skip := 0
	if opt.Checkpoint != "" {
		cp, found, err := readCheckpoint(opt.Checkpoint)
		switch {
		case err != nil:
			return books.ImportResult{}, err
		case found && cp.File != id:
			return books.ImportResult{}, fmt.Errorf("checkpoint %s is of another file or batch size (%+v, not %+v): delete it to start over", opt.Checkpoint, cp.File, id)
		case found:
			skip, res = min(cp.Batches, len(all)), cp.Result
		}
	}
	done := 0
	for _, b := range all[:skip] {
		done += len(b)
	}
	progress(done, len(records))
	for i, batch := range all[skip:] {
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
		if opt.Checkpoint != "" {
			cp := Checkpoint{File: id, Batches: skip + i + 1, Records: done, Result: res}
			if err := cp.write(opt.Checkpoint); err != nil {
				return res, err
			}
		}
		progress(done, len(records))
	}
	sortErrors(res.Errors)
	if opt.Checkpoint != "" {
		if err := os.Remove(opt.Checkpoint); err != nil && !errors.Is(err, fs.ErrNotExist) {
			return res, fmt.Errorf("remove checkpoint: %w", err)
		}
	}
	return res, nil
}

// Checkpoint is how far an import of a file got: the batches done (in
// the order batches cuts them, the same for the same file and batch size)
// and the result until then. Resuming skips those batches. A batch cut
// short by a crash is imported again whole: its books already written
// are found by their ISBN claims and count as Unchanged (they were
// Created in the run that crashed, whose counts of that batch are lost),
// and a new book written again has the same id (books.BookIDOf), so no
// book is written twice. A book is stored only after its index
// (Storer.CreateBooks), so one cut short is created again, whole. The
// result adds up per run of batches: an ISBN in two batches counts as
// Updated (or Unchanged) in the second, not as a duplicate, as in two
// separate imports; only repeats within one batch are duplicates.
type Checkpoint struct {
	File    FileIdentity       `json:"file"`
	Batches int                `json:"batches"`
	Records int                `json:"records"`
	Result  books.ImportResult `json:"result"`
}

// FileIdentity tells whether a checkpoint is of this file, unchanged, cut
// into batches of this size.
type FileIdentity struct {
	Size      int64 `json:"size"`
	ModTime   int64 `json:"modTime"` // Unix nanoseconds
	BatchSize int   `json:"batchSize"`
}

func fileIdentity(f *os.File, batchSize int) (FileIdentity, error) {
	st, err := f.Stat()
	if err != nil {
		return FileIdentity{}, err
	}
	return FileIdentity{Size: st.Size(), ModTime: st.ModTime().UnixNano(), BatchSize: batchSize}, nil
}

// readCheckpoint reads a checkpoint file; found is false when there is
// none.
func readCheckpoint(path string) (Checkpoint, bool, error) {
	b, err := os.ReadFile(path)
	if errors.Is(err, fs.ErrNotExist) {
		return Checkpoint{}, false, nil
	}
	if err != nil {
		return Checkpoint{}, false, fmt.Errorf("read checkpoint: %w", err)
	}
	var cp Checkpoint
	if err := json.Unmarshal(b, &cp); err != nil {
		return Checkpoint{}, false, fmt.Errorf("checkpoint %s: %w (delete it to start over)", path, err)
	}
	return cp, true, nil
}

// write replaces the checkpoint file atomically (a temporary file
// renamed over it), so a crash while writing leaves the previous one.
func (cp Checkpoint) write(path string) error {
	b, err := json.Marshal(cp)
	if err != nil {
		return err
	}
	tmp := path + ".tmp"
	if err := os.WriteFile(tmp, b, 0o600); err != nil {
		return fmt.Errorf("write checkpoint: %w", err)
	}
	if err := os.Rename(tmp, path); err != nil {
		return fmt.Errorf("write checkpoint: %w", err)
	}
	return nil
}

// ResumedFrom reports how many records of a file a checkpoint says are
// done, for the person who restarts an import (0 without one).
func ResumedFrom(path string) int {
	cp, found, err := readCheckpoint(path)
	if err != nil || !found {
		return 0
	}
	return cp.Records
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
