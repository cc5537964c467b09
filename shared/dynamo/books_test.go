package dynamo_test

import (
	"github.com/bookplatform/backend/shared/dynamo"
	"testing"

	"github.com/bookplatform/backend/local/testenv"
	"github.com/bookplatform/backend/shared/books"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// BatchGetItem refuses a key named twice (a ValidationException, a 500 to
// the caller): a page of books that names one book twice is read once and
// answered in the order asked.
func TestBooks_GetBooksWithRepeatedIDs(t *testing.T) {
	env := testenv.New(t)
	ids := env.ImportBooks(t,
		books.Record{Title: "First", Authors: []string{"A. Author"}, ISBN: "9780306406157"},
		books.Record{Title: "Second", Authors: []string{"B. Author"}, ISBN: "9780140449136"},
	)
	got, err := dynamo.NewBooks(env.App.Table).GetBooks(t.Context(), []string{ids[1], ids[0], ids[1]})
	require.NoError(t, err)
	var titles []string
	for _, b := range got {
		titles = append(titles, b.Title)
	}
	assert.Equal(t, []string{"Second", "First", "Second"}, titles)
}
