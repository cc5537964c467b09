package main

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/bookplatform/backend/local/catalog"
	"github.com/bookplatform/backend/local/dynamodblocal"
	"github.com/bookplatform/backend/local/testenv"
	"github.com/bookplatform/backend/shared/books"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// demoBooks is the number of records in local/data/catalog.jsonl.
const demoBooks = 698

// The demo catalog loads whole (a record the import rejects would fail
// here, not at a developer's first `make run`), in batches that report
// progress, a second load changes nothing, and the CSV sample holds the
// same books.
func TestLoadDemoCatalog_everyBookOnce(t *testing.T) {
	t.Parallel()
	env := testenv.New(t)
	ctx := context.Background()
	root, err := dynamodblocal.ModuleRoot("")
	require.NoError(t, err)

	var reports [][2]int
	require.NoError(t, loadDemoCatalog(ctx, env.App, root, io.Discard, func(done, total int) {
		reports = append(reports, [2]int{done, total})
	}))
	want := [][2]int{{0, demoBooks}}
	for done := catalog.BatchSize; done < demoBooks; done += catalog.BatchSize {
		want = append(want, [2]int{done, demoBooks})
	}
	want = append(want, [2]int{demoBooks, demoBooks})
	assert.Equal(t, want, reports, "one report when the file is read, then one per batch")

	res, err := catalog.ImportFile(ctx, env.App.Books, filepath.Join(root, catalog.DemoFile))
	require.NoError(t, err)
	assert.Equal(t, demoBooks, res.Unchanged, "the second load finds every book: %+v", res.Errors)
	assert.Zero(t, res.Created+res.Updated+res.Failed)

	res, err = catalog.ImportFile(ctx, env.App.Books, filepath.Join(root, "local/data/catalog-sample.csv"))
	require.NoError(t, err)
	assert.Equal(t, 22, res.Unchanged, "the CSV sample repeats books of the demo catalog: %+v", res.Errors)

	found, err := env.App.Books.Search(ctx, "garcia marquez", 10, 0)
	require.NoError(t, err)
	assert.Equal(t, 2, found.Total, "accents folded: Cien años de soledad and One Hundred Years of Solitude")
}

// Importing in batches gives what one import of the whole file gives: an
// ISBN on line 1 and again on line 151, a batch apart, is still reported
// as a repeat (the later record wins), and a line that is not JSON still
// counts as failed.
func TestImportFile_repeatedISBNAcrossBatches(t *testing.T) {
	t.Parallel()
	env := testenv.New(t)
	ctx := context.Background()

	var lines []string
	record := func(isbn, title string) {
		b, err := json.Marshal(map[string]any{"isbn": isbn, "title": title, "authors": []string{"Test Author"}})
		require.NoError(t, err)
		lines = append(lines, string(b))
	}
	repeated := isbn13(1)
	record(repeated, "First edition")
	for i := 2; i <= 150; i++ {
		record(isbn13(i), fmt.Sprintf("Book %d", i))
	}
	record(repeated, "Second edition")
	lines = append(lines, "not json")
	path := filepath.Join(t.TempDir(), "books.jsonl")
	require.NoError(t, os.WriteFile(path, []byte(strings.Join(lines, "\n")+"\n"), 0o600))

	var dones []int
	res, err := catalog.ImportFileProgress(ctx, env.App.Books, path, func(done, total int) {
		assert.Equal(t, 151, total)
		dones = append(dones, done)
	})
	require.NoError(t, err)
	assert.Equal(t, []int{0, 100, 151}, dones, "the repeat joins the first batch, which stays about BatchSize")
	assert.Equal(t, 150, res.Created)
	assert.Equal(t, 2, res.Failed, "%+v", res.Errors)
	require.Len(t, res.Errors, 2)
	assert.Equal(t, 1, res.Errors[0].Line)
	assert.Contains(t, res.Errors[0].Message, "appears again on line 151")
	assert.Equal(t, 152, res.Errors[1].Line, "the unreadable line, in line order")

	b, err := env.App.Books.GetByISBN(ctx, repeated)
	require.NoError(t, err)
	assert.Equal(t, "Second edition", b.Title)
}

