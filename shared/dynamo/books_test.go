package dynamo_test

import (
	"encoding/json"
	"fmt"
	"strings"
	"testing"

	"github.com/bookplatform/backend/local/testenv"
	"github.com/bookplatform/backend/shared/books"
	"github.com/bookplatform/backend/shared/dynamo"
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

// A bulk create cut short (here: one posting the table refuses, after
// hundreds that it takes) leaves no book item behind, only index items:
// the next import of the ISBN creates the book again, whole, and search
// finds it. Were the book written before its postings, the import would
// find it by ISBN and leave its missing postings missing.
func TestBooks_CreateBooksWritesTheBookLast(t *testing.T) {
	env := testenv.New(t)
	st := dynamo.NewBooks(env.App.Table)
	ctx := t.Context()
	const isbn = "9780306406157"
	b := &books.Book{ID: books.BookIDOf(isbn), ISBN13: isbn, Title: "Paper Moon", Authors: []string{"Ida Ink"}, Version: 1}
	ix := books.IndexingOf(b)
	// Enough postings that the refused one is many BatchWriteItem calls
	// after the first, then one whose partition key is over the limit.
	for i := range 450 {
		ix.Tokens = append(ix.Tokens, fmt.Sprintf("filler%03d", i))
		ix.Classes = append(ix.Classes, ix.Classes[len(ix.Classes)-1])
	}
	ix.Tokens = append(ix.Tokens, strings.Repeat("x", 3000))
	ix.Classes = append(ix.Classes, ix.Classes[len(ix.Classes)-1])
	require.Error(t, st.CreateBooks(ctx, []books.NewBook{{Book: b, Index: ix}}))
	_, err := st.GetBook(ctx, b.ID)
	require.ErrorIs(t, err, books.ErrNotFound, "no book item without its whole index")
	assert.Empty(t, env.Outbox(t), "no event names a book that did not land")

	res, err := env.App.Books.Import(ctx, []books.Record{{Title: "Paper Moon", Authors: []string{"Ida Ink"}, ISBN: isbn}})
	require.NoError(t, err)
	assert.Equal(t, 1, res.Created, "%+v", res)
	found, err := env.App.Books.Search(ctx, "moon", 10, 0)
	require.NoError(t, err)
	require.Len(t, found.Items, 1)
	assert.Equal(t, b.ID, found.Items[0].ID)
	assert.Equal(t, 1, found.Total)
	assert.False(t, found.TotalIsLowerBound)
}

// changedEvents are the book.changed events of the outbox, each's ids.
func changedEvents(t *testing.T, env *testenv.Env) [][]string {
	t.Helper()
	var out [][]string
	for _, it := range env.Outbox(t) {
		require.Equal(t, books.ChangedEvent.Type, it.Event.Type, "only book.changed in the outbox")
		var d books.ChangedData
		require.NoError(t, json.Unmarshal(it.Event.Data, &d))
		out = append(out, d.BookIDs)
	}
	return out
}

// Every write of a book's catalog fields records a book.changed naming
// it: a created book's and an updated book's in their transactions, so a
// refused update records none; a bulk creation's one per 100 books once
// the books landed, so one cut short before its books records none.
func TestBooks_WritesEmitBookChanged(t *testing.T) {
	env := testenv.New(t)
	st := dynamo.NewBooks(env.App.Table)
	ctx := t.Context()

	b := &books.Book{ID: books.BookIDOf("9780306406157"), ISBN13: "9780306406157", Title: "Paper Moon", Authors: []string{"Ida Ink"}, Version: 1}
	require.NoError(t, st.CreateBook(ctx, b, books.IndexingOf(b)))
	assert.Equal(t, [][]string{{b.ID}}, changedEvents(t, env), "the created book's")

	stored, err := st.GetBook(ctx, b.ID)
	require.NoError(t, err)
	next := *stored
	next.Title, next.Version = "Paper Sun", 2
	require.NoError(t, st.UpdateBook(ctx, stored, &next, nil))
	assert.Equal(t, [][]string{{b.ID}, {b.ID}}, changedEvents(t, env), "the updated book's")
	require.ErrorIs(t, st.UpdateBook(ctx, stored, &next, nil), books.ErrChanged)
	assert.Len(t, changedEvents(t, env), 2, "a refused update records nothing")

	env2 := testenv.New(t)
	st2 := dynamo.NewBooks(env2.App.Table)
	var bulk []books.NewBook
	var want []string
	for i := range 250 {
		isbn := books.CompleteISBN13(fmt.Sprintf("978000%06d", i))
		nb := &books.Book{ID: books.BookIDOf(isbn), ISBN13: isbn, Title: fmt.Sprintf("Volume %d", i), Version: 1}
		bulk = append(bulk, books.NewBook{Book: nb, Index: books.IndexingOf(nb)})
		want = append(want, nb.ID)
	}
	require.NoError(t, st2.CreateBooks(ctx, bulk))
	var got []string
	var sizes []int
	for _, ids := range changedEvents(t, env2) {
		got = append(got, ids...)
		sizes = append(sizes, len(ids))
	}
	assert.ElementsMatch(t, want, got, "every created book named once")
	assert.ElementsMatch(t, []int{100, 100, 50}, sizes, "one event per 100 books")
}
