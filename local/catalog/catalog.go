// Package catalog loads catalog files into the book service for the local
// tools: the importer command (local/importbooks) and the local run's demo
// catalog (`make run`). Both go through ImportFile, which hands the file to
// books.Service.ImportFile, the parse-and-upsert path a deployed import
// worker would use too; this package only opens files by name and reports
// results to a person.
package catalog

import (
	"context"
	"fmt"
	"io"
	"os"
	"time"

	"github.com/bookplatform/backend/shared/books"
)

// DemoFile is the demo catalog, relative to the module root
// (local/data/README.md says where its books come from).
const DemoFile = "local/data/catalog.jsonl"

// Importer is what loading a catalog file needs of the book service.
type Importer interface {
	ImportFile(ctx context.Context, r io.Reader, f books.Format) (books.ImportResult, error)
}

var _ Importer = (*books.Service)(nil)

// ImportFile imports the catalog file at path, JSON lines or CSV by its
// extension (books.FormatOf). The error is for a file that cannot be read
// or a storage failure; invalid records are in the result.
func ImportFile(ctx context.Context, imp Importer, path string) (books.ImportResult, error) {
	format, err := books.FormatOf(path)
	if err != nil {
		return books.ImportResult{}, err
	}
	f, err := os.Open(path)
	if err != nil {
		return books.ImportResult{}, fmt.Errorf("open catalog: %w", err)
	}
	defer f.Close()
	res, err := imp.ImportFile(ctx, f, format)
	if err != nil {
		return res, fmt.Errorf("import %s: %w", path, err)
	}
	return res, nil
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