// crashAfter imports through the service until n batches are done, then
// writes half of the next batch and fails, as a process killed mid-batch.
type crashAfter struct {
	catalog.Importer
	n int
}

func (c *crashAfter) Import(ctx context.Context, recs []books.Record) (books.ImportResult, error) {
	if c.n == 0 {
		_, _ = c.Importer.Import(ctx, recs[:len(recs)/2])
		return books.ImportResult{}, errors.New("killed")
	}
	c.n--
	return c.Importer.Import(ctx, recs)
}

// An import stopped mid-batch resumes from its checkpoint: the batches
// done are skipped, the cut one is imported again whole, and every book
// exists once; the checkpoint is gone at the end.
func TestImportFileWith_resumesFromCheckpoint(t *testing.T) {
	t.Parallel()
	env := testenv.New(t)
	ctx := context.Background()
	var lines []string
	for i := 1; i <= 250; i++ {
		b, err := json.Marshal(map[string]any{"isbn": isbn13(i), "title": fmt.Sprintf("Resumable %d", i), "authors": []string{"Test Author"}})
		require.NoError(t, err)
		lines = append(lines, string(b))
	}
	lines = append(lines, "not json")
	path := filepath.Join(t.TempDir(), "books.jsonl")
	require.NoError(t, os.WriteFile(path, []byte(strings.Join(lines, "\n")+"\n"), 0o600))
	cp := path + ".checkpoint"
	opt := catalog.Options{BatchSize: 100, Checkpoint: cp}

	_, err := catalog.ImportFileWith(ctx, &crashAfter{Importer: env.App.Books, n: 1}, path, opt)
	require.Error(t, err)
	assert.Equal(t, 100, catalog.ResumedFrom(cp), "one batch done")

	var dones []int
	opt.Progress = func(done, total int) { dones = append(dones, done) }
	res, err := catalog.ImportFileWith(ctx, env.App.Books, path, opt)
	require.NoError(t, err)
	assert.Equal(t, []int{100, 200, 250}, dones, "the first batch is not imported again")
	assert.Equal(t, 200, res.Created, "the first batch's 100 (from the checkpoint) and the 100 never written")
	assert.Equal(t, 50, res.Unchanged, "the half batch written before the crash is found")
	assert.Equal(t, 1, res.Failed, "the unreadable line, counted once")
	assert.NoFileExists(t, cp)

	for _, i := range []int{99, 150, 250} {
		found, err := env.App.Books.Search(ctx, fmt.Sprintf("resumable %d", i), 50, 0)
		require.NoError(t, err)
		assert.Equal(t, 1, found.Total, "book %d once", i)
	}
	all, err := env.App.Books.Search(ctx, "resumable", 50, 200)
	require.NoError(t, err)
	assert.Equal(t, 250, all.Total, "no book twice")
	assert.False(t, all.TotalIsLowerBound)

	t.Run("a checkpoint of another file is refused", func(t *testing.T) {
		require.NoError(t, os.WriteFile(cp, []byte(`{"file":{"size":1,"modTime":1,"batchSize":100},"batches":1}`), 0o600))
		_, err := catalog.ImportFileWith(ctx, env.App.Books, path, opt)
		assert.ErrorContains(t, err, "another file")
	})
}

// isbn13 is a valid ISBN-13 numbered n.
func isbn13(n int) string {
	s := fmt.Sprintf("978%09d", n)
	sum := 0
	for i, c := range s {
		d := int(c - '0')
		if i%2 == 1 {
			d *= 3
		}
		sum += d
	}
	return s + fmt.Sprint((10-sum%10)%10)
}

// The console hears of a batch only when enough time has passed, and
// never of the first and last reports (the summary line follows).
func TestConsoleProgress(t *testing.T) {
	t.Parallel()
	report := func(every time.Duration) string {
		var out bytes.Buffer
		p := consoleProgress(&out, every)
		for _, done := range []int{0, 100, 200, 250} {
			p(done, 250)
		}
		return out.String()
	}
	assert.Equal(t, "catalog: 100/250 books\ncatalog: 200/250 books\n", report(0))
	assert.Empty(t, report(time.Hour), "a quick load prints only its summary")
}
