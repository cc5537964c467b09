package booksapi_test

import (
	"encoding/json"
	"net/http"
	"testing"
	"time"

	"github.com/bookplatform/backend/shared/books"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// changedIDs reads the outbox's book.changed events: the ids each
// names, and every id named.
func (c *catalog) changedIDs(t *testing.T) (each [][]string, all []string) {
	t.Helper()
	for _, it := range c.Outbox(t) {
		if it.Event.Type != books.ChangedEvent.Type {
			continue
		}
		var d books.ChangedData
		require.NoError(t, json.Unmarshal(it.Event.Data, &d))
		each = append(each, d.BookIDs)
		all = append(all, d.BookIDs...)
	}
	return each, all
}

// The importer (local/importbooks, and the inventory import's books added
// by title) records a book.changed for every book it creates, one per
// 100 books, and for every book whose catalog fields it changes; a record
// that changes nothing, and a review or a line counted on a book (its
// counters, not its catalog), records none (docs/decisions.md, "The
// search index's feed").
func TestBooks_Import_recordsBookChanged(t *testing.T) {
	c := newCatalog(t)
	var recs []books.Record
	var want []string
	for i := range 150 {
		recs = append(recs, books.Record{Line: i + 1, ISBN: isbn13(100 + i), Title: "Volume", Authors: []string{"Serial Writer"}})
		want = append(want, books.BookIDOf(isbn13(100+i)))
	}
	res := c.importRecords(t, recs...)
	require.Equal(t, 150, res.Created, "%+v", res)
	each, all := c.changedIDs(t)
	assert.ElementsMatch(t, want, all, "every created book, once")
	require.Len(t, each, 2, "one event per 100 books")

	changed := recs[7]
	changed.Title = "Volume Eight"
	res = c.importRecords(t, append(recs[:3:3], changed)...)
	require.Equal(t, 1, res.Updated, "%+v", res)
	require.Equal(t, 3, res.Unchanged, "%+v", res)
	each, _ = c.changedIDs(t)
	require.Len(t, each, 3, "the changed book's event, none of the unchanged")
	assert.Contains(t, each, []string{want[7]})

	reader := c.Signup(t, "reader")
	c.clock.Advance(1100 * time.Millisecond)
	r := c.Do("POST", "/v1/reviews", map[string]any{"bookId": want[0], "rating": 4, "content": "Worth the shelf space."}, reader.Token)
	require.Equal(t, http.StatusCreated, r.Status, r.String())
	each, _ = c.changedIDs(t)
	assert.Len(t, each, 3, "a review changes counters, not the catalog")
}
