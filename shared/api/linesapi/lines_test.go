package linesapi_test

import (
	"context"
	"encoding/base64"
	"fmt"
	"net/http"
	"net/url"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"
	"github.com/aws/smithy-go/middleware"
	"github.com/bookplatform/backend/local/testenv"
	"github.com/bookplatform/backend/shared/books"
	"github.com/bookplatform/backend/shared/challenges"
	"github.com/bookplatform/backend/shared/clubs"
	"github.com/bookplatform/backend/shared/config"
	"github.com/bookplatform/backend/shared/dynamo"
	"github.com/bookplatform/backend/shared/users"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func TestMain(m *testing.M) { testenv.Main(m) }

// world is a test environment with a fake clock, a small catalog and a
// few accounts. Each post moves the clock on by 7 s and every other
// request by a little over a second, so times in a test are predictable
// and distinct. Rate limits are off unless the world is made with
// testenv.WithRateLimits (TestLines_RateLimits).
type world struct {
	*testenv.Env
	clock *testenv.Clock
	books []string // ids of the catalog, in catalogRecords order
}

var catalogRecords = []books.Record{
	{ISBN: "0-306-40615-2", Title: "Harry Potter", Authors: []string{"J. K. Rowling"}, Language: "en"},
	{ISBN: "9780198534532", Title: "The Hobbit", Authors: []string{"J. R. R. Tolkien"}, Language: "en"},
	{ISBN: "9780261103573", Title: "The Lord of the Rings", Authors: []string{"J. R. R. Tolkien"}, Language: "en"},
}

func newWorld(t *testing.T, opts ...testenv.Option) *world {
	t.Helper()
	p := testenv.NewPaced(t, opts...)
	env := p.Env
	w := &world{Env: env, clock: p.Clock}
	w.books = env.ImportBooks(t, catalogRecords...)
	return w
}

// withPostLimit sets the free tier's monthly post quota.
func withPostLimit(n int) testenv.Option {
	return testenv.WithConfig(func(c *config.Config) { c.MonthlyPosts = n })
}

func (w *world) signup(t *testing.T, username string) testenv.Account {
	t.Helper()
	w.clock.Advance(1100 * time.Millisecond)
	return w.Signup(t, username)
}

// req sends a request a moment after the previous one.
func (w *world) req(method, path string, body any, token string) *testenv.Response {
	w.clock.Advance(1100 * time.Millisecond)
	return w.Do(method, path, body, token)
}

// post sends a posting request (a line or a reply), 7 s after the previous one.
func (w *world) post(path string, body any, token string) *testenv.Response {
	w.clock.Advance(7 * time.Second)
	return w.Do("POST", path, body, token)
}

// postLine posts a line and returns its JSON.
func (w *world) postLine(t *testing.T, u testenv.Account, bookID, content string) map[string]any {
	t.Helper()
	res := w.post("/v1/lines", map[string]any{"bookId": bookID, "content": content}, u.Token)
	require.Equal(t, http.StatusCreated, res.Status, res.String())
	return res.JSON
}

// postReply posts a reply and returns its JSON.
func (w *world) postReply(t *testing.T, u testenv.Account, lineID, content string) map[string]any {
	t.Helper()
	res := w.post("/v1/lines/"+lineID+"/replies", map[string]any{"content": content}, u.Token)
	require.Equal(t, http.StatusCreated, res.Status, res.String())
	return res.JSON
}

// totalLines reads a book's counter through the API.
func (w *world) totalLines(t *testing.T, bookID string) float64 {
	t.Helper()
	res := w.req("GET", "/v1/books/"+bookID, nil, "")
	require.Equal(t, http.StatusOK, res.Status, res.String())
	return res.JSON["totalLines"].(float64)
}

const unknownID = "00000000-0000-4000-8000-000000000000"

func TestLines_Create(t *testing.T) {
	w := newWorld(t)
	ann := w.signup(t, "ann")
	book := w.books[0]

	res := w.post("/v1/lines", map[string]any{
		"bookId": book, "content": "  It is our choices that show what we truly are.  ", "pageNumber": 333,
		"clubId": nil, "challengeId": nil,
	}, ann.Token)
	require.Equal(t, http.StatusCreated, res.Status, res.String())
	l := res.JSON
	assert.Regexp(t, `^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$`, l["id"])
	assert.Equal(t, ann.ID, l["userId"])
	assert.Equal(t, map[string]any{"id": ann.ID, "username": "ann", "displayName": "Reader ann", "avatarUrl": nil}, l["user"])
	assert.Equal(t, book, l["bookId"])
	assert.Equal(t, map[string]any{
		"id": book, "isbn": "9780306406157", "title": "Harry Potter", "authors": []any{"J. K. Rowling"},
		"coverUrl": "https://covers.openlibrary.org/b/isbn/9780306406157-L.jpg",
	}, l["book"])
	assert.Equal(t, "It is our choices that show what we truly are.", l["content"], "trimmed")
	assert.Equal(t, 333.0, l["pageNumber"])
	assert.Equal(t, 0.0, l["likeCount"])
	assert.Equal(t, 0.0, l["replyCount"])
	assert.Equal(t, false, l["isLiked"])
	assert.Nil(t, l["clubId"])
	assert.Contains(t, l, "clubId")
	assert.Nil(t, l["challengeId"])
	assert.Contains(t, l, "challengeId")
	assert.Equal(t, l["createdAt"], l["updatedAt"])
	assert.Equal(t, "2026-03-02T09:00:08.100Z", l["createdAt"])

	t.Run("free tier sees its monthly quota count the post", func(t *testing.T) {
		assert.Equal(t, "50", res.Header.Get("X-Monthly-Limit"))
		assert.Equal(t, "49", res.Header.Get("X-Monthly-Remaining"))
		assert.Equal(t, "2026-04-01T00:00:00Z", res.Header.Get("X-Monthly-Reset"))
	})
	t.Run("stored with its list keys, the book counts it", func(t *testing.T) {
		item := w.Item(t, dynamo.LineKey(l["id"].(string)))
		require.NotNil(t, item)
		assert.NotEmpty(t, item["GSI1PK"], "listed under its book")
		assert.NotEmpty(t, item["GSI2PK"], "listed under its author")
		assert.Equal(t, item["GSI1SK"], item["GSI2SK"], "both lists order lines by creation time and id")
		assert.Equal(t, 1.0, w.totalLines(t, book))
		assert.Equal(t, 1.0, w.Item(t, dynamo.UserKey(ann.ID))["monthlyPosts"])
	})
	t.Run("optional fields may be left out", func(t *testing.T) {
		l := w.postLine(t, ann, w.books[1], "Not all those who wander are lost.")
		assert.Nil(t, l["pageNumber"])
		assert.Nil(t, l["clubId"])
		assert.Nil(t, l["challengeId"])
		item := w.Item(t, dynamo.LineKey(l["id"].(string)))
		assert.NotContains(t, item, "pageNumber")
		assert.NotContains(t, item, "clubId")
	})
	t.Run("500 characters are fine, counted as characters", func(t *testing.T) {
		l := w.postLine(t, ann, book, strings.Repeat("é", 499)+"📚")
		assert.Len(t, []rune(l["content"].(string)), 500)
	})

	invalid := []struct {
		name  string
		body  map[string]any
		field string
	}{
		{"missing content", map[string]any{"bookId": book}, "content"},
		{"blank content", map[string]any{"bookId": book, "content": " \n\t "}, "content"},
		{"only zero-width spaces", map[string]any{"bookId": book, "content": "\u200b\u200b"}, "content"},
		{"only invisible format characters", map[string]any{"bookId": book, "content": "\ufeff\u2060\u202e\u2066 \u3164"}, "content"},
		{"501 characters", map[string]any{"bookId": book, "content": strings.Repeat("a", 501)}, "content"},
		{"control character", map[string]any{"bookId": book, "content": "bell\u0007"}, "content"},
		{"missing bookId", map[string]any{"content": "x"}, "bookId"},
		{"bookId not a UUID", map[string]any{"bookId": "9780306406157", "content": "x"}, "bookId"},
		{"pageNumber 0", map[string]any{"bookId": book, "content": "x", "pageNumber": 0}, "pageNumber"},
		{"pageNumber negative", map[string]any{"bookId": book, "content": "x", "pageNumber": -4}, "pageNumber"},
		{"pageNumber fraction", map[string]any{"bookId": book, "content": "x", "pageNumber": 2.5}, "pageNumber"},
		{"pageNumber string", map[string]any{"bookId": book, "content": "x", "pageNumber": "12"}, "pageNumber"},
		{"pageNumber too large", map[string]any{"bookId": book, "content": "x", "pageNumber": 100001}, "pageNumber"},
		{"clubId not a UUID", map[string]any{"bookId": book, "content": "x", "clubId": "club-1"}, "clubId"},
		{"challengeId not a UUID", map[string]any{"bookId": book, "content": "x", "challengeId": "c"}, "challengeId"},
		{"a club and a challenge", map[string]any{"bookId": book, "content": "x", "clubId": unknownID, "challengeId": unknownID}, "challengeId"},
		{"content not a string", map[string]any{"bookId": book, "content": 12}, "content"},
	}
	for _, iv := range invalid {
		t.Run(iv.name+" is 400", func(t *testing.T) {
			res := w.post("/v1/lines", iv.body, ann.Token)
			testenv.AssertError(t, res, http.StatusBadRequest, "ValidationError", "")
			assert.Contains(t, testenv.FieldErrors(t, res), iv.field)
		})
	}
	t.Run("unknown book is 404 and charges nothing", func(t *testing.T) {
		before := w.Item(t, dynamo.UserKey(ann.ID))["monthlyPosts"]
		res := w.post("/v1/lines", map[string]any{"bookId": unknownID, "content": "x"}, ann.Token)
		testenv.AssertError(t, res, http.StatusNotFound, "NotFound", "Book not found")
		assert.Equal(t, before, w.Item(t, dynamo.UserKey(ann.ID))["monthlyPosts"])
	})
	t.Run("without a token is 401", func(t *testing.T) {
		res := w.post("/v1/lines", map[string]any{"bookId": book, "content": "x"}, "")
		testenv.AssertError(t, res, http.StatusUnauthorized, "Unauthorized", "Missing or invalid authorization header")
	})
}

func TestLines_Get(t *testing.T) {
	w := newWorld(t)
	ann, bob := w.signup(t, "ann"), w.signup(t, "bob")
	l := w.postLine(t, ann, w.books[1], "In a hole in the ground there lived a hobbit.")
	id := l["id"].(string)

	res := w.req("GET", "/v1/lines/"+id, nil, bob.Token)
	require.Equal(t, http.StatusOK, res.Status, res.String())
	for _, f := range []string{"id", "userId", "user", "bookId", "book", "content", "pageNumber", "likeCount", "replyCount", "isLiked", "clubId", "challengeId", "createdAt", "updatedAt"} {
		assert.Contains(t, res.JSON, f)
	}
	assert.Equal(t, l, res.JSON, "the line reads back as it was created")

	t.Run("isLiked is the caller's own", func(t *testing.T) {
		require.Equal(t, http.StatusOK, w.req("POST", "/v1/lines/"+id+"/like", nil, bob.Token).Status)
		res := w.req("GET", "/v1/lines/"+id, nil, bob.Token)
		assert.Equal(t, true, res.JSON["isLiked"])
		assert.Equal(t, 1.0, res.JSON["likeCount"])
		res = w.req("GET", "/v1/lines/"+id, nil, ann.Token)
		assert.Equal(t, false, res.JSON["isLiked"])
		assert.Equal(t, 1.0, res.JSON["likeCount"])
	})
	t.Run("upper-case id is the same line", func(t *testing.T) {
		res := w.req("GET", "/v1/lines/"+strings.ToUpper(id), nil, ann.Token)
		require.Equal(t, http.StatusOK, res.Status)
		assert.Equal(t, id, res.JSON["id"])
	})
	for name, path := range map[string]string{"unknown id": "/v1/lines/" + unknownID, "non-uuid id": "/v1/lines/not-a-line"} {
		t.Run(name+" is 404", func(t *testing.T) {
			testenv.AssertError(t, w.req("GET", path, nil, ann.Token), http.StatusNotFound, "NotFound", "Line not found")
		})
	}
	t.Run("without a token is 401", func(t *testing.T) {
		testenv.AssertError(t, w.req("GET", "/v1/lines/"+id, nil, ""), http.StatusUnauthorized, "Unauthorized", "")
	})
}

func TestLines_Update(t *testing.T) {
	w := newWorld(t)
	ann, bob := w.signup(t, "ann"), w.signup(t, "bob")
	res := w.post("/v1/lines", map[string]any{"bookId": w.books[0], "content": "first", "pageNumber": 10}, ann.Token)
	require.Equal(t, http.StatusCreated, res.Status, res.String())
	id := res.JSON["id"].(string)
	created := res.JSON["createdAt"]

	t.Run("author changes the content; a missing pageNumber keeps the page", func(t *testing.T) {
		res := w.req("PUT", "/v1/lines/"+id, map[string]any{"content": "  second  "}, ann.Token)
		require.Equal(t, http.StatusOK, res.Status, res.String())
		assert.Equal(t, map[string]any{
			"id": id, "userId": ann.ID, "bookId": w.books[0], "content": "second", "pageNumber": 10.0,
			"likeCount": 0.0, "replyCount": 0.0, "createdAt": created, "updatedAt": res.JSON["updatedAt"],
		}, res.JSON)
		assert.NotEqual(t, created, res.JSON["updatedAt"])
	})
	t.Run("a new page number, then null clears it", func(t *testing.T) {
		res := w.req("PUT", "/v1/lines/"+id, map[string]any{"content": "third", "pageNumber": 12}, ann.Token)
		require.Equal(t, http.StatusOK, res.Status, res.String())
		assert.Equal(t, 12.0, res.JSON["pageNumber"])
		res = w.req("PUT", "/v1/lines/"+id, map[string]any{"content": "third", "pageNumber": nil}, ann.Token)
		require.Equal(t, http.StatusOK, res.Status, res.String())
		assert.Nil(t, res.JSON["pageNumber"])
		got := w.req("GET", "/v1/lines/"+id, nil, bob.Token)
		assert.Equal(t, "third", got.JSON["content"])
		assert.Nil(t, got.JSON["pageNumber"])
	})
	t.Run("counters survive an edit", func(t *testing.T) {
		require.Equal(t, http.StatusOK, w.req("POST", "/v1/lines/"+id+"/like", nil, bob.Token).Status)
		w.postReply(t, bob, id, "nice")
		res := w.req("PUT", "/v1/lines/"+id, map[string]any{"content": "fourth"}, ann.Token)
		require.Equal(t, http.StatusOK, res.Status, res.String())
		assert.Equal(t, 1.0, res.JSON["likeCount"])
		assert.Equal(t, 1.0, res.JSON["replyCount"])
	})
	t.Run("another user is 403 and changes nothing", func(t *testing.T) {
		res := w.req("PUT", "/v1/lines/"+id, map[string]any{"content": "hijacked"}, bob.Token)
		testenv.AssertError(t, res, http.StatusForbidden, "Forbidden", "")
		assert.Equal(t, "fourth", w.Item(t, dynamo.LineKey(id))["content"])
	})
	for name, body := range map[string]map[string]any{
		"missing content":   {"pageNumber": 3},
		"blank content":     {"content": "   "},
		"invisible content": {"content": "\u200b"},
		"501 characters":    {"content": strings.Repeat("b", 501)},
		"pageNumber 0":      {"content": "x", "pageNumber": 0},
		"pageNumber float":  {"content": "x", "pageNumber": 1.5},
	} {
		t.Run(name+" is 400", func(t *testing.T) {
			testenv.AssertError(t, w.req("PUT", "/v1/lines/"+id, body, ann.Token), http.StatusBadRequest, "ValidationError", "")
		})
	}
	for name, path := range map[string]string{"unknown id": "/v1/lines/" + unknownID, "non-uuid id": "/v1/lines/42"} {
		t.Run(name+" is 404", func(t *testing.T) {
			testenv.AssertError(t, w.req("PUT", path, map[string]any{"content": "x"}, ann.Token), http.StatusNotFound, "NotFound", "Line not found")
		})
	}
	t.Run("without a token is 401", func(t *testing.T) {
		testenv.AssertError(t, w.req("PUT", "/v1/lines/"+id, map[string]any{"content": "x"}, ""), http.StatusUnauthorized, "Unauthorized", "")
	})
}

func TestLines_Delete(t *testing.T) {
	w := newWorld(t)
	ann, bob, cy := w.signup(t, "ann"), w.signup(t, "bob"), w.signup(t, "cyd")
	book := w.books[2]
	keep := w.postLine(t, bob, book, "One ring to rule them all.")["id"].(string)
	id := w.postLine(t, ann, book, "Even the smallest person can change the course of the future.")["id"].(string)
	var replies []string
	for _, u := range []testenv.Account{bob, cy, bob} {
		replies = append(replies, w.postReply(t, u, id, "reply by "+u.Username)["id"].(string))
	}
	for _, u := range []testenv.Account{ann, bob, cy} {
		require.Equal(t, http.StatusOK, w.req("POST", "/v1/lines/"+id+"/like", nil, u.Token).Status)
	}
	require.Equal(t, 2.0, w.totalLines(t, book))

	t.Run("another user is 403 and nothing is removed", func(t *testing.T) {
		testenv.AssertError(t, w.req("DELETE", "/v1/lines/"+id, nil, bob.Token), http.StatusForbidden, "Forbidden", "")
		assert.NotNil(t, w.Item(t, dynamo.LineKey(id)))
		assert.Equal(t, 2.0, w.totalLines(t, book))
	})
	t.Run("the author deletes the line, its replies and its likes", func(t *testing.T) {
		res := w.req("DELETE", "/v1/lines/"+id, nil, ann.Token)
		require.Equal(t, http.StatusOK, res.Status, res.String())
		assert.Equal(t, map[string]any{"success": true, "message": "Line deleted"}, res.JSON)

		assert.Nil(t, w.Item(t, dynamo.LineKey(id)))
		for _, r := range replies {
			assert.Nil(t, w.Item(t, dynamo.ReplyKey(id, r)), "reply %s", r)
		}
		for _, u := range []testenv.Account{ann, bob, cy} {
			assert.Nil(t, w.Item(t, dynamo.LikeKey(dynamo.LineKey(id), u.ID)), "like of %s", u.Username)
		}
		assert.Equal(t, 1.0, w.totalLines(t, book), "the book counts only the other line")
		testenv.AssertError(t, w.req("GET", "/v1/lines/"+id, nil, ann.Token), http.StatusNotFound, "NotFound", "")
		testenv.AssertError(t, w.req("GET", "/v1/lines/"+id+"/replies", nil, ann.Token), http.StatusNotFound, "NotFound", "")
		assert.NotNil(t, w.Item(t, dynamo.LineKey(keep)))
	})
	t.Run("it is gone from both lists", func(t *testing.T) {
		for _, path := range []string{"/v1/books/" + book + "/lines", "/v1/users/ann/lines"} {
			res := w.req("GET", path, nil, "")
			require.Equal(t, http.StatusOK, res.Status, res.String())
			for _, it := range res.JSON["items"].([]any) {
				assert.NotEqual(t, id, it.(map[string]any)["id"], path)
			}
		}
	})
	t.Run("deleting again is 404", func(t *testing.T) {
		testenv.AssertError(t, w.req("DELETE", "/v1/lines/"+id, nil, ann.Token), http.StatusNotFound, "NotFound", "Line not found")
	})
	t.Run("a delete that stopped after the line went is finished by the retry", func(t *testing.T) {
		// The state a crash between the two steps leaves: the line and its
		// book count gone, a reply and a like still there.
		l := w.postLine(t, ann, book, "Not all those who wander are lost.")["id"].(string)
		r := w.postReply(t, bob, l, "leftover")["id"].(string)
		require.Equal(t, http.StatusOK, w.req("POST", "/v1/lines/"+l+"/like", nil, bob.Token).Status)
		w.DeleteItem(t, dynamo.LineKey(l))

		testenv.AssertError(t, w.req("POST", "/v1/lines/"+l+"/like", nil, cy.Token), http.StatusNotFound, "NotFound", "Line not found")
		testenv.AssertError(t, w.req("POST", "/v1/lines/"+l+"/replies", map[string]any{"content": "late"}, cy.Token), http.StatusNotFound, "NotFound", "Line not found")
		testenv.AssertError(t, w.req("DELETE", "/v1/lines/"+l, nil, ann.Token), http.StatusNotFound, "NotFound", "Line not found")
		assert.Nil(t, w.Item(t, dynamo.ReplyKey(l, r)))
		assert.Nil(t, w.Item(t, dynamo.LikeKey(dynamo.LineKey(l), bob.ID)))
	})
	for name, path := range map[string]string{"unknown id": "/v1/lines/" + unknownID, "non-uuid id": "/v1/lines/x"} {
		t.Run(name+" is 404", func(t *testing.T) {
			testenv.AssertError(t, w.req("DELETE", path, nil, ann.Token), http.StatusNotFound, "NotFound", "Line not found")
		})
	}
	t.Run("without a token is 401", func(t *testing.T) {
		testenv.AssertError(t, w.req("DELETE", "/v1/lines/"+keep, nil, ""), http.StatusUnauthorized, "Unauthorized", "")
	})
}

func TestLines_Like(t *testing.T) {
	w := newWorld(t)
	ann, bob := w.signup(t, "ann"), w.signup(t, "bob")
	id := w.postLine(t, ann, w.books[0], "liked line")["id"].(string)
	path := "/v1/lines/" + id + "/like"

	res := w.req("POST", path, nil, bob.Token)
	require.Equal(t, http.StatusOK, res.Status, res.String())
	assert.Equal(t, map[string]any{"success": true, "likeCount": 1.0, "isLiked": true}, res.JSON)
	assert.Equal(t, "100", res.Header.Get("X-RateLimit-Limit"), "counted as the like action")

	t.Run("liking twice is 400 Already liked and counts once", func(t *testing.T) {
		testenv.AssertError(t, w.req("POST", path, nil, bob.Token), http.StatusBadRequest, "ValidationError", "Already liked")
		assert.Equal(t, 1.0, w.Item(t, dynamo.LineKey(id))["likeCount"])
	})
	t.Run("the author may like their own line", func(t *testing.T) {
		res := w.req("POST", path, nil, ann.Token)
		require.Equal(t, http.StatusOK, res.Status)
		assert.Equal(t, 2.0, res.JSON["likeCount"])
	})
	t.Run("unlike", func(t *testing.T) {
		res := w.req("DELETE", path, nil, bob.Token)
		require.Equal(t, http.StatusOK, res.Status, res.String())
		assert.Equal(t, map[string]any{"success": true, "likeCount": 1.0, "isLiked": false}, res.JSON)
		assert.Nil(t, w.Item(t, dynamo.LikeKey(dynamo.LineKey(id), bob.ID)))
	})
	t.Run("unliking what is not liked is 400 Not liked", func(t *testing.T) {
		testenv.AssertError(t, w.req("DELETE", path, nil, bob.Token), http.StatusBadRequest, "ValidationError", "Not liked")
		assert.Equal(t, 1.0, w.Item(t, dynamo.LineKey(id))["likeCount"])
	})
	for _, method := range []string{"POST", "DELETE"} {
		t.Run(method+" on an unknown line is 404", func(t *testing.T) {
			testenv.AssertError(t, w.req(method, "/v1/lines/"+unknownID+"/like", nil, bob.Token), http.StatusNotFound, "NotFound", "Line not found")
			testenv.AssertError(t, w.req(method, "/v1/lines/nope/like", nil, bob.Token), http.StatusNotFound, "NotFound", "Line not found")
		})
		t.Run(method+" without a token is 401", func(t *testing.T) {
			testenv.AssertError(t, w.req(method, path, nil, ""), http.StatusUnauthorized, "Unauthorized", "")
		})
	}
}

// The per-action limits of lines (docs/decisions.md, "Lines"): posts and
// replies count against create_line, likes and unlikes against like, and
// a refused request changes nothing.
func TestLines_RateLimits(t *testing.T) {
	w := newWorld(t, testenv.WithRateLimits())
	ann, bob, fan := w.signup(t, "ann"), w.signup(t, "bob"), w.signup(t, "busy_fan")
	book := w.books[0]

	res := w.post("/v1/lines", map[string]any{"bookId": book, "content": "first"}, ann.Token)
	require.Equal(t, http.StatusCreated, res.Status, res.String())
	id := res.JSON["id"].(string)
	t.Run("create_line is the tightest limit", func(t *testing.T) {
		assert.Equal(t, "10", res.Header.Get("X-RateLimit-Limit"))
		assert.Equal(t, "9", res.Header.Get("X-RateLimit-Remaining"))
	})
	t.Run("the 11th post within a minute is 429", func(t *testing.T) {
		for i := range 10 {
			res := w.Do("POST", "/v1/lines", map[string]any{"bookId": book, "content": fmt.Sprint("quick ", i)}, bob.Token)
			require.Equal(t, http.StatusCreated, res.Status, res.String())
		}
		res := w.Do("POST", "/v1/lines", map[string]any{"bookId": book, "content": "one too many"}, bob.Token)
		testenv.AssertError(t, res, http.StatusTooManyRequests, "TooManyRequests", "")
		assert.Equal(t, "create_line", testenv.ErrorOf(t, res)["details"].(map[string]any)["action"])
		assert.Equal(t, 11.0, w.totalLines(t, book), "the refused post was not stored")
	})
	t.Run("a refused burst consumes nothing: a minute later posting works", func(t *testing.T) {
		burst := w.signup(t, "burst")
		statuses := map[int]int{}
		for i := range 60 {
			res := w.Do("POST", "/v1/lines", map[string]any{"bookId": book, "content": fmt.Sprint("burst ", i)}, burst.Token)
			statuses[res.Status]++
		}
		assert.Equal(t, map[int]int{http.StatusCreated: 10, http.StatusTooManyRequests: 50}, statuses)
		w.clock.Advance(time.Minute)
		res := w.Do("POST", "/v1/lines", map[string]any{"bookId": book, "content": "a minute later"}, burst.Token)
		require.Equal(t, http.StatusCreated, res.Status, "the 50 refused posts did not eat create_line_hourly: %s", res)
	})
	t.Run("invalid posts give their budget back", func(t *testing.T) {
		sloppy := w.signup(t, "sloppy")
		for range 10 {
			res := w.Do("POST", "/v1/lines", map[string]any{"bookId": "not-a-uuid", "content": "x"}, sloppy.Token)
			require.Equal(t, http.StatusBadRequest, res.Status)
			assert.Equal(t, "10", res.Header.Get("X-RateLimit-Remaining"), "the headers report the budget the refund left")
		}
		res := w.Do("POST", "/v1/lines", map[string]any{"bookId": book, "content": "now right"}, sloppy.Token)
		require.Equal(t, http.StatusCreated, res.Status, "ten 400s did not use up create_line: %s", res)
		assert.Equal(t, "9", res.Header.Get("X-RateLimit-Remaining"))
	})
	t.Run("the 101st like or unlike within an hour is 429 and writes nothing", func(t *testing.T) {
		path := "/v1/lines/" + id + "/like"
		for i := range 100 {
			method := []string{"POST", "DELETE"}[i%2]
			res := w.Do(method, path, nil, fan.Token)
			require.Equal(t, http.StatusOK, res.Status, "%d: %s", i, res.String())
		}
		res := w.Do("POST", path, nil, fan.Token)
		testenv.AssertError(t, res, http.StatusTooManyRequests, "TooManyRequests", "")
		assert.Equal(t, "like", testenv.ErrorOf(t, res)["details"].(map[string]any)["action"])
		assert.Nil(t, w.Item(t, dynamo.LikeKey(dynamo.LineKey(id), fan.ID)), "the refused like wrote nothing")
	})
}

func TestLines_Like_concurrent(t *testing.T) {
	w := newWorld(t)
	author := w.signup(t, "author")
	id := w.postLine(t, author, w.books[0], "popular")["id"].(string)
	path := "/v1/lines/" + id + "/like"

	t.Run("many users liking at once all count", func(t *testing.T) {
		const n = 12
		fans := make([]testenv.Account, n)
		for i := range fans {
			fans[i] = w.signup(t, fmt.Sprintf("fan_%02d", i))
		}
		statuses := make([]int, n)
		var wg sync.WaitGroup
		for i, u := range fans {
			wg.Go(func() { statuses[i] = w.Do("POST", path, nil, u.Token).Status })
		}
		wg.Wait()
		for i, s := range statuses {
			assert.Equal(t, http.StatusOK, s, "fan %d", i)
		}
		res := w.req("GET", "/v1/lines/"+id, nil, author.Token)
		assert.Equal(t, float64(n), res.JSON["likeCount"])
	})
	t.Run("one user tapping twice at once counts once", func(t *testing.T) {
		u := w.signup(t, "double_tap")
		before := w.Item(t, dynamo.LineKey(id))["likeCount"].(float64)
		statuses := make([]int, 2)
		bodies := make([]*testenv.Response, 2)
		var wg sync.WaitGroup
		for i := range 2 {
			wg.Go(func() { bodies[i] = w.Do("POST", path, nil, u.Token); statuses[i] = bodies[i].Status })
		}
		wg.Wait()
		assert.ElementsMatch(t, []int{http.StatusOK, http.StatusBadRequest}, statuses)
		for _, b := range bodies {
			if b.Status == http.StatusBadRequest {
				assert.Equal(t, "Already liked", testenv.ErrorOf(t, b)["message"])
			}
		}
		assert.Equal(t, before+1, w.Item(t, dynamo.LineKey(id))["likeCount"])
	})
}

func TestLines_Replies(t *testing.T) {
	w := newWorld(t)
	ann, bob, cy := w.signup(t, "ann"), w.signup(t, "bob"), w.signup(t, "cyd")
	id := w.postLine(t, ann, w.books[1], "Three rings for the elven-kings")["id"].(string)
	path := "/v1/lines/" + id + "/replies"

	res := w.post(path, map[string]any{"content": "  Seven for the dwarf-lords  "}, bob.Token)
	require.Equal(t, http.StatusCreated, res.Status, res.String())
	first := res.JSON
	assert.Regexp(t, `^[0-9a-f]{24}$`, first["id"])
	assert.Equal(t, map[string]any{
		"id": first["id"], "lineId": id, "userId": bob.ID,
		"user":    map[string]any{"id": bob.ID, "username": "bob", "displayName": "Reader bob", "avatarUrl": nil},
		"content": "Seven for the dwarf-lords", "createdAt": first["createdAt"],
	}, first)
	assert.Equal(t, "49", res.Header.Get("X-Monthly-Remaining"), "a reply is a post")
	assert.Equal(t, "10", res.Header.Get("X-RateLimit-Limit"), "counted as create_line")
	assert.Equal(t, 1.0, w.req("GET", "/v1/lines/"+id, nil, ann.Token).JSON["replyCount"])

	// Five replies in all, oldest first.
	want := []string{first["id"].(string)}
	for i, u := range []testenv.Account{cy, ann, bob, cy} {
		want = append(want, w.postReply(t, u, id, fmt.Sprint("reply ", i))["id"].(string))
	}
	readAll := func(t *testing.T, limit int, between func()) []string {
		t.Helper()
		var got []string
		cursor := ""
		for pages := 0; ; pages++ {
			require.Less(t, pages, 20, "no end of pages")
			q := url.Values{"limit": {fmt.Sprint(limit)}}
			if cursor != "" {
				q.Set("cursor", cursor)
			}
			res := w.req("GET", path+"?"+q.Encode(), nil, cy.Token)
			require.Equal(t, http.StatusOK, res.Status, res.String())
			items := res.JSON["items"].([]any)
			require.NotEmpty(t, items, "no empty page")
			for _, it := range items {
				got = append(got, it.(map[string]any)["id"].(string))
			}
			if res.JSON["hasMore"] == false {
				assert.Nil(t, res.JSON["nextCursor"])
				return got
			}
			cursor = res.JSON["nextCursor"].(string)
			if between != nil {
				between()
			}
		}
	}
	t.Run("oldest first with authors", func(t *testing.T) {
		res := w.req("GET", path, nil, cy.Token)
		require.Equal(t, http.StatusOK, res.Status, res.String())
		items := res.JSON["items"].([]any)
		require.Len(t, items, 5)
		assert.Equal(t, first, items[0])
		assert.Equal(t, "cyd", items[1].(map[string]any)["user"].(map[string]any)["username"])
		assert.Equal(t, false, res.JSON["hasMore"])
		assert.Nil(t, res.JSON["nextCursor"])
		assert.Contains(t, res.JSON, "nextCursor")
	})
	for _, limit := range []int{1, 2, 5} {
		t.Run(fmt.Sprintf("pages of %d neither skip nor repeat", limit), func(t *testing.T) {
			assert.Equal(t, want, readAll(t, limit, nil))
		})
	}
	t.Run("replies posted while paging come after, once", func(t *testing.T) {
		var added []string
		got := readAll(t, 2, func() { added = append(added, w.postReply(t, bob, id, "meanwhile")["id"].(string)) })
		assert.Equal(t, append(append([]string{}, want...), added[:len(got)-len(want)]...), got)
		want = append(want, added...)
	})
	t.Run("a tampered cursor is 400", func(t *testing.T) {
		res := w.req("GET", path+"?limit=1", nil, cy.Token)
		cursor := res.JSON["nextCursor"].(string)
		raw, err := base64.RawURLEncoding.DecodeString(cursor)
		require.NoError(t, err)
		raw[0] ^= 1 // one bit of the first byte: always a change
		tampered := base64.RawURLEncoding.EncodeToString(raw)
		testenv.AssertError(t, w.req("GET", path+"?cursor="+url.QueryEscape(tampered), nil, cy.Token), http.StatusBadRequest, "ValidationError", "Invalid cursor")
		other := w.postLine(t, bob, w.books[1], "another line")["id"].(string)
		testenv.AssertError(t, w.req("GET", "/v1/lines/"+other+"/replies?cursor="+url.QueryEscape(cursor), nil, cy.Token),
			http.StatusBadRequest, "ValidationError", "Invalid cursor")
	})
	for _, limit := range []string{"0", "101", "x", "-1"} {
		t.Run("limit "+limit+" is 400", func(t *testing.T) {
			testenv.AssertError(t, w.req("GET", path+"?limit="+limit, nil, cy.Token), http.StatusBadRequest, "ValidationError", "")
		})
	}
	for name, p := range map[string]string{"unknown line": "/v1/lines/" + unknownID + "/replies", "non-uuid line": "/v1/lines/abc/replies"} {
		t.Run(name+" is 404", func(t *testing.T) {
			testenv.AssertError(t, w.req("GET", p, nil, cy.Token), http.StatusNotFound, "NotFound", "Line not found")
			testenv.AssertError(t, w.post(p, map[string]any{"content": "x"}, cy.Token), http.StatusNotFound, "NotFound", "Line not found")
		})
	}
	for name, body := range map[string]any{"missing content": map[string]any{}, "blank content": map[string]any{"content": " "},
		"501 characters": map[string]any{"content": strings.Repeat("r", 501)}, "malformed JSON": `{"content":`} {
		t.Run(name+" is 400", func(t *testing.T) {
			testenv.AssertError(t, w.post(path, body, cy.Token), http.StatusBadRequest, "ValidationError", "")
		})
	}
	t.Run("without a token is 401", func(t *testing.T) {
		testenv.AssertError(t, w.req("GET", path, nil, ""), http.StatusUnauthorized, "Unauthorized", "")
		testenv.AssertError(t, w.post(path, map[string]any{"content": "x"}, ""), http.StatusUnauthorized, "Unauthorized", "")
	})

	t.Run("delete: only the reply's author", func(t *testing.T) {
		reply := w.postReply(t, bob, id, "to be deleted")["id"].(string)
		count := w.Item(t, dynamo.LineKey(id))["replyCount"].(float64)
		rpath := "/v1/lines/" + id + "/replies/" + reply

		testenv.AssertError(t, w.req("DELETE", rpath, nil, ann.Token), http.StatusForbidden, "Forbidden", "Only the author can delete this reply")
		testenv.AssertError(t, w.req("DELETE", rpath, nil, ""), http.StatusUnauthorized, "Unauthorized", "")
		assert.Equal(t, count, w.Item(t, dynamo.LineKey(id))["replyCount"])

		res := w.req("DELETE", rpath, nil, bob.Token)
		require.Equal(t, http.StatusOK, res.Status, res.String())
		assert.Equal(t, map[string]any{"success": true, "message": "Reply deleted"}, res.JSON)
		assert.Equal(t, count-1, w.Item(t, dynamo.LineKey(id))["replyCount"])
		assert.Nil(t, w.Item(t, dynamo.ReplyKey(id, reply)))

		testenv.AssertError(t, w.req("DELETE", rpath, nil, bob.Token), http.StatusNotFound, "NotFound", "Reply not found")
		testenv.AssertError(t, w.req("DELETE", "/v1/lines/"+id+"/replies/not-a-reply", nil, bob.Token), http.StatusNotFound, "NotFound", "Reply not found")
		testenv.AssertError(t, w.req("DELETE", "/v1/lines/"+unknownID+"/replies/"+want[0], nil, bob.Token), http.StatusNotFound, "NotFound", "")
		testenv.AssertError(t, w.req("DELETE", "/v1/lines/x/replies/"+want[0], nil, bob.Token), http.StatusNotFound, "NotFound", "Line not found")
	})
}

func TestLines_MonthlyQuota(t *testing.T) {
	w := newWorld(t, withPostLimit(3))
	ann, bob := w.signup(t, "ann"), w.signup(t, "bob")
	book := w.books[0]

	t.Run("lines and replies count together; the fourth post is 403", func(t *testing.T) {
		l := w.postLine(t, ann, book, "one")["id"].(string)
		res := w.post("/v1/lines", map[string]any{"bookId": book, "content": "two"}, ann.Token)
		require.Equal(t, http.StatusCreated, res.Status)
		assert.Equal(t, "1", res.Header.Get("X-Monthly-Remaining"))
		res = w.post("/v1/lines/"+l+"/replies", map[string]any{"content": "three"}, ann.Token)
		require.Equal(t, http.StatusCreated, res.Status)
		assert.Equal(t, "3", res.Header.Get("X-Monthly-Limit"))
		assert.Equal(t, "0", res.Header.Get("X-Monthly-Remaining"))

		for name, r := range map[string]*testenv.Response{
			"line":  w.post("/v1/lines", map[string]any{"bookId": book, "content": "four"}, ann.Token),
			"reply": w.post("/v1/lines/"+l+"/replies", map[string]any{"content": "four"}, ann.Token),
		} {
			testenv.AssertError(t, r, http.StatusForbidden, "Forbidden", "")
			d := testenv.ErrorOf(t, r)["details"].(map[string]any)
			assert.Equal(t, "monthly_limit_reached", d["error"], name)
			assert.Equal(t, 3.0, d["limit"], name)
			assert.Equal(t, 3.0, d["current"], name)
			assert.Equal(t, "2026-04-01T00:00:00Z", d["resetsAt"], name)
			assert.NotEmpty(t, d["upgradeUrl"], name)
			assert.Equal(t, "0", r.Header.Get("X-Monthly-Remaining"), name)
		}
		assert.Equal(t, 2.0, w.totalLines(t, book), "refused posts wrote nothing")
		assert.Equal(t, 1.0, w.Item(t, dynamo.LineKey(l))["replyCount"])
	})
	t.Run("likes and reads are not posts", func(t *testing.T) {
		l := w.postLine(t, bob, book, "bob's")["id"].(string)
		assert.Equal(t, http.StatusOK, w.req("POST", "/v1/lines/"+l+"/like", nil, ann.Token).Status)
		assert.Equal(t, http.StatusOK, w.req("GET", "/v1/lines/"+l, nil, ann.Token).Status)
	})
	t.Run("premium is unlimited and sees no monthly headers", func(t *testing.T) {
		p := w.signup(t, "premium_pat")
		w.SetTier(t, p, "premium")
		for i := range 5 {
			res := w.post("/v1/lines", map[string]any{"bookId": book, "content": fmt.Sprint("p", i)}, p.Token)
			require.Equal(t, http.StatusCreated, res.Status, res.String())
			assert.Empty(t, res.Header.Get("X-Monthly-Limit"))
		}
	})
	t.Run("concurrent posts at the edge: exactly the limit succeed", func(t *testing.T) {
		u := w.signup(t, "racer")
		before := w.totalLines(t, w.books[1])
		const n = 8
		statuses := make([]int, n)
		remaining := make([]string, n)
		var wg sync.WaitGroup
		for i := range n {
			wg.Go(func() {
				res := w.Do("POST", "/v1/lines", map[string]any{"bookId": w.books[1], "content": fmt.Sprint("race ", i)}, u.Token)
				statuses[i], remaining[i] = res.Status, res.Header.Get("X-Monthly-Remaining")
			})
		}
		wg.Wait()
		created, refused := 0, 0
		var createdLeft []string
		for i, s := range statuses {
			switch s {
			case http.StatusCreated:
				created++
				createdLeft = append(createdLeft, remaining[i])
			case http.StatusForbidden:
				refused++
				assert.Equal(t, "0", remaining[i], "a refusal reports the count that refused it")
			}
		}
		assert.Equal(t, 3, created, "statuses %v", statuses)
		assert.Equal(t, n-3, refused, "statuses %v", statuses)
		assert.ElementsMatch(t, []string{"2", "1", "0"}, createdLeft, "each post reports the count it made")
		assert.Equal(t, 3.0, w.Item(t, dynamo.UserKey(u.ID))["monthlyPosts"])
		assert.Equal(t, before+3, w.totalLines(t, w.books[1]))
	})
	t.Run("the quota resets on the 1st at 00:00 UTC", func(t *testing.T) {
		w.clock.Set(time.Date(2026, 4, 1, 0, 0, 0, 0, time.UTC))
		ann := w.Login(t, ann) // the access token has expired meanwhile
		res := w.post("/v1/lines", map[string]any{"bookId": book, "content": "April"}, ann.Token)
		require.Equal(t, http.StatusCreated, res.Status, res.String())
		assert.Equal(t, "2", res.Header.Get("X-Monthly-Remaining"))
		assert.Equal(t, "2026-05-01T00:00:00Z", res.Header.Get("X-Monthly-Reset"))
	})
}

// Parallel posts each report the count their own charge made, not the
// count read with the caller: ten posts with 40 left say 39 down to 30,
// once each.
func TestLines_MonthlyHeadersAreExactUnderConcurrency(t *testing.T) {
	w := newWorld(t, withPostLimit(50))
	u := w.signup(t, "counter")
	for i := range 10 {
		w.postLine(t, u, w.books[0], fmt.Sprint("warm-up ", i))
	}
	const n = 10
	remaining := make([]string, n)
	var wg sync.WaitGroup
	for i := range n {
		wg.Go(func() {
			res := w.Do("POST", "/v1/lines", map[string]any{"bookId": w.books[1], "content": fmt.Sprint("parallel ", i)}, u.Token)
			assert.Equal(t, http.StatusCreated, res.Status, res.String())
			remaining[i] = res.Header.Get("X-Monthly-Remaining")
		})
	}
	wg.Wait()
	assert.ElementsMatch(t, []string{"39", "38", "37", "36", "35", "34", "33", "32", "31", "30"}, remaining)
	assert.Equal(t, 20.0, w.Item(t, dynamo.UserKey(u.ID))["monthlyPosts"])
}

// readLines pages through a line list, calling between after each page,
// and returns the ids in the order read.
func (w *world) readLines(t *testing.T, path, token string, limit int, between func()) []string {
	t.Helper()
	var got []string
	cursor := ""
	for pages := 0; ; pages++ {
		require.Less(t, pages, 100, "no end of pages")
		q := url.Values{"limit": {fmt.Sprint(limit)}}
		if cursor != "" {
			q.Set("cursor", cursor)
		}
		res := w.req("GET", path+"?"+q.Encode(), nil, token)
		require.Equal(t, http.StatusOK, res.Status, res.String())
		items := res.JSON["items"].([]any)
		require.LessOrEqual(t, len(items), limit)
		for _, it := range items {
			got = append(got, it.(map[string]any)["id"].(string))
		}
		next, _ := res.JSON["nextCursor"].(string)
		assert.Equal(t, next != "", res.JSON["hasMore"])
		if next == "" {
			return got
		}
		require.NotEmpty(t, items, "a page with a next cursor has items")
		cursor = next
		if between != nil {
			between()
		}
	}
}

func TestLines_ListByBook(t *testing.T) {
	markers := &likeLookups{}
	w := newWorld(t, testenv.WithAPIOptions(markers.middleware))
	ann, bob, cy := w.signup(t, "ann"), w.signup(t, "bob"), w.signup(t, "cyd")
	book := w.books[0]
	path := "/v1/books/" + book + "/lines"
	var want []string // newest first
	for i := range 25 {
		u := []testenv.Account{ann, bob, cy}[i%3]
		id := w.postLine(t, u, book, fmt.Sprint("line ", i))["id"].(string)
		want = append([]string{id}, want...)
		if i%5 == 0 {
			w.postLine(t, u, w.books[1], "on another book")
		}
	}
	for _, id := range want[3:5] {
		require.Equal(t, http.StatusOK, w.req("POST", "/v1/lines/"+id+"/like", nil, bob.Token).Status)
	}

	t.Run("newest first, Line with user and book", func(t *testing.T) {
		res := w.req("GET", path, nil, "")
		require.Equal(t, http.StatusOK, res.Status, res.String())
		items := res.JSON["items"].([]any)
		require.Len(t, items, 20, "default limit")
		it := items[0].(map[string]any)
		assert.Equal(t, want[0], it["id"])
		assert.Equal(t, "line 24", it["content"])
		assert.Equal(t, ann.ID, it["userId"])
		assert.Equal(t, "ann", it["user"].(map[string]any)["username"])
		assert.Equal(t, "Harry Potter", it["book"].(map[string]any)["title"])
		for _, f := range []string{"id", "userId", "user", "bookId", "book", "content", "pageNumber", "likeCount", "replyCount", "isLiked", "clubId", "challengeId", "createdAt", "updatedAt"} {
			assert.Contains(t, it, f)
		}
		assert.Equal(t, true, res.JSON["hasMore"])
	})
	t.Run("isLiked is the caller's, false anonymously", func(t *testing.T) {
		liked := func(token string) map[string]bool {
			res := w.req("GET", path+"?limit=10", nil, token)
			require.Equal(t, http.StatusOK, res.Status, res.String())
			out := map[string]bool{}
			for _, it := range res.JSON["items"].([]any) {
				m := it.(map[string]any)
				if m["isLiked"] == true {
					out[m["id"].(string)] = true
				}
			}
			return out
		}
		assert.Equal(t, map[string]bool{want[3]: true, want[4]: true}, liked(bob.Token))
		assert.Empty(t, liked(ann.Token))
		assert.Empty(t, liked(""))
	})
	t.Run("only the likes of liked lines are looked up", func(t *testing.T) {
		markers.reset()
		res := w.req("GET", path+"?limit=10", nil, ann.Token)
		require.Equal(t, http.StatusOK, res.Status, res.String())
		assert.Equal(t, 2, markers.count(), "the two lines bob likes, not the eight nobody likes")
		markers.reset()
		res = w.req("GET", path+"?limit=3", nil, bob.Token)
		require.Equal(t, http.StatusOK, res.Status, res.String())
		assert.Zero(t, markers.count(), "no line of the page has a like")
	})
	for _, limit := range []int{1, 5, 7, 25, 100} {
		t.Run(fmt.Sprintf("pages of %d neither skip nor repeat", limit), func(t *testing.T) {
			assert.Equal(t, want, w.readLines(t, path, "", limit, nil))
		})
	}
	t.Run("lines posted between page requests shift nothing", func(t *testing.T) {
		var added []string
		got := w.readLines(t, path, ann.Token, 6, func() {
			added = append(added, w.postLine(t, cy, book, "posted while paging")["id"].(string))
		})
		assert.Equal(t, want, got, "the new lines are newer than the first page")
		assert.Len(t, added, 4)
		fresh := w.readLines(t, path, "", 100, nil)
		assert.Equal(t, added[len(added)-1], fresh[0])
		assert.Len(t, fresh, len(want)+len(added))
	})
	t.Run("a tampered cursor is 400", func(t *testing.T) {
		cursor := w.req("GET", path+"?limit=2", nil, "").JSON["nextCursor"].(string)
		raw, err := base64.RawURLEncoding.DecodeString(cursor)
		require.NoError(t, err)
		for name, c := range map[string]string{
			"altered":   base64.RawURLEncoding.EncodeToString(append(raw[:len(raw)-1:len(raw)-1], raw[len(raw)-1]^1)),
			"truncated": cursor[:len(cursor)-4],
			"garbage":   "%%%",
		} {
			res := w.req("GET", path+"?cursor="+url.QueryEscape(c), nil, "")
			testenv.AssertError(t, res, http.StatusBadRequest, "ValidationError", "Invalid cursor")
			assert.Contains(t, testenv.FieldErrors(t, res), "cursor", name)
		}
		other := "/v1/books/" + w.books[1] + "/lines?cursor=" + url.QueryEscape(cursor)
		testenv.AssertError(t, w.req("GET", other, nil, ""), http.StatusBadRequest, "ValidationError", "Invalid cursor")
		testenv.AssertError(t, w.req("GET", "/v1/users/ann/lines?cursor="+url.QueryEscape(cursor), nil, ""), http.StatusBadRequest, "ValidationError", "Invalid cursor")
	})
	for _, limit := range []string{"0", "101", "ten", "1.5", ""} {
		t.Run(fmt.Sprintf("limit %q is 400", limit), func(t *testing.T) {
			testenv.AssertError(t, w.req("GET", path+"?limit="+limit, nil, ""), http.StatusBadRequest, "ValidationError", "")
		})
	}
	t.Run("a book without lines is an empty page", func(t *testing.T) {
		res := w.req("GET", "/v1/books/"+w.books[2]+"/lines", nil, "")
		require.Equal(t, http.StatusOK, res.Status, res.String())
		assert.Equal(t, []any{}, res.JSON["items"])
		assert.Nil(t, res.JSON["nextCursor"])
	})
	for name, p := range map[string]string{"unknown book": "/v1/books/" + unknownID + "/lines", "non-uuid book": "/v1/books/9780306406157/lines"} {
		t.Run(name+" is 404", func(t *testing.T) {
			testenv.AssertError(t, w.req("GET", p, nil, ""), http.StatusNotFound, "NotFound", "Book not found")
		})
	}
	t.Run("a bad token is 401 even on this Optional route", func(t *testing.T) {
		testenv.AssertError(t, w.req("GET", path, nil, "not-a-token"), http.StatusUnauthorized, "Unauthorized", "Invalid or expired token")
	})
}

func TestLines_ListByUser(t *testing.T) {
	w := newWorld(t)
	ann, bob := w.signup(t, "Ann_Reads"), w.signup(t, "bob")
	var want []string
	for i := range 9 {
		id := w.postLine(t, ann, w.books[i%3], fmt.Sprint("ann ", i))["id"].(string)
		want = append([]string{id}, want...)
		w.postLine(t, bob, w.books[0], "bob's")
	}
	require.Equal(t, http.StatusOK, w.req("POST", "/v1/lines/"+want[1]+"/like", nil, bob.Token).Status)
	path := "/v1/users/ann_reads/lines"

	t.Run("the author's lines, newest first, any case of the name", func(t *testing.T) {
		res := w.req("GET", path, nil, "")
		require.Equal(t, http.StatusOK, res.Status, res.String())
		items := res.JSON["items"].([]any)
		require.Len(t, items, 9)
		for i, it := range items {
			m := it.(map[string]any)
			assert.Equal(t, want[i], m["id"])
			assert.Equal(t, ann.ID, m["userId"])
			for _, f := range []string{"id", "userId", "bookId", "content", "likeCount", "replyCount", "createdAt"} {
				assert.Contains(t, m, f)
			}
		}
		assert.Equal(t, "The Lord of the Rings", items[0].(map[string]any)["book"].(map[string]any)["title"])
		assert.Equal(t, 1.0, items[1].(map[string]any)["likeCount"])
		assert.Nil(t, res.JSON["nextCursor"])
		assert.Equal(t, want, w.readLines(t, "/v1/users/ANN_READS/lines", "", 100, nil))
	})
	t.Run("isLiked for a signed-in caller", func(t *testing.T) {
		res := w.req("GET", path, nil, bob.Token)
		require.Equal(t, http.StatusOK, res.Status, res.String())
		for i, it := range res.JSON["items"].([]any) {
			assert.Equal(t, i == 1, it.(map[string]any)["isLiked"], "item %d", i)
		}
	})
	for _, limit := range []int{1, 2, 4, 9} {
		t.Run(fmt.Sprintf("pages of %d with posts between them", limit), func(t *testing.T) {
			got := w.readLines(t, path, bob.Token, limit, func() { w.postLine(t, ann, w.books[2], "meanwhile") })
			assert.Equal(t, want, got)
			want = w.readLines(t, path, "", 100, nil)
		})
	}
	t.Run("unknown username is 404", func(t *testing.T) {
		testenv.AssertError(t, w.req("GET", "/v1/users/nobody_here/lines", nil, ""), http.StatusNotFound, "NotFound", "User not found")
	})
	t.Run("the users group's literal route still wins", func(t *testing.T) {
		res := w.req("GET", "/v1/users/username/bob", nil, "")
		require.Equal(t, http.StatusOK, res.Status, res.String())
		assert.Equal(t, "bob", res.JSON["username"])
	})
	t.Run("bad limit and tampered cursor are 400", func(t *testing.T) {
		testenv.AssertError(t, w.req("GET", path+"?limit=0", nil, ""), http.StatusBadRequest, "ValidationError", "")
		testenv.AssertError(t, w.req("GET", path+"?cursor=abc.def", nil, ""), http.StatusBadRequest, "ValidationError", "Invalid cursor")
	})
	t.Run("a cursor of a name that passed to another account is 400", func(t *testing.T) {
		cursor := w.req("GET", path+"?limit=1", nil, "").JSON["nextCursor"].(string)
		require.Equal(t, http.StatusOK, w.req("PUT", "/v1/users/me", map[string]any{"username": "ann_moved"}, ann.Token).Status)
		require.Equal(t, http.StatusOK, w.req("PUT", "/v1/users/me", map[string]any{"username": "ann_reads"}, bob.Token).Status)
		testenv.AssertError(t, w.req("GET", path+"?cursor="+url.QueryEscape(cursor), nil, ""), http.StatusBadRequest, "ValidationError", "Invalid cursor")
		res := w.req("GET", path, nil, "")
		require.Equal(t, http.StatusOK, res.Status)
		assert.Equal(t, bob.ID, res.JSON["items"].([]any)[0].(map[string]any)["userId"], "the name now lists bob's lines")
		assert.Equal(t, "ann_reads", res.JSON["items"].([]any)[0].(map[string]any)["user"].(map[string]any)["username"], "briefs are read fresh")
	})
}

// clubOf creates a club hosted by a premium account and returns its id.
func (w *world) clubOf(t *testing.T, host testenv.Account, public bool) string {
	t.Helper()
	w.SetTier(t, host, users.TierPremium)
	res := w.req("POST", "/v1/clubs", map[string]any{"name": "Club of " + host.Username, "isPublic": public}, host.Token)
	require.Equal(t, http.StatusCreated, res.Status, res.String())
	return res.JSON["id"].(string)
}

// lineIDs are the ids of a list's items.
func lineIDs(res *testenv.Response) []string {
	var out []string
	for _, it := range res.JSON["items"].([]any) {
		out = append(out, it.(map[string]any)["id"].(string))
	}
	return out
}

func TestLines_InClubs(t *testing.T) {
	w := newWorld(t)
	pam, ann, bob := w.signup(t, "pam"), w.signup(t, "ann"), w.signup(t, "bob")
	open, closed := w.clubOf(t, pam, true), w.clubOf(t, pam, false)
	require.Equal(t, http.StatusCreated, w.req("POST", "/v1/clubs/"+open+"/join", nil, ann.Token).Status)
	require.Equal(t, http.StatusCreated, w.req("POST", "/v1/clubs/"+closed+"/members", map[string]any{"userId": ann.ID}, pam.Token).Status)
	book := w.books[1]

	res := w.post("/v1/lines", map[string]any{"bookId": book, "content": "Said among friends.", "pageNumber": 7, "clubId": strings.ToUpper(closed)}, ann.Token)
	require.Equal(t, http.StatusCreated, res.Status, res.String())
	secret := res.JSON
	assert.Equal(t, closed, secret["clubId"], "stored in canonical lower case")
	assert.Nil(t, secret["challengeId"])
	openLine := w.postLine(t, pam, book, "Out loud.")
	res = w.post("/v1/lines", map[string]any{"bookId": book, "content": "In the open club.", "clubId": open}, ann.Token)
	require.Equal(t, http.StatusCreated, res.Status, res.String())
	public := res.JSON

	t.Run("posting needs membership: 403 otherwise, 404 for an unknown club, and charges nothing", func(t *testing.T) {
		before := w.Item(t, dynamo.UserKey(bob.ID))["monthlyPosts"]
		res := w.post("/v1/lines", map[string]any{"bookId": book, "content": "Let me in.", "clubId": open}, bob.Token)
		testenv.AssertError(t, res, http.StatusForbidden, "Forbidden", clubs.ErrMembersOnly.Message)
		res = w.post("/v1/lines", map[string]any{"bookId": book, "content": "Where?", "clubId": unknownID}, bob.Token)
		testenv.AssertError(t, res, http.StatusNotFound, "NotFound", "Club not found")
		res = w.post("/v1/lines", map[string]any{"bookId": unknownID, "content": "What?", "clubId": open}, ann.Token)
		testenv.AssertError(t, res, http.StatusNotFound, "NotFound", "Book not found")
		assert.Equal(t, before, w.Item(t, dynamo.UserKey(bob.ID))["monthlyPosts"])
	})
	t.Run("a club's lines are its own: not on the book's or the author's lists, not in totalLines", func(t *testing.T) {
		res := w.req("GET", "/v1/books/"+book+"/lines", nil, "")
		assert.Equal(t, []string{openLine["id"].(string)}, lineIDs(res))
		res = w.req("GET", "/v1/users/ann/lines", nil, ann.Token)
		assert.Empty(t, lineIDs(res))
		assert.Equal(t, 1.0, w.totalLines(t, book))
		item := w.Item(t, dynamo.LineKey(secret["id"].(string)))
		assert.NotContains(t, item, "GSI2PK")
	})
	t.Run("GET /lines/club/{clubId}: the Line with a short book and the caller's like", func(t *testing.T) {
		require.Equal(t, http.StatusOK, w.req("POST", "/v1/lines/"+secret["id"].(string)+"/like", nil, pam.Token).Status)
		res := w.req("GET", "/v1/lines/club/"+closed, nil, pam.Token)
		require.Equal(t, http.StatusOK, res.Status, res.String())
		assert.Nil(t, res.JSON["nextCursor"])
		assert.Equal(t, false, res.JSON["hasMore"])
		items := res.JSON["items"].([]any)
		require.Len(t, items, 1)
		want := map[string]any{}
		for k, v := range secret {
			want[k] = v
		}
		want["book"] = map[string]any{"title": "The Hobbit", "authors": []any{"J. R. R. Tolkien"}, "coverUrl": "https://covers.openlibrary.org/b/isbn/9780198534532-L.jpg"}
		want["isLiked"], want["likeCount"] = true, 1.0
		assert.Equal(t, want, items[0])
		res = w.req("GET", "/v1/lines/club/"+closed, nil, ann.Token)
		assert.Equal(t, false, res.JSON["items"].([]any)[0].(map[string]any)["isLiked"])
	})
	t.Run("a private club's lines: 403 to a non-member, 401 without a token", func(t *testing.T) {
		testenv.AssertError(t, w.req("GET", "/v1/lines/club/"+closed, nil, bob.Token), http.StatusForbidden, "Forbidden", clubs.ErrPrivate.Message)
		testenv.AssertError(t, w.req("GET", "/v1/clubs/"+closed+"/lines", nil, bob.Token), http.StatusForbidden, "Forbidden", "")
		testenv.AssertError(t, w.req("GET", "/v1/clubs/"+closed+"/lines", nil, ""), http.StatusUnauthorized, "Unauthorized", clubs.ErrSignInRequired.Message)
		testenv.AssertError(t, w.req("GET", "/v1/lines/club/"+closed, nil, ""), http.StatusUnauthorized, "Unauthorized", "Missing or invalid authorization header")
		testenv.AssertError(t, w.req("GET", "/v1/lines/"+secret["id"].(string), nil, bob.Token), http.StatusForbidden, "Forbidden", clubs.ErrPrivate.Message)
		testenv.AssertError(t, w.req("GET", "/v1/lines/"+secret["id"].(string)+"/replies", nil, bob.Token), http.StatusForbidden, "Forbidden", "")
		res := w.req("GET", "/v1/lines/"+secret["id"].(string), nil, pam.Token)
		require.Equal(t, http.StatusOK, res.Status, res.String())
		require.Equal(t, http.StatusOK, w.req("GET", "/v1/lines/"+secret["id"].(string)+"/replies", nil, ann.Token).Status)
	})
	t.Run("a private club's line takes no reply or like from a non-member", func(t *testing.T) {
		id := secret["id"].(string)
		before := w.Item(t, dynamo.LineKey(id))
		testenv.AssertError(t, w.post("/v1/lines/"+id+"/replies", map[string]any{"content": "I am not a member"}, bob.Token), http.StatusForbidden, "Forbidden", clubs.ErrPrivate.Message)
		testenv.AssertError(t, w.req("POST", "/v1/lines/"+id+"/like", nil, bob.Token), http.StatusForbidden, "Forbidden", clubs.ErrPrivate.Message)
		after := w.Item(t, dynamo.LineKey(id))
		assert.Equal(t, before["replyCount"], after["replyCount"], "the refused reply wrote nothing")
		assert.Equal(t, before["likeCount"], after["likeCount"], "the refused like wrote nothing")
		assert.Nil(t, w.Item(t, dynamo.LikeKey(dynamo.LineKey(id), bob.ID)))
		res := w.post("/v1/lines/"+id+"/replies", map[string]any{"content": "A member answers"}, pam.Token)
		require.Equal(t, http.StatusCreated, res.Status, "a member may reply: %s", res)
	})
	t.Run("a public club's lines are anyone's to read", func(t *testing.T) {
		res := w.req("GET", "/v1/clubs/"+open+"/lines", nil, "")
		require.Equal(t, http.StatusOK, res.Status, res.String())
		assert.Equal(t, []string{public["id"].(string)}, lineIDs(res))
		res = w.req("GET", "/v1/lines/club/"+open, nil, bob.Token)
		assert.Equal(t, []string{public["id"].(string)}, lineIDs(res))
		require.Equal(t, http.StatusOK, w.req("GET", "/v1/lines/"+public["id"].(string), nil, bob.Token).Status)
	})
	t.Run("unknown club is 404 on both paths", func(t *testing.T) {
		testenv.AssertError(t, w.req("GET", "/v1/lines/club/"+unknownID, nil, bob.Token), http.StatusNotFound, "NotFound", "Club not found")
		testenv.AssertError(t, w.req("GET", "/v1/clubs/not-a-club/lines", nil, ""), http.StatusNotFound, "NotFound", "Club not found")
	})
	t.Run("a member who leaves can no longer post there, but deletes their line", func(t *testing.T) {
		require.Equal(t, http.StatusOK, w.req("DELETE", "/v1/clubs/"+open+"/leave", nil, ann.Token).Status)
		res := w.post("/v1/lines", map[string]any{"bookId": book, "content": "Still here?", "clubId": open}, ann.Token)
		testenv.AssertError(t, res, http.StatusForbidden, "Forbidden", "")
		res = w.req("DELETE", "/v1/lines/"+public["id"].(string), nil, ann.Token)
		require.Equal(t, http.StatusOK, res.Status, res.String())
		assert.Equal(t, 1.0, w.totalLines(t, book), "a club line never counted in the book")
	})
	t.Run("club lines page newest first without skips or repeats", func(t *testing.T) {
		var posted []string
		for i := range 5 {
			res := w.post("/v1/lines", map[string]any{"bookId": w.books[i%3], "content": fmt.Sprintf("club line %d", i), "clubId": closed}, pam.Token)
			require.Equal(t, http.StatusCreated, res.Status, res.String())
			posted = append([]string{res.JSON["id"].(string)}, posted...)
		}
		posted = append(posted, secret["id"].(string))
		var got []string
		path := "/v1/lines/club/" + closed + "?limit=4"
		for {
			res := w.req("GET", path, nil, ann.Token)
			require.Equal(t, http.StatusOK, res.Status, res.String())
			got = append(got, lineIDs(res)...)
			if res.JSON["nextCursor"] == nil {
				break
			}
			path = "/v1/lines/club/" + closed + "?limit=4&cursor=" + url.QueryEscape(res.JSON["nextCursor"].(string))
		}
		assert.Equal(t, posted, got)
		res := w.req("GET", "/v1/lines/club/"+closed+"?limit=1", nil, ann.Token)
		cursor := res.JSON["nextCursor"].(string)
		testenv.AssertError(t, w.req("GET", "/v1/lines/club/"+open+"?cursor="+url.QueryEscape(cursor), nil, ann.Token), http.StatusBadRequest, "ValidationError", "Invalid cursor")
	})
}

func TestLines_InChallenges(t *testing.T) {
	w := newWorld(t)
	pam, ann, bob := w.signup(t, "pam"), w.signup(t, "ann"), w.signup(t, "bob")
	w.SetTier(t, pam, users.TierPremium)
	res := w.req("POST", "/v1/challenges", map[string]any{"name": "Spring", "goal": 3, "startDate": "2026-03-01", "endDate": "2026-05-31"}, pam.Token)
	require.Equal(t, http.StatusCreated, res.Status, res.String())
	id := res.JSON["id"].(string)
	require.Equal(t, http.StatusCreated, w.req("POST", "/v1/challenges/"+id+"/join", nil, ann.Token).Status)
	book := w.books[0]

	res = w.post("/v1/lines", map[string]any{"bookId": book, "content": "One down.", "challengeId": id}, ann.Token)
	require.Equal(t, http.StatusCreated, res.Status, res.String())
	l := res.JSON
	assert.Equal(t, id, l["challengeId"])

	t.Run("posting needs participation: 403 otherwise, 404 for an unknown challenge", func(t *testing.T) {
		res := w.post("/v1/lines", map[string]any{"bookId": book, "content": "Me too.", "challengeId": id}, bob.Token)
		testenv.AssertError(t, res, http.StatusForbidden, "Forbidden", challenges.ErrParticipantsOnly.Message)
		res = w.post("/v1/lines", map[string]any{"bookId": book, "content": "Which?", "challengeId": unknownID}, ann.Token)
		testenv.AssertError(t, res, http.StatusNotFound, "NotFound", "Challenge not found")
		assert.Equal(t, 1.0, w.totalLines(t, book))
	})
	t.Run("GET /lines/challenge/{id} lists it; it is also the book's and the author's", func(t *testing.T) {
		res := w.req("GET", "/v1/lines/challenge/"+id, nil, bob.Token)
		require.Equal(t, http.StatusOK, res.Status, res.String())
		require.Equal(t, []string{l["id"].(string)}, lineIDs(res))
		item := res.JSON["items"].([]any)[0].(map[string]any)
		assert.Equal(t, map[string]any{"title": "Harry Potter", "authors": []any{"J. K. Rowling"}, "coverUrl": "https://covers.openlibrary.org/b/isbn/9780306406157-L.jpg"}, item["book"])
		assert.Equal(t, l["user"], item["user"])
		assert.Equal(t, []string{l["id"].(string)}, lineIDs(w.req("GET", "/v1/books/"+book+"/lines", nil, "")))
		assert.Equal(t, []string{l["id"].(string)}, lineIDs(w.req("GET", "/v1/users/ann/lines", nil, "")))
	})
	t.Run("unknown challenge is 404, no token 401", func(t *testing.T) {
		testenv.AssertError(t, w.req("GET", "/v1/lines/challenge/"+unknownID, nil, bob.Token), http.StatusNotFound, "NotFound", "Challenge not found")
		testenv.AssertError(t, w.req("GET", "/v1/lines/challenge/x", nil, bob.Token), http.StatusNotFound, "NotFound", "Challenge not found")
		testenv.AssertError(t, w.req("GET", "/v1/lines/challenge/"+id, nil, ""), http.StatusUnauthorized, "Unauthorized", "")
	})
}

// likeLookups counts the like keys the service reads in batches
// (dynamo.LikeKey): each costs a read whether the like exists or not.
type likeLookups struct {
	mu sync.Mutex
	n  int
}

func (l *likeLookups) middleware(stack *middleware.Stack) error {
	return stack.Initialize.Add(middleware.InitializeMiddlewareFunc("LikeLookups",
		func(ctx context.Context, in middleware.InitializeInput, next middleware.InitializeHandler) (middleware.InitializeOutput, middleware.Metadata, error) {
			if b, ok := in.Parameters.(*dynamodb.BatchGetItemInput); ok {
				for _, ka := range b.RequestItems {
					for _, k := range ka.Keys {
						if sk, ok := k[dynamo.AttrSK].(*types.AttributeValueMemberS); ok && strings.HasPrefix(sk.Value, dynamo.LikeKey(dynamo.Key{}, "").SK) {
							l.mu.Lock()
							l.n++
							l.mu.Unlock()
						}
					}
				}
			}
			return next.HandleInitialize(ctx, in)
		}), middleware.After)
}

func (l *likeLookups) reset() {
	l.mu.Lock()
	l.n = 0
	l.mu.Unlock()
}

func (l *likeLookups) count() int {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.n
}
