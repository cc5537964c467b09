// Command importbooks loads a catalog file (JSON lines or CSV, by
// extension) into the book catalog: the books are upserted by ISBN-13,
// so running it again with the same file changes nothing.
//
//	go run ./local/importbooks -file local/data/catalog.jsonl
//	go run ./local/importbooks -file local/data/catalog-sample.csv
//
// It builds the service exactly as local/main.go and the Lambdas do
// (shared/config, app.LoadClients, app.New) and calls the same import
// path as the local run's demo catalog (local/catalog, books.Service.ImportFile).
// Where it writes:
//
//   - with AWS_ENDPOINT_URL_DYNAMODB set: that endpoint, the table TABLE_NAME
//     (or -table), credentials from the SDK's usual chain;
//   - otherwise, when `make run` is running on LOCAL_DATA_DIR (default .local):
//     the local run's DynamoDB Local and table (read from .local/run.json);
//   - otherwise, only with -aws: the table TABLE_NAME (or -table) in the AWS
//     account and region of the SDK's usual chain. Without -aws it stops
//     rather than write to AWS by accident.
//
// New books are written in batches of 25 items, many batches at once
// (books.Service.Import), -batch records per call (default 1,000), so a
// large catalog loads at thousands of books a second where the table
// allows it. After each batch it notes how far it got in a checkpoint
// file (-checkpoint, default FILE.checkpoint): run the same command
// again after a crash or Ctrl-C and it resumes after the last batch done.
// Nothing is written twice: a batch cut short is imported again whole,
// its books found by ISBN or written again under the same ids
// (books.BookIDOf). The checkpoint is deleted when the import finishes;
// delete it by hand to start over.
//
// It prints progress every few seconds (to stderr), then the created,
// updated, unchanged and failed counts and one line per failed record
// (file:line, ISBN, reason). The exit status is 1 when
// the file cannot be read or storage fails (records written until then stay
// written: re-running is safe), 2 for wrong usage, 1 with -strict when any
// record failed, 0 otherwise.
package main

import (
	"context"
	"flag"
	"fmt"
	"io"
	"log/slog"
	"os"
	"os/signal"
	"path/filepath"
	"strings"
	"syscall"
	"time"

	"github.com/bookplatform/backend/local/catalog"
	"github.com/bookplatform/backend/local/tabletarget"
	"github.com/bookplatform/backend/shared/app"
	"github.com/bookplatform/backend/shared/config"
)

// Settings the import does not use but config.Load requires (it signs
// tokens); a placeholder keeps a catalog load from needing a
// deployment's secrets.
var unusedSettings = map[string]string{
	config.EnvJWTSecret: "importbooks-signs-no-tokens-this-key-is-unused",
}

func main() {
	code, err := run(os.Args[1:], os.Stdout, os.Stderr)
	if err != nil {
		fmt.Fprintln(os.Stderr, "importbooks:", err)
	}
	os.Exit(code)
}

func run(args []string, stdout, stderr io.Writer) (int, error) {
	fs := flag.NewFlagSet("importbooks", flag.ContinueOnError)
	fs.SetOutput(stderr)
	file := fs.String("file", "", "catalog file to import: .jsonl (JSON lines) or .csv")
	table := fs.String("table", "", "DynamoDB table (default: TABLE_NAME, or the local run's table)")
	useAWS := fs.Bool("aws", false, "with no endpoint set and no local run, write to the table in AWS")
	strict := fs.Bool("strict", false, "exit with status 1 when any record failed")
	maxErrors := fs.Int("max-errors", 100, "print at most this many failed records (0: all)")
	batch := fs.Int("batch", 1000, "records per import call (progress and checkpoint after each)")
	checkpoint := fs.String("checkpoint", "", `checkpoint file to resume from and update (default FILE.checkpoint; "none": no checkpoint)`)
	if err := fs.Parse(args); err != nil {
		return 2, nil
	}
	if *file == "" || fs.NArg() > 0 {
		fmt.Fprintln(stderr, "usage: go run ./local/importbooks -file FILE.jsonl|FILE.csv [-table NAME] [-aws] [-strict] [-batch N] [-checkpoint FILE|none]")
		return 2, nil
	}

	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()

	dest, err := tabletarget.Choose(*table, *useAWS)
	if err != nil {
		return 1, err
	}
	cfg, err := config.LoadFrom(func(name string) string {
		if name == config.EnvTableName {
			return dest.Table
		}
		if v := strings.TrimSpace(os.Getenv(name)); v != "" {
			return v
		}
		return unusedSettings[name]
	})
	if err != nil {
		return 1, fmt.Errorf("configuration: %w", err)
	}
	clients, err := app.LoadClients(ctx)
	if err != nil {
		return 1, err
	}
	// Warnings and errors of the service to stderr; stdout is the report.
	logger := slog.New(slog.NewJSONHandler(stderr, &slog.HandlerOptions{Level: slog.LevelWarn}))
	a := app.New(cfg, clients, logger, nil)

	cp := *checkpoint
	switch cp {
	case "":
		cp = *file + ".checkpoint"
	case "none":
		cp = ""
	}
	fmt.Fprintf(stdout, "importing %s into table %s (%s)\n", *file, cfg.TableName, dest.Where)
	if n := catalog.ResumedFrom(cp); n > 0 {
		fmt.Fprintf(stdout, "resuming after %d records (checkpoint %s)\n", n, cp)
	}
	start := time.Now()
	res, err := catalog.ImportFileWith(ctx, a.Books, *file, catalog.Options{
		BatchSize: *batch, Checkpoint: cp, Progress: rateProgress(stderr, 5*time.Second),
	})
	catalog.WriteErrors(stdout, filepath.Base(*file), res, *maxErrors)
	fmt.Fprintln(stdout, catalog.Summary(res, time.Since(start)))
	if err != nil {
		return 1, err
	}
	if *strict && res.Failed > 0 {
		return 1, fmt.Errorf("%d records failed", res.Failed)
	}
	return 0, nil
}

// rateProgress writes "importbooks: done/total books, N books/s" to w at
// most once every interval, the rate of this run's batches so far.
func rateProgress(w io.Writer, every time.Duration) catalog.Progress {
	start, last, first := time.Now(), time.Now(), -1
	return func(done, total int) {
		if first < 0 {
			first = done
			return
		}
		if done >= total || time.Since(last) < every {
			return
		}
		last = time.Now()
		fmt.Fprintf(w, "importbooks: %d/%d books, %.0f books/s\n", done, total, float64(done-first)/time.Since(start).Seconds())
	}
}
