package app_test

import (
	"net/http"
	"sync"
	"testing"
	"time"

	"github.com/bookplatform/backend/local/testenv"
	"github.com/bookplatform/backend/shared/books"
	"github.com/bookplatform/backend/shared/dynamo"
	"github.com/bookplatform/backend/shared/httpapi"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// bookOf imports one book and returns its id.
func bookOf(t *testing.T, env *testenv.Env) string {
	t.Helper()
	_, err := env.App.Books.Import(t.Context(), []books.Record{{ISBN: "9780306406157", Title: "A Book", Authors: []string{"B. Author"}}})
	require.NoError(t, err)
	b, err := env.App.Books.GetByISBN(t.Context(), "9780306406157")
	require.NoError(t, err)
	return b.ID
}

func post(env *testenv.Env, path, token, key string, body any) *testenv.Response {
	h := map[string]string{}
	if token != "" {
		h["Authorization"] = "Bearer " + token
	}
	if key != "" {
		h[httpapi.IdempotencyHeader] = key
	}
	return env.DoHeaders("POST", path, body, h)
}

func TestIdempotencyKey_RetryGetsTheFirstAnswer(t *testing.T) {
	clock := testenv.NewClock(time.Date(2026, 3, 2, 9, 0, 0, 0, time.UTC))
	env := testenv.New(t, testenv.WithClock(clock))
	ann := env.Signup(t, "ann")
	book := bookOf(t, env)
	body := map[string]any{"bookId": book, "content": "posted once"}

	first := post(env, "/v1/lines", ann.Token, "key-1", body)
	require.Equal(t, http.StatusCreated, first.Status, first.String())
	assert.Empty(t, first.Header.Get(httpapi.ReplayedHeader))
	clock.Advance(time.Minute)
	again := post(env, "/v1/lines", ann.Token, "key-1", body)
	require.Equal(t, http.StatusCreated, again.Status, again.String())
	assert.Equal(t, "true", again.Header.Get(httpapi.ReplayedHeader))
	assert.JSONEq(t, string(first.Body), string(again.Body), "the first answer, byte for byte")
	assert.Equal(t, first.Header.Get("X-Monthly-Remaining"), again.Header.Get("X-Monthly-Remaining"))
	assert.EqualValues(t, 1, env.Item(t, dynamo.BookKey(book))["totalLines"], "one line, counted once")
	assert.EqualValues(t, 1, env.Item(t, dynamo.UserKey(ann.ID))["monthlyPosts"], "charged once")

	t.Run("the same key with another body is 422", func(t *testing.T) {
		res := post(env, "/v1/lines", ann.Token, "key-1", map[string]any{"bookId": book, "content": "another line"})
		testenv.AssertError(t, res, http.StatusUnprocessableEntity, "UnprocessableEntity", "")
	})
	t.Run("keys are per caller: another account's same key is its own request", func(t *testing.T) {
		bob := env.Signup(t, "bob")
		res := post(env, "/v1/lines", bob.Token, "key-1", body)
		require.Equal(t, http.StatusCreated, res.Status, res.String())
		assert.Empty(t, res.Header.Get(httpapi.ReplayedHeader))
		assert.NotEqual(t, first.JSON["id"], res.JSON["id"])
	})
	t.Run("without a key every POST creates", func(t *testing.T) {
		a := post(env, "/v1/lines", ann.Token, "", body)
		b := post(env, "/v1/lines", ann.Token, "", body)
		require.Equal(t, http.StatusCreated, a.Status)
		require.Equal(t, http.StatusCreated, b.Status)
		assert.NotEqual(t, a.JSON["id"], b.JSON["id"])
	})
	t.Run("a request that changed nothing does not keep its key", func(t *testing.T) {
		res := post(env, "/v1/lines", ann.Token, "key-2", map[string]any{"bookId": book})
		testenv.AssertError(t, res, http.StatusBadRequest, "ValidationError", "")
		res = post(env, "/v1/lines", ann.Token, "key-2", map[string]any{"bookId": book, "content": "fixed"})
		require.Equal(t, http.StatusCreated, res.Status, "the corrected retry runs: %s", res)
	})
	t.Run("a malformed key is 400", func(t *testing.T) {
		res := post(env, "/v1/lines", ann.Token, "has spaces in it", body)
		testenv.AssertError(t, res, http.StatusBadRequest, "ValidationError", "Invalid Idempotency-Key")
	})
	t.Run("the answer expires with the key's TTL", func(t *testing.T) {
		clock.Advance(httpapi.IdempotencyTTL + time.Minute)
		ann := env.Login(t, ann) // the access token expired meanwhile
		res := post(env, "/v1/lines", ann.Token, "key-1", body)
		require.Equal(t, http.StatusCreated, res.Status, res.String())
		assert.Empty(t, res.Header.Get(httpapi.ReplayedHeader))
		assert.NotEqual(t, first.JSON["id"], res.JSON["id"], "a new line: the old answer expired")
	})
}

// Concurrent retries with one key make one line: one request creates,
// the others wait for its answer (409 while it runs) or replay it.
func TestIdempotencyKey_ConcurrentRetriesMakeOne(t *testing.T) {
	env := testenv.New(t)
	ann := env.Signup(t, "ann")
	book := bookOf(t, env)
	body := map[string]any{"bookId": book, "content": "raced"}
	const n = 6
	res := make([]*testenv.Response, n)
	var wg sync.WaitGroup
	for i := range n {
		wg.Go(func() { res[i] = post(env, "/v1/lines", ann.Token, "race", body) })
	}
	wg.Wait()
	ids := map[any]bool{}
	for _, r := range res {
		switch r.Status {
		case http.StatusCreated:
			ids[r.JSON["id"]] = true
		case http.StatusConflict:
			assert.NotEmpty(t, r.Header.Get("Retry-After"))
		default:
			t.Errorf("unexpected %s", r)
		}
	}
	assert.Len(t, ids, 1, "every 201 is the same line")
	assert.EqualValues(t, 1, env.Item(t, dynamo.BookKey(book))["totalLines"])
}

// Anonymous creations honour keys too: a retried sign-up gets its tokens
// again instead of 409 Email already registered.
func TestIdempotencyKey_AnonymousSignup(t *testing.T) {
	env := testenv.New(t)
	body := map[string]any{"username": "zoe", "email": "zoe@example.com", "password": testenv.Password}
	first := post(env, "/v1/auth/signup", "", "signup-1", body)
	require.Equal(t, http.StatusCreated, first.Status, first.String())
	again := post(env, "/v1/auth/signup", "", "signup-1", body)
	require.Equal(t, http.StatusCreated, again.Status, again.String())
	assert.Equal(t, first.JSON["token"], again.JSON["token"])
	assert.Equal(t, "true", again.Header.Get(httpapi.ReplayedHeader))
	res := post(env, "/v1/auth/signup", "", "signup-1", map[string]any{"username": "zoe", "email": "zoe@example.com", "password": "another-password"})
	testenv.AssertError(t, res, http.StatusUnprocessableEntity, "UnprocessableEntity", "")
	res = post(env, "/v1/auth/signup", "", "", body)
	testenv.AssertError(t, res, http.StatusConflict, "Conflict", "Email already registered")
}
