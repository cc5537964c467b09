package main

import (
	"context"
	"io"
	"path/filepath"
	"testing"

	"github.com/bookplatform/backend/local/catalog"
	"github.com/bookplatform/backend/local/dynamodblocal"
	"github.com/bookplatform/backend/local/testenv"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// demoBooks is the number of records in local/data/catalog.jsonl.
const demoBooks = 698

// The demo catalog loads whole (a record the import rejects would fail
// here, not at a developer's first `make run`), a second load changes
// nothing, and the CSV sample holds the same books.
func TestLoadDemoCatalog_everyBookOnce(t *testing.T) {
	t.Parallel()
	env := testenv.New(t)
	ctx := context.Background()
	root, err := dynamodblocal.ModuleRoot("")
	require.NoError(t, err)

	require.NoError(t, loadDemoCatalog(ctx, env.App, root, io.Discard))
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
