package app_test

import (
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"net"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"sync/atomic"
	"syscall"
	"testing"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"

	"github.com/bookplatform/backend/local/testenv"
	"github.com/bookplatform/backend/shared/books"
	"github.com/bookplatform/backend/shared/callstats"
	"github.com/bookplatform/backend/shared/dynamo"
	"github.com/bookplatform/backend/shared/httpapi"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// bookOf imports one book and returns its id.
func bookOf(t *testing.T, env *testenv.Env) string {
	t.Helper()
	return env.ImportBooks(t, books.Record{ISBN: "9780306406157", Title: "A Book", Authors: []string{"B. Author"}})[0]
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

// idempotencyItems reads every idempotency record of the table, raw.
func idempotencyItems(t *testing.T, env *testenv.Env) []map[string]types.AttributeValue {
	t.Helper()
	out, err := env.App.DB.Scan(t.Context(), &dynamodb.ScanInput{
		TableName:        aws.String(env.Config.TableName),
		FilterExpression: aws.String("begins_with(PK, :p)"),
		ExpressionAttributeValues: map[string]types.AttributeValue{
			":p": &types.AttributeValueMemberS{Value: dynamo.IdempotencyKey("").PK},
		},
	})
	require.NoError(t, err)
	return out.Items
}

// containsRaw reports whether s occurs in any value of item, as text or
// inside a binary value.
func containsRaw(item map[string]types.AttributeValue, s string) bool {
	var walk func(v types.AttributeValue) bool
	walk = func(v types.AttributeValue) bool {
		switch v := v.(type) {
		case *types.AttributeValueMemberS:
			return strings.Contains(v.Value, s)
		case *types.AttributeValueMemberB:
			return bytes.Contains(v.Value, []byte(s))
		case *types.AttributeValueMemberM:
			for _, e := range v.Value {
				if walk(e) {
					return true
				}
			}
		case *types.AttributeValueMemberL:
			for _, e := range v.Value {
				if walk(e) {
					return true
				}
			}
		}
		return false
	}
	for _, v := range item {
		if walk(v) {
			return true
		}
	}
	return false
}

// The kept record of a sign-up gives away neither the password nor the
// session: its fingerprint is a keyed hash (no guess of the password can
// be checked against a plain SHA-256 of the body), and its answer is
// encrypted (the refresh and access tokens are not in it in clear). A
// replay still gets the identical answer.
func TestIdempotencyKey_RecordKeepsNoSecrets(t *testing.T) {
	env := testenv.New(t)
	body, err := json.Marshal(map[string]any{"username": "zoe", "email": "zoe@example.com", "password": testenv.Password})
	require.NoError(t, err)
	first := post(env, "/v1/auth/signup", "", "signup-secret", body)
	require.Equal(t, http.StatusCreated, first.Status, first.String())
	refresh, _ := first.JSON["refreshToken"].(string)
	access, _ := first.JSON["token"].(string)
	require.NotEmpty(t, refresh)

	items := idempotencyItems(t, env)
	require.Len(t, items, 1)
	sum := sha256.Sum256(body)
	for name, secret := range map[string]string{
		"the body's plain SHA-256": hex.EncodeToString(sum[:]),
		"the refresh token":        refresh,
		"the access token":         access,
		"the password":             testenv.Password,
	} {
		assert.False(t, containsRaw(items[0], secret), "the record holds %s", name)
	}

	again := post(env, "/v1/auth/signup", "", "signup-secret", body)
	require.Equal(t, http.StatusCreated, again.Status, again.String())
	assert.Equal(t, "true", again.Header.Get(httpapi.ReplayedHeader))
	assert.Equal(t, string(first.Body), string(again.Body), "the identical answer")
	assert.Equal(t, first.Header.Get("Content-Type"), again.Header.Get("Content-Type"))
}

// serveFrom sends a request straight to h as if from addr (the router's
// client address), so one test can be several clients.
func serveFrom(t *testing.T, h http.Handler, addr, path, key string, body string) *httptest.ResponseRecorder {
	t.Helper()
	req := httptest.NewRequest(http.MethodPost, path, strings.NewReader(body))
	req.RemoteAddr = addr
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set(httpapi.IdempotencyHeader, key)
	rec := httptest.NewRecorder()
	h.ServeHTTP(rec, req)
	return rec
}

// Anonymous keys belong to the client's address: two clients that happen
// to send the same key get an account each, not one another's session;
// the same client's retry replays its own.
func TestIdempotencyKey_AnonymousKeysAreScopedByAddress(t *testing.T) {
	env := testenv.New(t)
	h := env.Handler()
	userOf := func(rec *httptest.ResponseRecorder) string {
		t.Helper()
		require.Equal(t, http.StatusCreated, rec.Code, rec.Body.String())
		var out struct {
			User struct{ ID string } `json:"user"`
		}
		require.NoError(t, json.Unmarshal(rec.Body.Bytes(), &out))
		require.NotEmpty(t, out.User.ID)
		return out.User.ID
	}
	a := serveFrom(t, h, "203.0.113.1:50000", "/v1/auth/guest", "guest-1", "{}")
	b := serveFrom(t, h, "198.51.100.7:50000", "/v1/auth/guest", "guest-1", "{}")
	assert.NotEqual(t, userOf(a), userOf(b), "another client's key is its own request")
	assert.Empty(t, b.Header().Get(httpapi.ReplayedHeader))

	again := serveFrom(t, h, "203.0.113.1:61000", "/v1/auth/guest", "guest-1", "{}")
	assert.Equal(t, userOf(a), userOf(again), "the same address replays (whatever its port)")
	assert.Equal(t, "true", again.Header().Get(httpapi.ReplayedHeader))
	assert.Equal(t, a.Body.String(), again.Body.String())
}

// dropFirstResponse is a transport that sends every request but loses the
// answer of the first one, as a connection reset after DynamoDB committed
// a write would.
type dropFirstResponse struct {
	next    http.RoundTripper
	dropped atomic.Bool
}

func (d *dropFirstResponse) RoundTrip(r *http.Request) (*http.Response, error) {
	res, err := d.next.RoundTrip(r)
	if err == nil && d.dropped.CompareAndSwap(false, true) {
		_ = res.Body.Close()
		return nil, &net.OpError{Op: "read", Net: "tcp", Err: syscall.ECONNRESET}
	}
	return res, err
}

// A write whose answer was lost may have committed: its key is kept with
// the answer the client got, so the retry is not run a second time (here
// it would count twice).
func TestIdempotencyKey_AmbiguousFailureKeepsTheKey(t *testing.T) {
	env := testenv.New(t)
	cfg := env.AWS.Copy()
	cfg.HTTPClient = &http.Client{Transport: &dropFirstResponse{next: http.DefaultTransport}}
	db := dynamodb.NewFromConfig(cfg, func(o *dynamodb.Options) {
		o.Retryer = aws.NopRetryer{} // the handler sees the lost answer itself
		o.APIOptions = append(o.APIOptions, callstats.Middleware("dynamodb", dynamo.IAMActions))
	})
	counter := dynamo.Key{PK: "COUNT#ambiguous", SK: "COUNT"}
	runs := 0
	routes := []httpapi.Route{{Method: "POST", Path: "/t/count", Auth: httpapi.AuthNone, Idempotent: true, Handler: func(w http.ResponseWriter, r *http.Request) error {
		runs++
		_, err := db.UpdateItem(r.Context(), &dynamodb.UpdateItemInput{
			TableName: aws.String(env.Config.TableName),
			Key: map[string]types.AttributeValue{
				dynamo.AttrPK: &types.AttributeValueMemberS{Value: counter.PK}, dynamo.AttrSK: &types.AttributeValueMemberS{Value: counter.SK},
			},
			UpdateExpression:          aws.String("ADD n :one"),
			ExpressionAttributeValues: map[string]types.AttributeValue{":one": &types.AttributeValueMemberN{Value: "1"}},
		})
		if err != nil {
			return err
		}
		return httpapi.JSON(w, http.StatusCreated, map[string]bool{"ok": true})
	}}}
	h := env.App.RouterFor(routes)

	first := serveFrom(t, h, "203.0.113.1:50000", "/t/count", "count-1", "{}")
	require.Equal(t, http.StatusInternalServerError, first.Code, first.Body.String())
	require.EqualValues(t, 1, env.Item(t, counter)["n"], "the write committed although its answer was lost")

	again := serveFrom(t, h, "203.0.113.1:50000", "/t/count", "count-1", "{}")
	assert.Equal(t, http.StatusInternalServerError, again.Code, "the first answer: its outcome is unknown")
	assert.Equal(t, "true", again.Header().Get(httpapi.ReplayedHeader))
	assert.Equal(t, first.Body.String(), again.Body.String())
	assert.Equal(t, 1, runs, "not run again")
	assert.EqualValues(t, 1, env.Item(t, counter)["n"], "counted once")
}

// A write the service refused changed nothing, so it does not hold the
// key: a sign-up whose transaction failed its condition (email taken)
// releases it, and the corrected request runs under the same key.
func TestIdempotencyKey_RefusedWriteReleasesTheKey(t *testing.T) {
	env := testenv.New(t)
	ann := env.Signup(t, "ann")
	res := post(env, "/v1/auth/signup", "", "signup-dup", map[string]any{"username": "zoe", "email": ann.Email, "password": testenv.Password})
	testenv.AssertError(t, res, http.StatusConflict, "Conflict", "Email already registered")
	res = post(env, "/v1/auth/signup", "", "signup-dup", map[string]any{"username": "zoe", "email": "zoe@example.com", "password": testenv.Password})
	require.Equal(t, http.StatusCreated, res.Status, "the corrected request runs: %s", res)
	assert.Empty(t, res.Header.Get(httpapi.ReplayedHeader))
}
