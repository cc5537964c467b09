package notesapi_test

import (
	"fmt"
	"net/http"
	"strings"
	"testing"

	"github.com/bookplatform/backend/local/testenv"
	"github.com/bookplatform/backend/shared/books"
	"github.com/bookplatform/backend/shared/config"
	"github.com/bookplatform/backend/shared/dynamo"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func TestMain(m *testing.M) { testenv.Main(m) }

// world is a paced environment with a small catalog.
type world struct {
	*testenv.Paced
	books []string
}

var catalog = []books.Record{
	{ISBN: "0-306-40615-2", Title: "Harry Potter", Authors: []string{"J. K. Rowling"}, Language: "en"},
	{ISBN: "9780198534532", Title: "The Hobbit", Authors: []string{"J. R. R. Tolkien"}, Language: "en"},
}

func newWorld(t *testing.T, opts ...testenv.Option) *world {
	t.Helper()
	p := testenv.NewPaced(t, opts...)
	return &world{Paced: p, books: p.ImportBooks(t, catalog...)}
}

func (w *world) write(t *testing.T, a testenv.Account, bookID, content string) map[string]any {
	t.Helper()
	res := w.Req("POST", "/v1/notes", map[string]any{"bookId": bookID, "content": content}, a.Token)
	require.Equal(t, http.StatusCreated, res.Status, res.String())
	return res.JSON
}

func contents(t *testing.T, res *testenv.Response) []string {
	t.Helper()
	require.Equal(t, http.StatusOK, res.Status, res.String())
	var out []string
	for _, it := range res.JSON["items"].([]any) {
		out = append(out, it.(map[string]any)["content"].(string))
	}
	return out
}

const unknownID = "00000000-0000-4000-8000-000000000000"

func TestNotes_Create(t *testing.T) {
	w := newWorld(t)
	ann := w.Signup(t, "ann")

	res := w.Req("POST", "/v1/notes", map[string]any{"bookId": w.books[0], "content": "  The sorting hat\nsings.  ", "pageNumber": 118}, ann.Token)
	require.Equal(t, http.StatusCreated, res.Status, res.String())
	n := res.JSON
	assert.Len(t, n["id"], 36)
	assert.Equal(t, ann.ID, n["userId"])
	assert.Equal(t, w.books[0], n["bookId"])
	assert.Equal(t, "The sorting hat\nsings.", n["content"])
	assert.EqualValues(t, 118, n["pageNumber"])
	assert.Equal(t, n["createdAt"], n["updatedAt"])
	assert.Equal(t, map[string]any{
		"id": w.books[0], "isbn": "9780306406157", "title": "Harry Potter", "authors": []any{"J. K. Rowling"},
		"coverUrl": "https://covers.openlibrary.org/b/isbn/9780306406157-L.jpg",
	}, n["book"])
	stored := w.Item(t, dynamo.NoteKey(ann.ID, n["id"].(string)))
	require.NotNil(t, stored)
	assert.Equal(t, "The sorting hat\nsings.", stored["content"])

	t.Run("a page is optional", func(t *testing.T) {
		res := w.Req("POST", "/v1/notes", map[string]any{"bookId": w.books[1], "content": "Riddles.", "pageNumber": nil}, ann.Token)
		require.Equal(t, http.StatusCreated, res.Status, res.String())
		assert.Nil(t, res.JSON["pageNumber"])
	})
	for _, tc := range []struct {
		name   string
		body   any
		status int
		field  string
	}{
		{"no content", map[string]any{"bookId": w.books[0]}, 400, "content"},
		{"blank content", map[string]any{"bookId": w.books[0], "content": "\u200b\u200b"}, 400, "content"},
		{"content over 10000 characters", map[string]any{"bookId": w.books[0], "content": strings.Repeat("x", 10001)}, 400, "content"},
		{"a control character", map[string]any{"bookId": w.books[0], "content": "bell\u0007"}, 400, "content"},
		{"no bookId", map[string]any{"content": "x"}, 400, "bookId"},
		{"a bookId that is not a UUID", map[string]any{"bookId": "abc", "content": "x"}, 400, "bookId"},
		{"page 0", map[string]any{"bookId": w.books[0], "content": "x", "pageNumber": 0}, 400, "pageNumber"},
		{"page 2.5", map[string]any{"bookId": w.books[0], "content": "x", "pageNumber": 2.5}, 400, "pageNumber"},
		{"page \"3\"", map[string]any{"bookId": w.books[0], "content": "x", "pageNumber": "3"}, 400, "pageNumber"},
		{"an unknown book", map[string]any{"bookId": unknownID, "content": "x"}, 404, ""},
	} {
		t.Run(tc.name+" is refused", func(t *testing.T) {
			res := w.Req("POST", "/v1/notes", tc.body, ann.Token)
			require.Equal(t, tc.status, res.Status, res.String())
			if tc.field != "" {
				assert.Contains(t, testenv.FieldErrors(t, res), tc.field)
			} else {
				testenv.AssertError(t, res, http.StatusNotFound, "NotFound", "Book not found")
			}
		})
	}
	assert.Len(t, contents(t, w.Req("GET", "/v1/notes", nil, ann.Token)), 2, "refusals wrote nothing")
}

// Only a note's author ever sees it: to anyone else every route answers
// as for a note that does not exist, and nothing changes.
func TestNotes_OnlyTheAuthorSeesThem(t *testing.T) {
	w := newWorld(t)
	ann := w.Signup(t, "ann")
	bob := w.Signup(t, "bob")
	note := w.write(t, ann, w.books[0], "Mine alone.")
	path := "/v1/notes/" + note["id"].(string)

	for _, tc := range []struct {
		method string
		body   any
	}{
		{"GET", nil},
		{"PUT", map[string]any{"content": "Bob was here."}},
		{"DELETE", nil},
	} {
		t.Run(tc.method+" by another account is 404", func(t *testing.T) {
			testenv.AssertError(t, w.Req(tc.method, path, tc.body, bob.Token), http.StatusNotFound, "NotFound", "Note not found")
		})
	}
	assert.Empty(t, contents(t, w.Req("GET", "/v1/notes", nil, bob.Token)))
	assert.Empty(t, contents(t, w.Req("GET", "/v1/notes?bookId="+w.books[0], nil, bob.Token)))
	res := w.Req("GET", path, nil, ann.Token)
	require.Equal(t, http.StatusOK, res.Status, res.String())
	assert.Equal(t, note, res.JSON, "unchanged")
	testenv.AssertError(t, w.Req("GET", path, nil, ""), http.StatusUnauthorized, "Unauthorized", "")
	testenv.AssertError(t, w.Req("GET", "/v1/notes/"+unknownID, nil, ann.Token), http.StatusNotFound, "NotFound", "Note not found")
	testenv.AssertError(t, w.Req("GET", "/v1/notes/nope", nil, ann.Token), http.StatusNotFound, "NotFound", "Note not found")
}

func TestNotes_Update(t *testing.T) {
	w := newWorld(t)
	ann := w.Signup(t, "ann")
	res := w.Req("POST", "/v1/notes", map[string]any{"bookId": w.books[0], "content": "Draft.", "pageNumber": 7}, ann.Token)
	require.Equal(t, http.StatusCreated, res.Status, res.String())
	note := res.JSON
	path := "/v1/notes/" + note["id"].(string)

	t.Run("content alone keeps the page", func(t *testing.T) {
		res := w.Req("PUT", path, map[string]any{"content": "Final."}, ann.Token)
		require.Equal(t, http.StatusOK, res.Status, res.String())
		assert.Equal(t, "Final.", res.JSON["content"])
		assert.EqualValues(t, 7, res.JSON["pageNumber"])
		assert.Equal(t, note["createdAt"], res.JSON["createdAt"])
		assert.NotEqual(t, note["updatedAt"], res.JSON["updatedAt"])
		assert.Equal(t, note["book"], res.JSON["book"])
	})
	t.Run("a page alone keeps the content; null clears it", func(t *testing.T) {
		res := w.Req("PUT", path, map[string]any{"pageNumber": 9}, ann.Token)
		require.Equal(t, http.StatusOK, res.Status, res.String())
		assert.Equal(t, "Final.", res.JSON["content"])
		assert.EqualValues(t, 9, res.JSON["pageNumber"])
		res = w.Req("PUT", path, map[string]any{"pageNumber": nil}, ann.Token)
		require.Equal(t, http.StatusOK, res.Status, res.String())
		assert.Nil(t, res.JSON["pageNumber"])
		_, stored := w.Item(t, dynamo.NoteKey(ann.ID, note["id"].(string)))["pageNumber"]
		assert.False(t, stored)
	})
	t.Run("an empty change answers the note", func(t *testing.T) {
		before := w.Req("GET", path, nil, ann.Token)
		res := w.Req("PUT", path, map[string]any{}, ann.Token)
		require.Equal(t, http.StatusOK, res.Status, res.String())
		assert.Equal(t, before.JSON, res.JSON)
	})
	t.Run("bad changes are 400 and change nothing", func(t *testing.T) {
		for _, body := range []map[string]any{{"content": ""}, {"content": " "}, {"pageNumber": 0}, {"pageNumber": "x"}, {"content": strings.Repeat("y", 10001)}} {
			res := w.Req("PUT", path, body, ann.Token)
			testenv.AssertError(t, res, http.StatusBadRequest, "ValidationError", "")
		}
		assert.Equal(t, "Final.", w.Item(t, dynamo.NoteKey(ann.ID, note["id"].(string)))["content"])
		testenv.AssertError(t, w.Req("PUT", "/v1/notes/"+unknownID, map[string]any{"content": "x"}, ann.Token), http.StatusNotFound, "NotFound", "")
	})
}

func TestNotes_Delete(t *testing.T) {
	w := newWorld(t)
	ann := w.Signup(t, "ann")
	id := w.write(t, ann, w.books[0], "Gone soon.")["id"].(string)
	res := w.Req("DELETE", "/v1/notes/"+id, nil, ann.Token)
	require.Equal(t, http.StatusOK, res.Status, res.String())
	assert.Equal(t, map[string]any{"success": true, "message": "Note deleted"}, res.JSON)
	assert.Nil(t, w.Item(t, dynamo.NoteKey(ann.ID, id)))
	testenv.AssertError(t, w.Req("DELETE", "/v1/notes/"+id, nil, ann.Token), http.StatusNotFound, "NotFound", "")
	testenv.AssertError(t, w.Req("GET", "/v1/notes/"+id, nil, ann.Token), http.StatusNotFound, "NotFound", "")
}

func TestNotes_List(t *testing.T) {
	w := newWorld(t)
	ann := w.Signup(t, "ann")
	for i := range 5 {
		w.write(t, ann, w.books[i%2], fmt.Sprintf("note %d", i))
	}

	t.Run("newest first, with their books", func(t *testing.T) {
		res := w.Req("GET", "/v1/notes", nil, ann.Token)
		assert.Equal(t, []string{"note 4", "note 3", "note 2", "note 1", "note 0"}, contents(t, res))
		first := res.JSON["items"].([]any)[0].(map[string]any)
		assert.Equal(t, "Harry Potter", first["book"].(map[string]any)["title"])
		assert.Nil(t, res.JSON["nextCursor"])
		assert.Equal(t, false, res.JSON["hasMore"])
	})
	t.Run("those on one book", func(t *testing.T) {
		assert.Equal(t, []string{"note 3", "note 1"}, contents(t, w.Req("GET", "/v1/notes?bookId="+w.books[1], nil, ann.Token)))
		assert.Empty(t, contents(t, w.Req("GET", "/v1/notes?bookId="+unknownID, nil, ann.Token)), "a book without notes")
		res := w.Req("GET", "/v1/notes?bookId=nope", nil, ann.Token)
		testenv.AssertError(t, res, http.StatusBadRequest, "ValidationError", "bookId must be a UUID")
	})
	t.Run("pages neither skip nor repeat, and a cursor keeps to its list", func(t *testing.T) {
		var got []string
		for _, res := range w.ReadPages(t, "/v1/notes?limit=2", ann.Token) {
			got = append(got, contents(t, res)...)
		}
		assert.Equal(t, []string{"note 4", "note 3", "note 2", "note 1", "note 0"}, got)

		first := w.Req("GET", "/v1/notes?limit=1", nil, ann.Token)
		c := first.JSON["nextCursor"].(string)
		testenv.AssertError(t, w.Req("GET", "/v1/notes?bookId="+w.books[0]+"&cursor="+c, nil, ann.Token), http.StatusBadRequest, "ValidationError", "Invalid cursor")
		bob := w.Signup(t, "bob")
		testenv.AssertError(t, w.Req("GET", "/v1/notes?cursor="+c, nil, bob.Token), http.StatusBadRequest, "ValidationError", "Invalid cursor")
	})
}

// Notes are private, not published: they do not count toward the free
// tier's monthly quota (docs/decisions.md, "Notes"), whatever its state.
func TestNotes_DoNotCountTowardTheMonthlyQuota(t *testing.T) {
	w := newWorld(t, testenv.WithConfig(func(c *config.Config) { c.MonthlyPosts = 1 }))
	ann := w.Signup(t, "ann")
	for i := range 3 {
		res := w.Req("POST", "/v1/notes", map[string]any{"bookId": w.books[0], "content": fmt.Sprintf("n%d", i)}, ann.Token)
		require.Equal(t, http.StatusCreated, res.Status, res.String())
		assert.Equal(t, "1", res.Header.Get("X-Monthly-Remaining"), "the posts quota is untouched")
	}
	assert.EqualValues(t, 0, w.Item(t, dynamo.UserKey(ann.ID))["monthlyPosts"])
	line := w.Req("POST", "/v1/lines", map[string]any{"bookId": w.books[0], "content": "Still one post left."}, ann.Token)
	require.Equal(t, http.StatusCreated, line.Status, line.String())
	res := w.Req("POST", "/v1/notes", map[string]any{"bookId": w.books[0], "content": "after the quota"}, ann.Token)
	require.Equal(t, http.StatusCreated, res.Status, "a free account at its limit still writes notes: %s", res)
}
