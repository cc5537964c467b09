package main

import (
	"bytes"
	"context"
	"encoding/json"
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
