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

// A book created with its index records what the index was written with
// (tokens, rank, layout), whatever the caller set on the book, so that an
// update finds and replaces its postings; a title change leaves no
// posting of the old title behind.
func TestBooks_CreateRecordsTheIndexWritten(t *testing.T) {
	st := dynamo.NewBooks(testenv.New(t).App.Table)
	ctx := t.Context()
	b := &books.Book{ID: books.BookIDOf("9780306406157"), ISBN13: "9780306406157", Title: "Paper Moon", Authors: []string{"Ida Ink"}, Version: 1, TotalReviews: 3}
	ix := books.IndexingOf(b)
	require.NoError(t, st.CreateBook(ctx, b, ix))
	stored, err := st.GetBook(ctx, b.ID)
	require.NoError(t, err)
	assert.Equal(t, ix.Tokens, stored.SearchTokens)
	assert.Equal(t, 2, stored.SearchRank)
	assert.Equal(t, books.IndexVersion, stored.IndexVersion)

	next := *stored
	next.Title, next.Version = "Paper Sun", 2
	nix := books.IndexingOf(&next)
	next.SearchTokens, next.SearchRank, next.IndexVersion = nix.Tokens, nix.Rank, books.IndexVersion
	require.NoError(t, st.UpdateBook(ctx, stored, &next, &nix))
	ps, _, err := st.RankedPostings(ctx, "paper", "", 10)
	require.NoError(t, err)
	require.Len(t, ps, 1, "the posting under the old title is gone")
	assert.Equal(t, "paper sun", ps[0].TitleKey)
	moon, _, err := st.RankedPostings(ctx, "moon", "", 10)
	require.NoError(t, err)
	assert.Empty(t, moon)
}
