package httpapi

import (
	"context"
	"errors"
	"io"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"sync"
	"testing"
	"time"

	"github.com/bookplatform/backend/shared/admission"
	"github.com/bookplatform/backend/shared/apperr"
	"github.com/bookplatform/backend/shared/auth"
	"github.com/bookplatform/backend/shared/users"
	"github.com/stretchr/testify/assert"
)

// memCounter is an in-memory ratelimit.Counter; DynamoDB's is tested
// through the API tests. fail makes every Incr error.
type memCounter struct {
	mu     sync.Mutex
	counts map[string]int64
	fail   bool
}

func (m *memCounter) Incr(_ context.Context, scope, action string, ws, _ time.Time) (int64, error) {
	if m.fail {
		return 0, errors.New("counter store unavailable")
	}
	m.mu.Lock()
	defer m.mu.Unlock()
	if m.counts == nil {
		m.counts = map[string]int64{}
	}
	k := scope + "|" + action + "|" + ws.String()
	m.counts[k]++
	return m.counts[k], nil
}

// oneUser is an Identity with one premium user behind token "ok"; token
// "gone" verifies but names a user that no longer exists.
type oneUser struct{}

func (oneUser) VerifyAccessToken(token string) (auth.Claims, error) {
	switch token {
	case "ok":
		return auth.Claims{UserID: "u1"}, nil
	case "gone":
		return auth.Claims{UserID: "u2"}, nil
	}
	return auth.Claims{}, auth.ErrInvalidToken
}

func (oneUser) GetUser(_ context.Context, id string) (*users.User, error) {
	if id != "u1" {
		return nil, apperr.NotFound("User not found")
	}
	time.Sleep(5 * time.Millisecond) // a round trip: handlers must not assume it is done
	return &users.User{ID: "u1", Tier: users.TierPremium}, nil
}

func limitedRouter(c *memCounter) *Router {
	ok := func(w http.ResponseWriter, r *http.Request) error {
		return JSON(w, http.StatusOK, map[string]bool{"ok": true})
	}
	return NewRouter(Options{
		Identity: oneUser{}, Counter: c, Logger: slog.New(slog.NewTextHandler(io.Discard, nil)),
		Now: func() time.Time { return time.Date(2026, 11, 21, 9, 30, 0, 0, time.UTC) },
	}, Group{Routes: []Route{
		{Method: "POST", Path: "/v1/lines/{id}/like", Auth: AuthBearer, Actions: []string{"like"}, Handler: ok},
		{Method: "GET", Path: "/v1/anything", Auth: AuthOptional, Handler: ok},
	}})
}

func call(rt http.Handler, method, path, token string) *httptest.ResponseRecorder {
	req := httptest.NewRequest(method, path, nil)
	if token != "" {
		req.Header.Set("Authorization", "Bearer "+token)
	}
	rec := httptest.NewRecorder()
	rt.ServeHTTP(rec, req)
	return rec
}

func TestRateLimit_PerActionRuleNamedOnTheRoute(t *testing.T) {
	rt := limitedRouter(&memCounter{})
	for i := 1; i <= 100; i++ {
		rec := call(rt, "POST", "/v1/lines/l1/like", "ok")
		if !assert.Equal(t, http.StatusOK, rec.Code, "like %d", i) {
			return
		}
	}
	// The like rule (100/hour) is tighter than premium's 300/minute.
	rec := call(rt, "POST", "/v1/lines/l1/like", "ok")
	assert.Equal(t, http.StatusTooManyRequests, rec.Code)
	assert.Equal(t, "100", rec.Header().Get("X-RateLimit-Limit"))
	assert.Equal(t, "1800", rec.Header().Get("Retry-After"), "the hour window ends at 10:00")
	assert.Contains(t, rec.Body.String(), `"action":"like"`)

	// Other routes still answer: only the like action is exhausted.
	rec = call(rt, "GET", "/v1/anything", "ok")
	assert.Equal(t, http.StatusOK, rec.Code)
	assert.Equal(t, "300", rec.Header().Get("X-RateLimit-Limit"))
}

func TestRateLimit_FailsOpenWhenTheCounterStoreFails(t *testing.T) {
	rt := limitedRouter(&memCounter{fail: true})
	for i := 0; i < 70; i++ { // beyond the guest rate
		rec := call(rt, "GET", "/v1/anything", "")
		if !assert.Equal(t, http.StatusOK, rec.Code) {
			return
		}
	}
}

