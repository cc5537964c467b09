package dynamo_test

import (
	"slices"
	"testing"

	"github.com/bookplatform/backend/local/testenv"
	"github.com/bookplatform/backend/shared/books"
	"github.com/bookplatform/backend/shared/dynamo"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// A backfill sees every book once, in pages of at most the size asked,
// and nothing else of the table (ISBN claims, postings, words).
func TestBooks_ScanBooks(t *testing.T) {
	env := testenv.New(t)
	ids := env.ImportBooks(t,
		books.Record{Title: "First", Authors: []string{"A. Author"}, ISBN: "9780306406157"},
		books.Record{Title: "Second", Authors: []string{"B. Author"}, ISBN: "9780140449136"},
		books.Record{Title: "Third", Authors: []string{"C. Author"}, ISBN: "9780131103627"},
	)
	var got []string
	var pages []int
	n, err := dynamo.NewBooks(env.App.Table).ScanBooks(t.Context(), 2, func(bs []*books.Book) error {
		pages = append(pages, len(bs))
		for _, b := range bs {
			got = append(got, b.ID)
			assert.NotEmpty(t, b.Title)
		}
		return nil
	})
	require.NoError(t, err)
	assert.Equal(t, 3, n)
	assert.Equal(t, []int{2, 1}, pages)
	assert.ElementsMatch(t, ids, got)
	assert.False(t, slices.Contains(got, ""))
}
