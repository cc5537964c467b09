package main

import (
	"context"
	"fmt"
	"io"
	"path/filepath"
	"time"

	"github.com/bookplatform/backend/local/catalog"
	"github.com/bookplatform/backend/shared/app"
)

// loadDemoCatalog imports the demo catalog on every start, through the same
// path as `go run ./local/importbooks`. The import is an upsert by ISBN, so
// a second start finds every book unchanged: that costs about 1 s for the
// 698 books (batched consistent reads, no write), little enough not to keep
// a "loaded" marker that could disagree with the table, and an edited file
// is picked up by the next start. The first start writes every book (about
// 10-15 s on DynamoDB Local). Failed records are listed; they do
// not stop the server.
func loadDemoCatalog(ctx context.Context, a *app.App, root string, out io.Writer) error {
	path := filepath.Join(root, catalog.DemoFile)
	fmt.Fprintf(out, "Loading the demo catalog %s (the first start writes every book, later ones check them)\n", catalog.DemoFile)
	start := time.Now()
	res, err := catalog.ImportFile(ctx, a.Books, path)
	catalog.WriteErrors(out, catalog.DemoFile, res, 20)
	if err != nil {
		return fmt.Errorf("demo catalog: %w", err)
	}
	fmt.Fprintf(out, "Demo catalog: %d books loaded (%s)\n",
		res.Created+res.Updated+res.Unchanged, catalog.Summary(res, time.Since(start)))
	return nil
}