func TestRateLimit_UnknownActionStopsTheRouterAtStart(t *testing.T) {
	assert.PanicsWithError(t, `route GET /x names unknown rate-limit action "no_such_action"`, func() {
		NewRouter(Options{}, Group{Routes: []Route{
			{Method: "GET", Path: "/x", Actions: []string{"no_such_action"}, Handler: func(http.ResponseWriter, *http.Request) error { return nil }},
		}})
	})
}

// On Optional routes the handler starts before the caller read ends;
// Caller waits for it. A token whose user is gone gets 401 and its
// handler's writes are refused.
func TestOptionalRoute_CallerIsReadAlongsideTheHandler(t *testing.T) {
	var seen *users.User
	var writeErr error
	rt := NewRouter(Options{Identity: oneUser{}, Counter: &memCounter{}, Logger: slog.New(slog.NewTextHandler(io.Discard, nil))},
		Group{Routes: []Route{{Method: "GET", Path: "/v1/opt", Auth: AuthOptional, Handler: func(w http.ResponseWriter, r *http.Request) error {
			seen = Caller(r)
			writeErr = admission.Wait(r.Context()) // what an AWS write does first
			return JSON(w, http.StatusOK, map[string]bool{"ok": true})
		}}}})

	rec := call(rt, "GET", "/v1/opt", "ok")
	assert.Equal(t, http.StatusOK, rec.Code)
	if assert.NotNil(t, seen) {
		assert.Equal(t, "u1", seen.ID)
	}
	assert.NoError(t, writeErr)

	rec = call(rt, "GET", "/v1/opt", "")
	assert.Equal(t, http.StatusOK, rec.Code)
	assert.Nil(t, seen)

	rec = call(rt, "GET", "/v1/opt", "gone")
	assert.Equal(t, http.StatusUnauthorized, rec.Code)
	assert.Contains(t, rec.Body.String(), MsgUserNotFound)
	assert.Nil(t, seen)
	assert.Error(t, writeErr, "writes of a request whose user is gone are refused")
}

// heldUser is oneUser whose user read waits until release is closed, so
// a test can see what a handler does while the read is under way.
type heldUser struct {
	oneUser
	release chan struct{}
}

func (h heldUser) GetUser(ctx context.Context, id string) (*users.User, error) {
	<-h.release
	return h.oneUser.GetUser(ctx, id)
}

// Bearer handlers start beside the caller read too: CallerID is there at
// once, Caller waits and is never nil. A token whose user is gone gets
// 401, whatever the handler did with the placeholder caller, and its
// writes are refused.
func TestBearerRoute_HandlerStartsBeforeTheCallerRead(t *testing.T) {
	var (
		early    string
		seen     *users.User
		writeErr error
	)
	id := heldUser{}
	rt := NewRouter(Options{Identity: &id, Counter: &memCounter{}, Logger: slog.New(slog.NewTextHandler(io.Discard, nil))},
		Group{Routes: []Route{{Method: "GET", Path: "/v1/me", Auth: AuthBearer, Handler: func(w http.ResponseWriter, r *http.Request) error {
			early, seen = CallerID(r), nil
			close(id.release) // the read could not have ended before this
			seen = Caller(r)
			writeErr = admission.Wait(r.Context())
			return JSON(w, http.StatusOK, map[string]string{"id": seen.ID})
		}}}})

	id.release = make(chan struct{})
	rec := call(rt, "GET", "/v1/me", "ok")
	assert.Equal(t, http.StatusOK, rec.Code)
	assert.Equal(t, "u1", early)
	if assert.NotNil(t, seen) {
		assert.Equal(t, "u1", seen.ID)
	}

	id.release = make(chan struct{})
	rec = call(rt, "GET", "/v1/me", "gone")
	assert.Equal(t, http.StatusUnauthorized, rec.Code)
	assert.Contains(t, rec.Body.String(), MsgUserNotFound)
	assert.Equal(t, "u2", early)
	if assert.NotNil(t, seen, "a Bearer handler never sees a nil caller") {
		assert.Equal(t, "u2", seen.ID)
	}
	assert.Error(t, writeErr, "the gone user's writes are refused")

	rec = call(rt, "GET", "/v1/me", "")
	assert.Equal(t, http.StatusUnauthorized, rec.Code)
	assert.Contains(t, rec.Body.String(), MsgMissingAuth)
}
