package reviewsapi_test

import (
	"fmt"
	"net/http"
	"net/url"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/bookplatform/backend/local/testenv"
	"github.com/bookplatform/backend/shared/books"
	"github.com/bookplatform/backend/shared/config"
	"github.com/bookplatform/backend/shared/dynamo"
	"github.com/bookplatform/backend/shared/users"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func TestMain(m *testing.M) { testenv.Main(m) }

// world is a test environment with a fake clock and a small catalog. A
// review write moves the clock on 13 minutes, any other request a little
// over a second, so the order of reviews in time is the order of the
// test's writes. Access tokens live for weeks so the moving clock never
// expires them. Rate limits are off unless the world is made with
// testenv.WithRateLimits (TestReviews_RateLimits).
type world struct {
	*testenv.Env
	clock *testenv.Clock
	books []string // ids of catalog, in order
}

var catalog = []books.Record{
	{ISBN: "0-306-40615-2", Title: "Harry Potter", Authors: []string{"J. K. Rowling"}, Language: "en"},
	{ISBN: "9780439785969", Title: "Harry Potter and the Philosopher's Stone", Authors: []string{"J. K. Rowling"}, Language: "en"},
	{ISBN: "978-0-7475-3269-9", Title: "Harry Potter and the Chamber of Secrets", Authors: []string{"J. K. Rowling"}, Language: "en"},
	{ISBN: "0-8044-2957-X", Title: "Potter Meets Harry", Authors: []string{"Anon Writer"}, Language: "en"},
	{ISBN: "9780060935467", Title: "The Potter's Field", Authors: []string{"Harry Bosch"}, Language: "en"},
	{ISBN: "9780451524935", Title: "Cien años de soledad", Authors: []string{"Gabriel García Márquez"}, Language: "es"},
	{ISBN: "9780198534532", Title: "The Hobbit", Authors: []string{"J. R. R. Tolkien"}, Language: "en"},
	{ISBN: "9780261103573", Title: "The Lord of the Rings", Authors: []string{"J. R. R. Tolkien"}, Language: "en"},
}

func newWorld(t *testing.T, opts ...testenv.Option) *world {
	t.Helper()
	opts = append([]testenv.Option{
		testenv.WithConfig(func(c *config.Config) {
			c.AccessTokenTTL, c.RefreshTokenTTL = 60*24*time.Hour, 90*24*time.Hour
		}),
	}, opts...)
	p := testenv.NewPaced(t, opts...)
	w := &world{Env: p.Env, clock: p.Clock}
	w.books = w.ImportBooks(t, catalog...)
	return w
}

func (w *world) signup(t *testing.T, username string) testenv.Account {
	t.Helper()
	w.clock.Advance(1100 * time.Millisecond)
	return w.Signup(t, username)
}

// do sends a request that is not a review write.
func (w *world) do(method, path string, body any, token string) *testenv.Response {
	w.clock.Advance(1100 * time.Millisecond)
	return w.Do(method, path, body, token)
}

// write sends a review write (POST or PUT), spaced for create_review.
func (w *world) write(method, path string, body any, token string) *testenv.Response {
	w.clock.Advance(13 * time.Minute)
	return w.Do(method, path, body, token)
}

// review posts a review and requires the given status.
func (w *world) review(t *testing.T, a testenv.Account, bookID string, rating int, content string, want int) map[string]any {
	t.Helper()
	res := w.write("POST", "/v1/reviews", map[string]any{"bookId": bookID, "rating": rating, "content": content}, a.Token)
	require.Equal(t, want, res.Status, res.String())
	return res.JSON
}

// bookReviews reads a page of a book's review list.
func (w *world) bookReviews(t *testing.T, bookID, query, token string) *testenv.Response {
	t.Helper()
	path := "/v1/books/" + bookID + "/reviews"
	if query != "" {
		path += "?" + query
	}
	return w.do("GET", path, nil, token)
}

func items(t *testing.T, res *testenv.Response) []map[string]any {
	t.Helper()
	require.Equal(t, http.StatusOK, res.Status, res.String())
	var out []map[string]any
	for _, it := range res.JSON["items"].([]any) {
		out = append(out, it.(map[string]any))
	}
	return out
}

func ids(list []map[string]any) []string {
	out := make([]string, len(list))
	for i, it := range list {
		out[i] = it["id"].(string)
	}
	return out
}

// stats is what GET /books/{id}/reviews reports beside the items.
type stats struct {
	average      float64
	total        int
	distribution map[string]int
}

func (w *world) stats(t *testing.T, bookID string) stats {
	t.Helper()
	res := w.bookReviews(t, bookID, "limit=1", "")
	require.Equal(t, http.StatusOK, res.Status, res.String())
	s := stats{average: res.JSON["averageRating"].(float64), total: int(res.JSON["totalReviews"].(float64)), distribution: map[string]int{}}
	for k, v := range res.JSON["ratingDistribution"].(map[string]any) {
		s.distribution[k] = int(v.(float64))
	}
	// The book itself reports the same figures.
	book := w.do("GET", "/v1/books/"+bookID, nil, "")
	require.Equal(t, http.StatusOK, book.Status, book.String())
	assert.Equal(t, s.average, book.JSON["averageRating"])
	assert.EqualValues(t, s.total, book.JSON["totalReviews"])
	return s
}

func dist(five, four, three, two, one int) map[string]int {
	return map[string]int{"5": five, "4": four, "3": three, "2": two, "1": one}
}

func TestReviews_Create(t *testing.T) {
	w := newWorld(t)
	ann := w.signup(t, "ann")
	book := w.books[0]

	res := w.write("POST", "/v1/reviews", map[string]any{"bookId": book, "rating": 4, "content": "  A fine start.  "}, ann.Token)
	require.Equal(t, http.StatusCreated, res.Status, res.String())
	r := res.JSON
	for _, f := range []string{"id", "userId", "user", "bookId", "book", "rating", "content", "likeCount", "isLiked", "createdAt", "updatedAt"} {
		assert.Contains(t, r, f)
	}
	assert.Equal(t, ann.ID, r["userId"])
	assert.Equal(t, book, r["bookId"])
	assert.EqualValues(t, 4, r["rating"])
	assert.Equal(t, "A fine start.", r["content"], "trimmed")
	assert.EqualValues(t, 0, r["likeCount"])
	assert.Equal(t, false, r["isLiked"])
	assert.Equal(t, r["createdAt"], r["updatedAt"])
	assert.Equal(t, map[string]any{"id": ann.ID, "username": "ann", "displayName": "Reader ann", "avatarUrl": nil}, r["user"])
	assert.Equal(t, map[string]any{
		"id": book, "isbn": "9780306406157", "title": "Harry Potter", "authors": []any{"J. K. Rowling"},
		"coverUrl": "https://covers.openlibrary.org/b/isbn/9780306406157-L.jpg",
	}, r["book"])

	t.Run("the reviews quota is reported", func(t *testing.T) {
		assert.Equal(t, "50", res.Header.Get("X-Monthly-Limit"))
		assert.Equal(t, "49", res.Header.Get("X-Monthly-Remaining"))
		assert.Equal(t, "2026-04-01T00:00:00Z", res.Header.Get("X-Monthly-Reset"))
		assert.EqualValues(t, 1, w.Item(t, dynamo.UserKey(ann.ID))["monthlyReviews"])
	})
	t.Run("the book counts it", func(t *testing.T) {
		assert.Equal(t, stats{average: 4, total: 1, distribution: dist(0, 1, 0, 0, 0)}, w.stats(t, book))
		stored := w.Item(t, dynamo.BookKey(book))
		assert.EqualValues(t, 4, stored["ratingSum"])
		assert.EqualValues(t, 1, stored["rating4"])
	})
	t.Run("the author can read it back", func(t *testing.T) {
		got := w.do("GET", "/v1/reviews/"+r["id"].(string), nil, ann.Token)
		require.Equal(t, http.StatusOK, got.Status, got.String())
		assert.Equal(t, r, got.JSON)
	})
	t.Run("an empty content is a rating alone", func(t *testing.T) {
		got := w.review(t, ann, w.books[1], 5, "", http.StatusCreated)
		assert.Equal(t, "", got["content"])
	})

	errorCases := []struct {
		name   string
		body   any
		token  string
		status int
		field  string
	}{
		{"no token is 401", map[string]any{"bookId": book, "rating": 3}, "", http.StatusUnauthorized, ""},
		{"unknown book is 404", map[string]any{"bookId": "00000000-0000-4000-8000-000000000000", "rating": 3}, ann.Token, http.StatusNotFound, ""},
		{"missing bookId is 400", map[string]any{"rating": 3}, ann.Token, http.StatusBadRequest, "bookId"},
		{"bookId not a UUID is 400", map[string]any{"bookId": "harry-potter", "rating": 3}, ann.Token, http.StatusBadRequest, "bookId"},
		{"content over 5000 characters is 400", map[string]any{"bookId": w.books[2], "rating": 3, "content": strings.Repeat("é", 5001)}, ann.Token, http.StatusBadRequest, "content"},
		{"content not a string is 400", map[string]any{"bookId": w.books[2], "rating": 3, "content": 42}, ann.Token, http.StatusBadRequest, "content"},
		{"malformed JSON is 400", `{"bookId":`, ann.Token, http.StatusBadRequest, ""},
	}
	for _, tc := range errorCases {
		t.Run(tc.name, func(t *testing.T) {
			res := w.write("POST", "/v1/reviews", tc.body, tc.token)
			require.Equal(t, tc.status, res.Status, res.String())
			if tc.field != "" {
				assert.Contains(t, testenv.ErrorOf(t, res)["details"].(map[string]any)["fields"], tc.field)
			}
		})
	}
	t.Run("refused posts stored nothing", func(t *testing.T) {
		assert.EqualValues(t, 2, w.Item(t, dynamo.UserKey(ann.ID))["monthlyReviews"])
		assert.Equal(t, 0, w.stats(t, w.books[2]).total)
	})
}

func TestReviews_RatingMustBeAnIntegerFrom1To5(t *testing.T) {
	w := newWorld(t)
	ann := w.signup(t, "ann")
	book := w.books[0]
	for _, tc := range []struct {
		name string
		body string
	}{
		{"2.5", `{"bookId":"%s","rating":2.5}`},
		{`"5" as a string`, `{"bookId":"%s","rating":"5"}`},
		{"0", `{"bookId":"%s","rating":0}`},
		{"6", `{"bookId":"%s","rating":6}`},
		{"-1", `{"bookId":"%s","rating":-1}`},
		{"5.0", `{"bookId":"%s","rating":5.0}`},
		{"5e0", `{"bookId":"%s","rating":5e0}`},
		{"true", `{"bookId":"%s","rating":true}`},
		{"a list", `{"bookId":"%s","rating":[5]}`},
		{"missing", `{"bookId":"%s"}`},
		{"null", `{"bookId":"%s","rating":null}`},
	} {
		t.Run(tc.name+" is 400", func(t *testing.T) {
			res := w.write("POST", "/v1/reviews", fmt.Sprintf(tc.body, book), ann.Token)
			require.Equal(t, http.StatusBadRequest, res.Status, res.String())
			e := testenv.ErrorOf(t, res)
			assert.Equal(t, "ValidationError", e["name"])
			assert.Contains(t, e["details"].(map[string]any)["fields"], "rating")
		})
	}
	assert.Equal(t, 0, w.stats(t, book).total, "nothing was stored")
	for i, rating := range []int{1, 5} {
		w.review(t, ann, w.books[i+1], rating, "", http.StatusCreated)
	}
}

func TestReviews_PostAgainUpdatesTheSameReview(t *testing.T) {
	w := newWorld(t)
	ann := w.signup(t, "ann")
	bob := w.signup(t, "bob")
	book := w.books[0]
	first := w.review(t, ann, book, 4, "Good.", http.StatusCreated)
	w.review(t, bob, book, 2, "Meh.", http.StatusCreated)
	require.Equal(t, stats{average: 3, total: 2, distribution: dist(0, 1, 0, 1, 0)}, w.stats(t, book))

	res := w.write("POST", "/v1/reviews", map[string]any{"bookId": book, "rating": 1, "content": "On second thought, poor."}, ann.Token)
	require.Equal(t, http.StatusOK, res.Status, "an update answers 200: %s", res.String())
	again := res.JSON
	assert.Equal(t, first["id"], again["id"], "same review")
	assert.Equal(t, first["createdAt"], again["createdAt"])
	assert.NotEqual(t, first["updatedAt"], again["updatedAt"])
	assert.EqualValues(t, 1, again["rating"])
	assert.Equal(t, "On second thought, poor.", again["content"])

	assert.Equal(t, stats{average: 1.5, total: 2, distribution: dist(0, 0, 0, 1, 1)}, w.stats(t, book), "moved from 4 to 1, not counted twice")
	assert.EqualValues(t, 1, w.Item(t, dynamo.UserKey(ann.ID))["monthlyReviews"], "an update is not charged")
	assert.Equal(t, "49", res.Header.Get("X-Monthly-Remaining"))
	assert.Len(t, items(t, w.bookReviews(t, book, "", "")), 2)

	t.Run("the same rating and content again changes nothing", func(t *testing.T) {
		res := w.write("POST", "/v1/reviews", map[string]any{"bookId": book, "rating": 1, "content": "On second thought, poor."}, ann.Token)
		require.Equal(t, http.StatusOK, res.Status, res.String())
		assert.Equal(t, again, res.JSON)
	})
}

func TestReviews_ConcurrentPostsBySameUserMakeOneReview(t *testing.T) {
	w := newWorld(t)
	ann := w.signup(t, "ann")
	book := w.books[0]
	const n = 5 // create_review allows 5 an hour
	results := make([]*testenv.Response, n)
	var wg sync.WaitGroup
	for i := range n {
		wg.Add(1)
		go func() {
			defer wg.Done()
			results[i] = w.Do("POST", "/v1/reviews", map[string]any{"bookId": book, "rating": i + 1}, ann.Token)
		}()
	}
	wg.Wait()
	created, updated := 0, 0
	reviewIDs := map[string]bool{}
	for _, res := range results {
		switch res.Status {
		case http.StatusCreated:
			created++
		case http.StatusOK:
			updated++
		default:
			t.Errorf("unexpected answer %s", res.String())
			continue
		}
		reviewIDs[res.JSON["id"].(string)] = true
	}
	assert.Equal(t, 1, created)
	assert.Equal(t, n-1, updated)
	assert.Len(t, reviewIDs, 1, "one review")

	list := items(t, w.bookReviews(t, book, "", ""))
	require.Len(t, list, 1)
	rating := int(list[0]["rating"].(float64))
	want := dist(0, 0, 0, 0, 0)
	want[fmt.Sprint(rating)] = 1
	assert.Equal(t, stats{average: float64(rating), total: 1, distribution: want}, w.stats(t, book))
	assert.EqualValues(t, 1, w.Item(t, dynamo.UserKey(ann.ID))["monthlyReviews"])
}

func TestReviews_Get(t *testing.T) {
	w := newWorld(t)
	ann := w.signup(t, "ann")
	bob := w.signup(t, "bob")
	id := w.review(t, ann, w.books[0], 5, "Loved it.", http.StatusCreated)["id"].(string)

	res := w.do("GET", "/v1/reviews/"+id, nil, bob.Token)
	require.Equal(t, http.StatusOK, res.Status, res.String())
	assert.Equal(t, id, res.JSON["id"])
	assert.Equal(t, false, res.JSON["isLiked"])

	require.Equal(t, http.StatusOK, w.do("POST", "/v1/reviews/"+id+"/like", nil, bob.Token).Status)
	res = w.do("GET", "/v1/reviews/"+id, nil, bob.Token)
	assert.Equal(t, true, res.JSON["isLiked"], "bob's like, read at once")
	assert.EqualValues(t, 1, res.JSON["likeCount"])
	res = w.do("GET", "/v1/reviews/"+id, nil, ann.Token)
	assert.Equal(t, false, res.JSON["isLiked"], "isLiked is the caller's own")

	for name, path := range map[string]string{
		"unknown id is 404":         "/v1/reviews/00000000-0000-4000-8000-000000000000",
		"an id not a UUID is 404":   "/v1/reviews/not-a-uuid",
		"a book id is not a review": "/v1/reviews/" + w.books[0],
	} {
		t.Run(name, func(t *testing.T) {
			res := w.do("GET", path, nil, bob.Token)
			assert.Equal(t, http.StatusNotFound, res.Status, res.String())
			assert.Equal(t, "Review not found", testenv.ErrorOf(t, res)["message"])
		})
	}
	t.Run("no token is 401", func(t *testing.T) {
		assert.Equal(t, http.StatusUnauthorized, w.do("GET", "/v1/reviews/"+id, nil, "").Status)
	})
}

func TestReviews_Update(t *testing.T) {
	w := newWorld(t)
	ann := w.signup(t, "ann")
	bob := w.signup(t, "bob")
	book := w.books[0]
	created := w.review(t, ann, book, 2, "Slow.", http.StatusCreated)
	id := created["id"].(string)
	other := w.review(t, bob, book, 3, "Fine.", http.StatusCreated)["id"].(string)
	require.Equal(t, []string{other, id}, ids(items(t, w.bookReviews(t, book, "sort=rating", ""))))

	res := w.write("PUT", "/v1/reviews/"+id, map[string]any{"rating": 5, "content": "It grew on me."}, ann.Token)
	require.Equal(t, http.StatusOK, res.Status, res.String())
	for _, f := range []string{"id", "userId", "bookId", "rating", "content", "likeCount", "isLiked", "createdAt", "updatedAt"} {
		assert.Contains(t, res.JSON, f)
	}
	assert.NotContains(t, res.JSON, "user", "the edit answer lists the review's own fields")
	assert.EqualValues(t, 5, res.JSON["rating"])
	assert.Equal(t, "It grew on me.", res.JSON["content"])
	assert.Equal(t, created["createdAt"], res.JSON["createdAt"])
	assert.NotEqual(t, created["updatedAt"], res.JSON["updatedAt"])

	assert.Equal(t, stats{average: 4, total: 2, distribution: dist(1, 0, 1, 0, 0)}, w.stats(t, book))
	assert.Equal(t, []string{id, other}, ids(items(t, w.bookReviews(t, book, "sort=rating", ""))), "moved up in the rating order")
	assert.Equal(t, []string{other, id}, ids(items(t, w.bookReviews(t, book, "", ""))), "the recent order is by creation")

	t.Run("a field left out keeps its value", func(t *testing.T) {
		res := w.write("PUT", "/v1/reviews/"+id, map[string]any{"content": "Changed my words only."}, ann.Token)
		require.Equal(t, http.StatusOK, res.Status, res.String())
		assert.EqualValues(t, 5, res.JSON["rating"])
		res = w.write("PUT", "/v1/reviews/"+id, map[string]any{"rating": 4}, ann.Token)
		require.Equal(t, http.StatusOK, res.Status, res.String())
		assert.Equal(t, "Changed my words only.", res.JSON["content"])
		assert.Equal(t, stats{average: 3.5, total: 2, distribution: dist(0, 1, 1, 0, 0)}, w.stats(t, book))
	})
	t.Run("isLiked is the author's own", func(t *testing.T) {
		require.Equal(t, http.StatusOK, w.do("POST", "/v1/reviews/"+id+"/like", nil, ann.Token).Status)
		res := w.write("PUT", "/v1/reviews/"+id, map[string]any{"content": "Liked by me."}, ann.Token)
		require.Equal(t, http.StatusOK, res.Status, res.String())
		assert.Equal(t, true, res.JSON["isLiked"])
		assert.EqualValues(t, 1, res.JSON["likeCount"])
	})

	for _, tc := range []struct {
		name   string
		id     string
		body   any
		token  string
		status int
	}{
		{"another user is 403", id, map[string]any{"rating": 1}, bob.Token, http.StatusForbidden},
		{"unknown id is 404", "00000000-0000-4000-8000-000000000000", map[string]any{"rating": 1}, ann.Token, http.StatusNotFound},
		{"id not a UUID is 404", "nope", map[string]any{"rating": 1}, ann.Token, http.StatusNotFound},
		{"rating 2.5 is 400", id, map[string]any{"rating": 2.5}, ann.Token, http.StatusBadRequest},
		{"rating 0 is 400", id, map[string]any{"rating": 0}, ann.Token, http.StatusBadRequest},
		{"rating null is 400", id, `{"rating":null}`, ann.Token, http.StatusBadRequest},
		{"rating as a string is 400", id, `{"rating":"4"}`, ann.Token, http.StatusBadRequest},
		{"content too long is 400", id, map[string]any{"content": strings.Repeat("x", 5001)}, ann.Token, http.StatusBadRequest},
		{"no token is 401", id, map[string]any{"rating": 1}, "", http.StatusUnauthorized},
	} {
		t.Run(tc.name, func(t *testing.T) {
			res := w.write("PUT", "/v1/reviews/"+tc.id, tc.body, tc.token)
			assert.Equal(t, tc.status, res.Status, res.String())
		})
	}
	t.Run("refused changes changed nothing", func(t *testing.T) {
		assert.Equal(t, stats{average: 3.5, total: 2, distribution: dist(0, 1, 1, 0, 0)}, w.stats(t, book))
	})
}

func TestReviews_Delete(t *testing.T) {
	w := newWorld(t)
	ann := w.signup(t, "ann")
	bob := w.signup(t, "bob")
	cat := w.signup(t, "cat")
	book := w.books[0]
	id := w.review(t, ann, book, 5, "Great.", http.StatusCreated)["id"].(string)
	w.review(t, bob, book, 3, "Okay.", http.StatusCreated)
	for _, a := range []testenv.Account{bob, cat} {
		require.Equal(t, http.StatusOK, w.do("POST", "/v1/reviews/"+id+"/like", nil, a.Token).Status)
	}
	require.NotNil(t, w.Item(t, dynamo.LikeKey(dynamo.ReviewKey(id), bob.ID)))

	res := w.do("DELETE", "/v1/reviews/"+id, nil, bob.Token)
	assert.Equal(t, http.StatusForbidden, res.Status, "not the author: %s", res.String())
	assert.Equal(t, http.StatusUnauthorized, w.do("DELETE", "/v1/reviews/"+id, nil, "").Status)

	res = w.do("DELETE", "/v1/reviews/"+id, nil, ann.Token)
	require.Equal(t, http.StatusOK, res.Status, res.String())
	assert.Equal(t, true, res.JSON["success"])
	assert.NotEmpty(t, res.JSON["message"])

	assert.Equal(t, http.StatusNotFound, w.do("GET", "/v1/reviews/"+id, nil, ann.Token).Status)
	assert.Nil(t, w.Item(t, dynamo.LikeKey(dynamo.ReviewKey(id), bob.ID)), "likes are deleted with the review")
	assert.Nil(t, w.Item(t, dynamo.LikeKey(dynamo.ReviewKey(id), cat.ID)))
	assert.Equal(t, stats{average: 3, total: 1, distribution: dist(0, 0, 1, 0, 0)}, w.stats(t, book))
	assert.Len(t, items(t, w.bookReviews(t, book, "", "")), 1)
	assert.Empty(t, items(t, w.do("GET", "/v1/users/ann/reviews", nil, "")))

	for name, rid := range map[string]string{"again is 404": id, "unknown id is 404": "00000000-0000-4000-8000-000000000000", "id not a UUID is 404": "x"} {
		t.Run(name, func(t *testing.T) {
			assert.Equal(t, http.StatusNotFound, w.do("DELETE", "/v1/reviews/"+rid, nil, ann.Token).Status)
		})
	}
	t.Run("liking the deleted review is 404", func(t *testing.T) {
		assert.Equal(t, http.StatusNotFound, w.do("POST", "/v1/reviews/"+id+"/like", nil, cat.Token).Status)
	})
	t.Run("the author may review the book again, as a new review", func(t *testing.T) {
		again := w.review(t, ann, book, 4, "Re-read it.", http.StatusCreated)
		assert.NotEqual(t, id, again["id"])
		assert.Equal(t, stats{average: 3.5, total: 2, distribution: dist(0, 1, 1, 0, 0)}, w.stats(t, book))
	})
}

func TestReviews_Like(t *testing.T) {
	w := newWorld(t)
	ann := w.signup(t, "ann")
	bob := w.signup(t, "bob")
	id := w.review(t, ann, w.books[0], 4, "", http.StatusCreated)["id"].(string)
	path := "/v1/reviews/" + id + "/like"

	res := w.do("POST", path, nil, bob.Token)
	require.Equal(t, http.StatusOK, res.Status, res.String())
	assert.Equal(t, map[string]any{"success": true, "likeCount": float64(1), "isLiked": true}, res.JSON)

	res = w.do("POST", path, nil, bob.Token)
	require.Equal(t, http.StatusBadRequest, res.Status, res.String())
	assert.Equal(t, "Already liked", testenv.ErrorOf(t, res)["message"])
	assert.Equal(t, "ValidationError", testenv.ErrorOf(t, res)["name"])

	res = w.do("DELETE", path, nil, bob.Token)
	require.Equal(t, http.StatusOK, res.Status, res.String())
	assert.Equal(t, map[string]any{"success": true, "likeCount": float64(0), "isLiked": false}, res.JSON)

	res = w.do("DELETE", path, nil, bob.Token)
	require.Equal(t, http.StatusBadRequest, res.Status, res.String())
	assert.Equal(t, "Not liked", testenv.ErrorOf(t, res)["message"])

	for _, method := range []string{"POST", "DELETE"} {
		t.Run(method+" on an unknown review is 404", func(t *testing.T) {
			assert.Equal(t, http.StatusNotFound, w.do(method, "/v1/reviews/00000000-0000-4000-8000-000000000000/like", nil, bob.Token).Status)
			assert.Equal(t, http.StatusNotFound, w.do(method, "/v1/reviews/nope/like", nil, bob.Token).Status)
		})
		t.Run(method+" without a token is 401", func(t *testing.T) {
			assert.Equal(t, http.StatusUnauthorized, w.do(method, path, nil, "").Status)
		})
	}
	assert.EqualValues(t, 0, w.do("GET", "/v1/reviews/"+id, nil, ann.Token).JSON["likeCount"])
}

func TestReviews_ConcurrentLikes(t *testing.T) {
	w := newWorld(t)
	author := w.signup(t, "author")
	id := w.review(t, author, w.books[0], 5, "", http.StatusCreated)["id"].(string)
	path := "/v1/reviews/" + id + "/like"

	t.Run("many users at once all count", func(t *testing.T) {
		const n = 12
		likers := make([]testenv.Account, n)
		for i := range likers {
			likers[i] = w.signup(t, fmt.Sprintf("liker_%d", i))
		}
		statuses := make([]int, n)
		var wg sync.WaitGroup
		for i, a := range likers {
			wg.Add(1)
			go func() {
				defer wg.Done()
				statuses[i] = w.Do("POST", path, nil, a.Token).Status
			}()
		}
		wg.Wait()
		for _, s := range statuses {
			assert.Equal(t, http.StatusOK, s)
		}
		assert.EqualValues(t, n, w.do("GET", "/v1/reviews/"+id, nil, author.Token).JSON["likeCount"])
	})

	t.Run("one user tapping many times at once counts once", func(t *testing.T) {
		eve := w.signup(t, "eve")
		before := int(w.do("GET", "/v1/reviews/"+id, nil, eve.Token).JSON["likeCount"].(float64))
		const n = 6
		statuses := make([]int, n)
		var wg sync.WaitGroup
		for i := range n {
			wg.Add(1)
			go func() {
				defer wg.Done()
				statuses[i] = w.Do("POST", path, nil, eve.Token).Status
			}()
		}
		wg.Wait()
		slices.Sort(statuses)
		assert.Equal(t, []int{200, 400, 400, 400, 400, 400}, statuses)
		res := w.do("GET", "/v1/reviews/"+id, nil, eve.Token)
		assert.EqualValues(t, before+1, res.JSON["likeCount"])
		assert.Equal(t, true, res.JSON["isLiked"])
	})
}

func TestReviews_BookStatisticsStayExact(t *testing.T) {
	w := newWorld(t)
	book := w.books[3]
	readers := make([]testenv.Account, 6)
	for i := range readers {
		readers[i] = w.signup(t, fmt.Sprintf("reader_%d", i))
	}
	assert.Equal(t, stats{average: 0, total: 0, distribution: dist(0, 0, 0, 0, 0)}, w.stats(t, book), "no reviews yet")

	reviewIDs := make([]string, len(readers))
	for i, rating := range []int{5, 4, 4, 3, 1, 5} {
		reviewIDs[i] = w.review(t, readers[i], book, rating, "", http.StatusCreated)["id"].(string)
	}
	assert.Equal(t, stats{average: 3.67, total: 6, distribution: dist(2, 2, 1, 0, 1)}, w.stats(t, book), "22/6 rounded to 2 decimals")

	require.Equal(t, http.StatusOK, w.write("PUT", "/v1/reviews/"+reviewIDs[4], map[string]any{"rating": 2}, readers[4].Token).Status)
	w.review(t, readers[1], book, 5, "", http.StatusOK) // 4 -> 5 by posting again
	assert.Equal(t, stats{average: 4, total: 6, distribution: dist(3, 1, 1, 1, 0)}, w.stats(t, book))

	require.Equal(t, http.StatusOK, w.do("DELETE", "/v1/reviews/"+reviewIDs[0], nil, readers[0].Token).Status)
	require.Equal(t, http.StatusOK, w.do("DELETE", "/v1/reviews/"+reviewIDs[3], nil, readers[3].Token).Status)
	assert.Equal(t, stats{average: 4, total: 4, distribution: dist(2, 1, 0, 1, 0)}, w.stats(t, book))

	stored := w.Item(t, dynamo.BookKey(book))
	assert.EqualValues(t, 16, stored["ratingSum"])
	assert.EqualValues(t, 4, stored["totalReviews"])

	t.Run("other books are untouched", func(t *testing.T) {
		assert.Equal(t, 0, w.stats(t, w.books[0]).total)
	})
	t.Run("a catalog re-import keeps the statistics", func(t *testing.T) {
		rec := catalog[3]
		rec.Title = "Potter Meets Harry (Revised)"
		res, err := w.App.Books.Import(t.Context(), []books.Record{rec})
		require.NoError(t, err)
		require.Equal(t, 1, res.Updated)
		assert.Equal(t, stats{average: 4, total: 4, distribution: dist(2, 1, 0, 1, 0)}, w.stats(t, book))
	})
}

func TestReviews_ListByBook(t *testing.T) {
	w := newWorld(t)
	book := w.books[0]
	ratings := []int{3, 5, 4, 5, 1, 4}
	readers := make([]testenv.Account, len(ratings))
	posted := make([]string, len(ratings)) // oldest first
	for i, rating := range ratings {
		readers[i] = w.signup(t, fmt.Sprintf("reader_%d", i))
		posted[i] = w.review(t, readers[i], book, rating, fmt.Sprintf("Review %d", i), http.StatusCreated)["id"].(string)
	}
	newestFirst := slices.Clone(posted)
	slices.Reverse(newestFirst)
	byRating := []string{posted[3], posted[1], posted[5], posted[2], posted[0], posted[4]} // 5,5,4,4,3,1, newer first on ties

	t.Run("recent is the default, newest first", func(t *testing.T) {
		res := w.bookReviews(t, book, "", "")
		list := items(t, res)
		assert.Equal(t, newestFirst, ids(list))
		assert.Nil(t, res.JSON["nextCursor"])
		assert.Equal(t, false, res.JSON["hasMore"])
		assert.Equal(t, newestFirst, ids(items(t, w.bookReviews(t, book, "sort=recent", ""))))
		first := list[0]
		for _, f := range []string{"id", "userId", "user", "bookId", "book", "rating", "content", "likeCount", "isLiked", "createdAt", "updatedAt"} {
			assert.Contains(t, first, f)
		}
		assert.Equal(t, "reader_5", first["user"].(map[string]any)["username"])
		assert.Equal(t, "Harry Potter", first["book"].(map[string]any)["title"])
	})
	t.Run("rating is highest first, then newest", func(t *testing.T) {
		assert.Equal(t, byRating, ids(items(t, w.bookReviews(t, book, "sort=rating", ""))))
	})
	t.Run("statistics", func(t *testing.T) {
		res := w.bookReviews(t, book, "", "")
		assert.Equal(t, 3.67, res.JSON["averageRating"])
		assert.EqualValues(t, 6, res.JSON["totalReviews"])
		assert.Equal(t, map[string]any{"5": 2.0, "4": 2.0, "3": 1.0, "2": 0.0, "1": 1.0}, res.JSON["ratingDistribution"])
		assert.Contains(t, string(res.Body), `"ratingDistribution":{"5":2,"4":2,"3":1,"2":0,"1":1}`, "keyed 5 down to 1")
	})
	t.Run("pages of 4 then 2, the last with a null cursor", func(t *testing.T) {
		for _, sort := range []string{"recent", "rating"} {
			want := map[string][]string{"recent": newestFirst, "rating": byRating}[sort]
			res := w.bookReviews(t, book, "sort="+sort+"&limit=4", "")
			require.Equal(t, want[:4], ids(items(t, res)))
			cursor, ok := res.JSON["nextCursor"].(string)
			require.True(t, ok, "a next page")
			assert.Equal(t, true, res.JSON["hasMore"])
			res = w.bookReviews(t, book, "sort="+sort+"&limit=4&cursor="+url.QueryEscape(cursor), "")
			assert.Equal(t, want[4:], ids(items(t, res)))
			assert.Nil(t, res.JSON["nextCursor"])
		}
	})
	t.Run("a list ending on a page boundary has no further page", func(t *testing.T) {
		res := w.bookReviews(t, book, "limit=3", "")
		cursor := res.JSON["nextCursor"].(string)
		res = w.bookReviews(t, book, "limit=3&cursor="+url.QueryEscape(cursor), "")
		assert.Len(t, items(t, res), 3)
		assert.Nil(t, res.JSON["nextCursor"], "not a cursor to an empty page")
	})
	t.Run("isLiked for a signed-in caller", func(t *testing.T) {
		fan := w.signup(t, "fan")
		for _, id := range []string{posted[1], posted[4]} {
			require.Equal(t, http.StatusOK, w.do("POST", "/v1/reviews/"+id+"/like", nil, fan.Token).Status)
		}
		liked := map[string]bool{}
		for _, it := range items(t, w.bookReviews(t, book, "", fan.Token)) {
			liked[it["id"].(string)] = it["isLiked"].(bool)
		}
		assert.Equal(t, map[string]bool{posted[0]: false, posted[1]: true, posted[2]: false, posted[3]: false, posted[4]: true, posted[5]: false}, liked)
		for _, it := range items(t, w.bookReviews(t, book, "", "")) {
			assert.Equal(t, false, it["isLiked"], "anonymous")
		}
		for _, it := range items(t, w.bookReviews(t, book, "", readers[0].Token)) {
			assert.Equal(t, false, it["isLiked"], "someone who liked nothing")
		}
	})

	first := w.bookReviews(t, book, "limit=2", "")
	recentCursor := first.JSON["nextCursor"].(string)
	otherBookReader := readers[0]
	w.review(t, otherBookReader, w.books[1], 4, "", http.StatusCreated)
	w.review(t, readers[1], w.books[1], 4, "", http.StatusCreated)
	w.review(t, readers[2], w.books[1], 4, "", http.StatusCreated)
	otherBookCursor := w.bookReviews(t, w.books[1], "limit=2", "").JSON["nextCursor"].(string)
	tampered := []byte(recentCursor)
	tampered[3] ^= 1
	for _, tc := range []struct {
		name, book, query string
		status            int
	}{
		{"sort=bogus is 400", book, "sort=bogus", http.StatusBadRequest},
		{"sort=RATING is 400", book, "sort=RATING", http.StatusBadRequest},
		{"limit 0 is 400", book, "limit=0", http.StatusBadRequest},
		{"limit 101 is 400", book, "limit=101", http.StatusBadRequest},
		{"limit ten is 400", book, "limit=ten", http.StatusBadRequest},
		{"limit 100 is fine", book, "limit=100", http.StatusOK},
		{"a tampered cursor is 400", book, "cursor=" + url.QueryEscape(string(tampered)), http.StatusBadRequest},
		{"a garbage cursor is 400", book, "cursor=abc", http.StatusBadRequest},
		{"a recent cursor with sort=rating is 400", book, "sort=rating&cursor=" + url.QueryEscape(recentCursor), http.StatusBadRequest},
		{"another book's cursor is 400", book, "cursor=" + url.QueryEscape(otherBookCursor), http.StatusBadRequest},
		{"the cursor on its own list is fine", book, "cursor=" + url.QueryEscape(recentCursor), http.StatusOK},
		{"unknown book is 404", "00000000-0000-4000-8000-000000000000", "", http.StatusNotFound},
		{"a book id not a UUID is 404", "not-a-book", "", http.StatusNotFound},
	} {
		t.Run(tc.name, func(t *testing.T) {
			res := w.bookReviews(t, tc.book, tc.query, "")
			require.Equal(t, tc.status, res.Status, res.String())
			if tc.status == http.StatusBadRequest {
				assert.Equal(t, "ValidationError", testenv.ErrorOf(t, res)["name"])
			}
		})
	}
}

// pageAll follows nextCursor to the end, calling between after each page.
func (w *world) pageAll(t *testing.T, path string, limit int, between func(page int)) []string {
	t.Helper()
	var got []string
	cursor := ""
	for page := 0; ; page++ {
		require.Less(t, page, 50, "paging does not end")
		q := fmt.Sprintf("limit=%d", limit)
		sep := "?"
		if strings.Contains(path, "?") {
			sep = "&"
		}
		if cursor != "" {
			q += "&cursor=" + url.QueryEscape(cursor)
		}
		res := w.do("GET", path+sep+q, nil, "")
		got = append(got, ids(items(t, res))...)
		next, ok := res.JSON["nextCursor"].(string)
		if !ok {
			return got
		}
		cursor = next
		between(page)
	}
}

func TestReviews_PagingNeitherSkipsNorRepeatsWhileOthersPost(t *testing.T) {
	w := newWorld(t)
	book := w.books[2]
	ratings := []int{5, 3, 4, 5, 2, 4, 1, 3, 5}
	type posted struct {
		id     string
		rating int
		seq    int
	}
	var before []posted
	for i, rating := range ratings {
		a := w.signup(t, fmt.Sprintf("early_%d", i))
		before = append(before, posted{w.review(t, a, book, rating, "", http.StatusCreated)["id"].(string), rating, i})
	}
	late := 0
	postMore := func(int) {
		// A top rating lands before the cursor, a bottom one after it.
		for _, rating := range []int{5, 1} {
			a := w.signup(t, fmt.Sprintf("late_%d", late))
			late++
			w.review(t, a, book, rating, "", http.StatusCreated)
		}
	}
	origin := map[string]bool{}
	for _, p := range before {
		origin[p.id] = true
	}
	onlyOriginal := func(got []string) []string {
		var out []string
		for _, id := range got {
			if origin[id] {
				out = append(out, id)
			}
		}
		return out
	}
	noRepeats := func(t *testing.T, got []string) {
		seen := map[string]bool{}
		for _, id := range got {
			assert.False(t, seen[id], "review %s repeated", id)
			seen[id] = true
		}
	}

	t.Run("by rating", func(t *testing.T) {
		want := slices.Clone(before)
		slices.SortStableFunc(want, func(a, b posted) int {
			if a.rating != b.rating {
				return b.rating - a.rating
			}
			return b.seq - a.seq
		})
		wantIDs := make([]string, len(want))
		for i, p := range want {
			wantIDs[i] = p.id
		}
		got := w.pageAll(t, "/v1/books/"+book+"/reviews?sort=rating", 2, postMore)
		noRepeats(t, got)
		assert.Equal(t, wantIDs, onlyOriginal(got), "every review there at the start, once, in order")
	})
	t.Run("newest first", func(t *testing.T) {
		var wantIDs []string
		listed := ids(items(t, w.bookReviews(t, book, "limit=100", "")))
		got := w.pageAll(t, "/v1/books/"+book+"/reviews", 3, postMore)
		noRepeats(t, got)
		wantIDs = listed
		assert.Equal(t, wantIDs, got, "reviews posted while paging land before the first page")
	})
}

func TestReviews_ListByUser(t *testing.T) {
	w := newWorld(t)
	ann := w.signup(t, "ann")
	bob := w.signup(t, "bob")
	var mine []string
	for i := range 5 {
		mine = append(mine, w.review(t, ann, w.books[i], i%5+1, fmt.Sprintf("Review %d", i), http.StatusCreated)["id"].(string))
	}
	w.review(t, bob, w.books[0], 3, "", http.StatusCreated)
	slices.Reverse(mine)

	res := w.do("GET", "/v1/users/ann/reviews", nil, "")
	list := items(t, res)
	assert.Equal(t, mine, ids(list), "newest first, only ann's")
	assert.Nil(t, res.JSON["nextCursor"])
	for _, f := range []string{"id", "userId", "bookId", "rating", "content", "likeCount", "createdAt"} {
		assert.Contains(t, list[0], f)
	}
	assert.Equal(t, ann.ID, list[0]["userId"])
	assert.Equal(t, w.books[4], list[0]["bookId"])
	assert.Equal(t, "Review 4", list[0]["content"])

	t.Run("pages", func(t *testing.T) {
		assert.Equal(t, mine, w.pageAll(t, "/v1/users/ann/reviews", 2, func(int) {}))
	})
	t.Run("the username is case-insensitive", func(t *testing.T) {
		assert.Equal(t, mine, ids(items(t, w.do("GET", "/v1/users/ANN/reviews", nil, ""))))
	})
	t.Run("isLiked for a signed-in caller", func(t *testing.T) {
		require.Equal(t, http.StatusOK, w.do("POST", "/v1/reviews/"+mine[1]+"/like", nil, bob.Token).Status)
		for _, it := range items(t, w.do("GET", "/v1/users/ann/reviews", nil, bob.Token)) {
			assert.Equal(t, it["id"] == mine[1], it["isLiked"], it["id"])
		}
	})
	t.Run("a cursor of another user's list is 400", func(t *testing.T) {
		res := w.do("GET", "/v1/users/ann/reviews?limit=1", nil, "")
		cursor := res.JSON["nextCursor"].(string)
		res = w.do("GET", "/v1/users/bob/reviews?cursor="+url.QueryEscape(cursor), nil, "")
		assert.Equal(t, http.StatusBadRequest, res.Status, res.String())
	})
	t.Run("a user without reviews has an empty list", func(t *testing.T) {
		w.signup(t, "quiet")
		res := w.do("GET", "/v1/users/quiet/reviews", nil, "")
		assert.Empty(t, items(t, res))
		assert.Contains(t, string(res.Body), `"items":[]`)
	})
	t.Run("unknown username is 404", func(t *testing.T) {
		assert.Equal(t, http.StatusNotFound, w.do("GET", "/v1/users/nobody_here/reviews", nil, "").Status)
	})
	t.Run("bad limit is 400", func(t *testing.T) {
		assert.Equal(t, http.StatusBadRequest, w.do("GET", "/v1/users/ann/reviews?limit=0", nil, "").Status)
	})
}

func TestReviews_MonthlyQuota(t *testing.T) {
	w := newWorld(t, testenv.WithConfig(func(c *config.Config) { c.MonthlyReviews = 3 }))
	ann := w.signup(t, "ann")

	t.Run("concurrent creations at the edge never exceed it", func(t *testing.T) {
		w.review(t, ann, w.books[0], 4, "", http.StatusCreated)
		w.clock.Advance(time.Hour) // a fresh create_review window for the burst
		const n = 5
		results := make([]*testenv.Response, n)
		var wg sync.WaitGroup
		for i := range n {
			wg.Add(1)
			go func() {
				defer wg.Done()
				results[i] = w.Do("POST", "/v1/reviews", map[string]any{"bookId": w.books[i+1], "rating": 3}, ann.Token)
			}()
		}
		wg.Wait()
		var statuses []int
		for _, res := range results {
			statuses = append(statuses, res.Status)
			if res.Status == http.StatusForbidden {
				e := testenv.ErrorOf(t, res)
				assert.Equal(t, "Forbidden", e["name"])
				d := e["details"].(map[string]any)
				assert.Equal(t, "monthly_limit_reached", d["error"])
				assert.EqualValues(t, 3, d["limit"])
				assert.EqualValues(t, 3, d["current"])
				assert.Equal(t, "2026-04-01T00:00:00Z", d["resetsAt"])
				assert.NotEmpty(t, d["upgradeUrl"])
				assert.Equal(t, "3", res.Header.Get("X-Monthly-Limit"), "a refused review reports the reviews quota")
				assert.Equal(t, "0", res.Header.Get("X-Monthly-Remaining"))
			}
		}
		slices.Sort(statuses)
		assert.Equal(t, []int{201, 201, 403, 403, 403}, statuses)
		t.Run("a refused review reports the reviews quota, not the posts one", func(t *testing.T) {
			res := w.Do("POST", "/v1/reviews", map[string]any{"bookId": "not-a-uuid", "rating": 3}, ann.Token)
			require.Equal(t, http.StatusBadRequest, res.Status)
			assert.Equal(t, "3", res.Header.Get("X-Monthly-Limit"))
			assert.Equal(t, "0", res.Header.Get("X-Monthly-Remaining"))
		})
		assert.EqualValues(t, 3, w.Item(t, dynamo.UserKey(ann.ID))["monthlyReviews"])
		reviewed := 0
		for _, b := range w.books {
			reviewed += w.stats(t, b).total
		}
		assert.Equal(t, 3, reviewed, "refused creations wrote nothing")
	})
	t.Run("updating an existing review is not charged", func(t *testing.T) {
		w.clock.Advance(time.Hour) // past the burst's create_review window
		res := w.write("POST", "/v1/reviews", map[string]any{"bookId": w.books[0], "rating": 1}, ann.Token)
		require.Equal(t, http.StatusOK, res.Status, res.String())
		assert.Equal(t, "0", res.Header.Get("X-Monthly-Remaining"))
	})
	t.Run("the quota resets on the 1st at 00:00 UTC", func(t *testing.T) {
		w.clock.Set(time.Date(2026, 3, 31, 23, 59, 59, 0, time.UTC))
		res := w.Do("POST", "/v1/reviews", map[string]any{"bookId": w.books[6], "rating": 3}, ann.Token)
		require.Equal(t, http.StatusForbidden, res.Status, res.String())
		w.clock.Set(time.Date(2026, 4, 1, 0, 0, 0, 0, time.UTC))
		res = w.Do("POST", "/v1/reviews", map[string]any{"bookId": w.books[6], "rating": 3}, ann.Token)
		require.Equal(t, http.StatusCreated, res.Status, res.String())
		assert.Equal(t, "3", res.Header.Get("X-Monthly-Limit"))
		assert.Equal(t, "2", res.Header.Get("X-Monthly-Remaining"))
		assert.Equal(t, "2026-05-01T00:00:00Z", res.Header.Get("X-Monthly-Reset"))
	})
	t.Run("premium is unlimited", func(t *testing.T) {
		bob := w.signup(t, "bob")
		prev, err := dynamo.NewUsers(w.App.Table).GetUser(t.Context(), bob.ID)
		require.NoError(t, err)
		next := *prev
		next.Tier = users.TierPremium
		require.NoError(t, dynamo.NewUsers(w.App.Table).UpdateUser(t.Context(), prev, &next))
		for i := range 4 {
			res := w.write("POST", "/v1/reviews", map[string]any{"bookId": w.books[i], "rating": 5}, bob.Token)
			require.Equal(t, http.StatusCreated, res.Status, res.String())
			assert.Empty(t, res.Header.Get("X-Monthly-Limit"))
		}
	})
}

func TestReviews_RateLimits(t *testing.T) {
	w := newWorld(t, testenv.WithRateLimits())
	ann := w.signup(t, "ann")
	id := ""
	for i := range 5 {
		res := w.Do("POST", "/v1/reviews", map[string]any{"bookId": w.books[i], "rating": 4}, ann.Token)
		require.Equal(t, http.StatusCreated, res.Status, res.String())
		id = res.JSON["id"].(string)
	}
	for name, send := range map[string]func() *testenv.Response{
		"a sixth POST in the hour is 429": func() *testenv.Response {
			return w.Do("POST", "/v1/reviews", map[string]any{"bookId": w.books[5], "rating": 4}, ann.Token)
		},
		"an edit counts against create_review too": func() *testenv.Response {
			return w.Do("PUT", "/v1/reviews/"+id, map[string]any{"rating": 2}, ann.Token)
		},
	} {
		t.Run(name, func(t *testing.T) {
			res := send()
			require.Equal(t, http.StatusTooManyRequests, res.Status, res.String())
			assert.Equal(t, "create_review", testenv.ErrorOf(t, res)["details"].(map[string]any)["action"])
		})
	}
	t.Run("refused requests changed nothing", func(t *testing.T) {
		assert.EqualValues(t, 4, w.do("GET", "/v1/reviews/"+id, nil, ann.Token).JSON["rating"])
		assert.Equal(t, 0, w.stats(t, w.books[5]).total)
	})
	t.Run("the next hour allows more", func(t *testing.T) {
		w.clock.Advance(time.Hour)
		w.review(t, ann, w.books[5], 4, "", http.StatusCreated)
	})
}

// Reviews refused by the monthly quota are not served: they give their
// create_review budget back, so editing an existing review still works.
func TestReviews_RefusedByTheQuotaKeepTheRateBudget(t *testing.T) {
	w := newWorld(t, testenv.WithRateLimits(), testenv.WithConfig(func(c *config.Config) { c.MonthlyReviews = 1 }))
	ann := w.signup(t, "ann")
	first := w.Do("POST", "/v1/reviews", map[string]any{"bookId": w.books[0], "rating": 4}, ann.Token)
	require.Equal(t, http.StatusCreated, first.Status, first.String())
	for i := 1; i <= 4; i++ {
		res := w.Do("POST", "/v1/reviews", map[string]any{"bookId": w.books[i], "rating": 4}, ann.Token)
		require.Equal(t, http.StatusForbidden, res.Status, res.String())
	}
	res := w.Do("PUT", "/v1/reviews/"+first.JSON["id"].(string), map[string]any{"rating": 5}, ann.Token)
	require.Equal(t, http.StatusOK, res.Status, "four 403s did not use up create_review: %s", res)
	assert.Equal(t, "3", res.Header.Get("X-RateLimit-Remaining"), "the create and the edit count")
}

// A review shows its author and book as they are now, not as they were
// when it was written.
func TestReviews_ShowTheAuthorAsTheyAreNow(t *testing.T) {
	w := newWorld(t)
	ann := w.signup(t, "ann")
	bob := w.signup(t, "bob")
	book := w.books[0]
	id := w.review(t, ann, book, 4, "", http.StatusCreated)["id"].(string)

	res := w.do("PUT", "/v1/users/me", map[string]any{"username": "ann_renamed", "displayName": "Ann Again"}, ann.Token)
	require.Equal(t, http.StatusOK, res.Status, res.String())
	want := map[string]any{"id": ann.ID, "username": "ann_renamed", "displayName": "Ann Again", "avatarUrl": nil}

	got := w.do("GET", "/v1/reviews/"+id, nil, bob.Token)
	require.Equal(t, http.StatusOK, got.Status, got.String())
	assert.Equal(t, want, got.JSON["user"])
	assert.Equal(t, want, items(t, w.bookReviews(t, book, "", ""))[0]["user"])
	list := items(t, w.do("GET", "/v1/users/ann_renamed/reviews", nil, ""))
	require.Len(t, list, 1)
	assert.Equal(t, want, list[0]["user"])
	assert.Equal(t, "Harry Potter", list[0]["book"].(map[string]any)["title"])
	assert.Equal(t, http.StatusNotFound, w.do("GET", "/v1/users/ann/reviews", nil, "").Status, "the old name is free")

	t.Run("and the book as the catalog has it now", func(t *testing.T) {
		rec := catalog[0]
		rec.Title = "Harry Potter (Revised)"
		res, err := w.App.Books.Import(t.Context(), []books.Record{rec})
		require.NoError(t, err)
		require.Equal(t, 1, res.Updated)
		got := w.do("GET", "/v1/reviews/"+id, nil, bob.Token)
		assert.Equal(t, "Harry Potter (Revised)", got.JSON["book"].(map[string]any)["title"])
	})
}
