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

// progressEvery is how often the demo catalog's load reports progress on
// the console: a first start (10-25 s of writes) is never silent for
// long, and a later one (about 1 s of checks) prints only its summary.
const progressEvery = 2 * time.Second

// loadDemoCatalog imports the demo catalog on every start, through the same
// path as `go run ./local/importbooks`. The import is an upsert by ISBN, so
// a second start finds every book unchanged: that costs about 1 s for the
// 698 books (batched consistent reads, no write), little enough not to keep
// a "loaded" marker that could disagree with the table, and an edited file
// is picked up by the next start. The first start writes every book (10-25
// s on DynamoDB Local), so progress lines go to out every progressEvery,
// and progress (when not nil) hears of every batch. Failed records are
// listed; they do not stop the server.
func loadDemoCatalog(ctx context.Context, a *app.App, root string, out io.Writer, progress catalog.Progress) error {
	path := filepath.Join(root, catalog.DemoFile)
	fmt.Fprintf(out, "Loading the demo catalog %s (the first start writes every book, later ones check them)\n", catalog.DemoFile)
	start := time.Now()
	console := consoleProgress(out, progressEvery)
	res, err := catalog.ImportFileProgress(ctx, a.Books, path, func(done, total int) {
		console(done, total)
		if progress != nil {
			progress(done, total)
		}
	})
	catalog.WriteErrors(out, catalog.DemoFile, res, 20)
	if err != nil {
		return fmt.Errorf("demo catalog: %w", err)
	}
	fmt.Fprintf(out, "Demo catalog: %d books loaded (%s)\n",
		res.Created+res.Updated+res.Unchanged, catalog.Summary(res, time.Since(start)))
	return nil
}

// consoleProgress writes "catalog: done/total books" to out when at least
// every has passed since the previous line (or since it was made). The
// first report (nothing done) and the last (all done, the summary follows)
// are not written.
func consoleProgress(out io.Writer, every time.Duration) catalog.Progress {
	last := time.Now()
	return func(done, total int) {
		if done == 0 || done >= total || time.Since(last) < every {
			return
		}
		last = time.Now()
		fmt.Fprintf(out, "catalog: %d/%d books\n", done, total)
	}
}
