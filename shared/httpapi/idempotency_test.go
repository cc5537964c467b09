package httpapi

import (
	"context"
	"encoding/json"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/bookplatform/backend/shared/callstats"
	"github.com/bookplatform/backend/shared/idempotency"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// memStore is an idempotency.Store in memory.
type memStore struct {
	mu   sync.Mutex
	recs map[string]idempotency.Record
}

func (m *memStore) Begin(_ context.Context, key string, rec idempotency.Record, now, _ time.Time) (*idempotency.Record, error) {
	m.mu.Lock()
	defer m.mu.Unlock()
	if held, ok := m.recs[key]; ok && (held.Done || held.LockedUntil.After(now)) {
		return &held, nil
	}
	m.recs[key] = rec
	return nil, nil
}

func (m *memStore) Complete(_ context.Context, key string, rec idempotency.Record, _ time.Time) error {
	m.mu.Lock()
	defer m.mu.Unlock()
	if held, ok := m.recs[key]; ok && held.Owner == rec.Owner && !held.Done {
		m.recs[key] = rec
	}
	return nil
}

func (m *memStore) Release(_ context.Context, key, owner string) error {
	m.mu.Lock()
	defer m.mu.Unlock()
	if held, ok := m.recs[key]; ok && held.Owner == owner && !held.Done {
		delete(m.recs, key)
	}
	return nil
}

// wrote records a DynamoDB write in r's call record, as the SDK
// middleware would: the request has changed something.
func wrote(r *http.Request) {
	now := time.Now()
	callstats.From(r.Context()).Record(callstats.Call{Service: "dynamodb", Operation: "PutItem", Start: now, End: now})
}

// idempotentRouter serves handler as an anonymous Idempotent POST /t over
// a memStore; runs counts the handler's runs.
func idempotentRouter(handler HandlerFunc) (*Router, *memStore, *atomic.Int32) {
	store := &memStore{recs: map[string]idempotency.Record{}}
	runs := &atomic.Int32{}
	rt := NewRouter(Options{Idempotency: store, IdempotencySecrets: func() [][]byte { return [][]byte{[]byte("router-test-secret-of-32-bytes-long")} }, Logger: slog.New(slog.DiscardHandler)}, []Route{
		{Method: "POST", Path: "/t", Auth: AuthNone, Idempotent: true, Handler: func(w http.ResponseWriter, r *http.Request) error {
			runs.Add(1)
			return handler(w, r)
		}},
	})
	return rt, store, runs
}

func postKey(ctx context.Context, rt http.Handler, addr, key string) *httptest.ResponseRecorder {
	req := httptest.NewRequestWithContext(ctx, "POST", "/t", strings.NewReader(`{"a":1}`))
	req.RemoteAddr = addr
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set(IdempotencyHeader, key)
	rec := httptest.NewRecorder()
	rt.ServeHTTP(rec, req)
	return rec
}

func errorObject(t *testing.T, rec *httptest.ResponseRecorder) ErrorObject {
	t.Helper()
	var body ErrorBody
	require.NoError(t, json.Unmarshal(rec.Body.Bytes(), &body), rec.Body.String())
	return body.Error
}

// An answer too large to keep is not replayed, and not run again either:
// the request did change something. The retry is told so.
func TestIdempotency_AnswerTooLargeIsNotRunAgain(t *testing.T) {
	big := strings.Repeat("x", maxKeptBody+1)
	rt, _, runs := idempotentRouter(func(w http.ResponseWriter, r *http.Request) error {
		wrote(r)
		return JSON(w, http.StatusCreated, map[string]string{"big": big})
	})
	first := postKey(context.Background(), rt, "203.0.113.1:1000", "k")
	require.Equal(t, http.StatusCreated, first.Code)
	assert.Contains(t, first.Body.String(), big, "the client gets its answer")

	again := postKey(context.Background(), rt, "203.0.113.1:1000", "k")
	require.Equal(t, http.StatusConflict, again.Code, again.Body.String())
	assert.Contains(t, errorObject(t, again).Message, "too large to keep")
	assert.Empty(t, again.Header().Get("Retry-After"), "retrying will not help")
	assert.EqualValues(t, 1, runs.Load(), "not run again")
}

// Anonymous keys are per client address: the same key from two
// addresses is two requests; from one address (any port), one.
func TestIdempotency_AnonymousKeysAreScopedByAddress(t *testing.T) {
	rt, _, runs := idempotentRouter(func(w http.ResponseWriter, r *http.Request) error {
		wrote(r)
		return JSON(w, http.StatusCreated, map[string]int32{"n": 0})
	})
	assert.Equal(t, http.StatusCreated, postKey(context.Background(), rt, "203.0.113.1:1000", "k").Code)
	assert.Equal(t, http.StatusCreated, postKey(context.Background(), rt, "198.51.100.7:1000", "k").Code)
	assert.EqualValues(t, 2, runs.Load(), "two clients, two requests")
	again := postKey(context.Background(), rt, "203.0.113.1:2000", "k")
	assert.Equal(t, "true", again.Header().Get(ReplayedHeader))
	assert.EqualValues(t, 2, runs.Load())
}

// A client that went away after its request wrote gets no answer (499),
// but the key is kept: the retry is told the request was interrupted
// after it may have taken effect, and it is not run again.
func TestIdempotency_ClientGoneAfterAWriteKeepsTheKey(t *testing.T) {
	rt, _, runs := idempotentRouter(func(w http.ResponseWriter, r *http.Request) error {
		wrote(r)
		r.Context().Value(cancelKey{}).(context.CancelFunc)()
		return r.Context().Err()
	})
	ctx, cancel := context.WithCancel(context.Background())
	first := postKey(context.WithValue(ctx, cancelKey{}, cancel), rt, "203.0.113.1:1000", "k")
	assert.Equal(t, StatusClientClosedRequest, first.Code)

	again := postKey(context.Background(), rt, "203.0.113.1:1000", "k")
	require.Equal(t, http.StatusInternalServerError, again.Code, again.Body.String())
	assert.Equal(t, "true", again.Header().Get(ReplayedHeader))
	assert.Contains(t, errorObject(t, again).Message, "interrupted after it may have taken effect")
	assert.EqualValues(t, 1, runs.Load(), "not run again")
}

type cancelKey struct{}

// A kept answer is sealed to its record: it holds no part of the answer
// in clear, and moved under another key it does not replay there.
func TestIdempotency_KeptAnswersAreSealedToTheirKey(t *testing.T) {
	rt, store, _ := idempotentRouter(func(w http.ResponseWriter, r *http.Request) error {
		wrote(r)
		return JSON(w, http.StatusCreated, map[string]string{"refreshToken": "rt-secret"})
	})
	require.Equal(t, http.StatusCreated, postKey(context.Background(), rt, "203.0.113.1:1000", "mine").Code)
	store.mu.Lock()
	require.Len(t, store.recs, 1)
	for k, rec := range store.recs {
		assert.NotContains(t, string(rec.Answer), "rt-secret")
		// The same request under another key: same fingerprint, the
		// other record's answer.
		store.recs[strings.TrimSuffix(k, "#mine")+"#theirs"] = rec
	}
	store.mu.Unlock()

	res := postKey(context.Background(), rt, "203.0.113.1:1000", "theirs")
	assert.Equal(t, http.StatusInternalServerError, res.Code, "a moved answer does not open: %s", res.Body)
	assert.NotContains(t, res.Body.String(), "rt-secret")
}
