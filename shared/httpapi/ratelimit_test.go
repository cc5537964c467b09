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

	"github.com/bookplatform/backend/shared/auth"
	"github.com/bookplatform/backend/shared/effects"
	"github.com/bookplatform/backend/shared/ratelimit"
	"github.com/bookplatform/backend/shared/users"
	"github.com/stretchr/testify/assert"
)

// memCounter is an in-memory ratelimit.Counter with DynamoDB's contract
// (dynamo.Counters, tested on DynamoDB Local): all or nothing. fail makes
// every call error.
type memCounter struct {
	mu     sync.Mutex
	counts map[string]int64
	fail   bool
}

func key(scope string, w ratelimit.Window) string {
	return scope + "|" + w.Rule.Name + "|" + w.Start.String()
}

func (m *memCounter) Count(_ context.Context, scope string, ws []ratelimit.Window) ([]int64, bool, error) {
	if m.fail {
		return nil, false, errors.New("counter store unavailable")
	}
	m.mu.Lock()
	defer m.mu.Unlock()
	if m.counts == nil {
		m.counts = map[string]int64{}
	}
	counts := make([]int64, len(ws))
	admitted := true
	for i, w := range ws {
		counts[i] = m.counts[key(scope, w)]
		admitted = admitted && counts[i] < w.Rule.Limit
	}
	if !admitted {
		return counts, false, nil
	}
	for i, w := range ws {
		m.counts[key(scope, w)]++
		counts[i]++
	}
	return counts, true, nil
}

func (m *memCounter) Refund(_ context.Context, scope string, ws []ratelimit.Window) error {
	m.mu.Lock()
	defer m.mu.Unlock()
	for _, w := range ws {
		if m.counts[key(scope, w)] > 0 {
			m.counts[key(scope, w)]--
		}
	}
	return nil
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
		return nil, users.ErrNotFound
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
	}, []Route{
		{Method: "POST", Path: "/v1/lines/{id}/like", Auth: AuthBearer, Actions: []string{"like"}, Handler: ok},
		{Method: "GET", Path: "/v1/anything", Auth: AuthOptional, Handler: ok},
	})
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
		NewRouter(Options{}, []Route{
			{Method: "GET", Path: "/x", Actions: []string{"no_such_action"}, Handler: func(http.ResponseWriter, *http.Request) error { return nil }},
		})
	})
}

// heldUser is oneUser whose user read waits until release is closed, so
// a test can see what a handler does while the read is under way.
type heldUser struct {
	oneUser
	release chan struct{}
}

func (h *heldUser) GetUser(ctx context.Context, id string) (*users.User, error) {
	<-h.release
	return h.oneUser.GetUser(ctx, id)
}

// A GET handler starts beside the caller read, with the caller's identity
// (the verified token's id) and not its record, in a context that refuses
// side effects; its answer waits for admission. A token whose user is gone
// gets 401 whatever the GET handler did.
func TestGetHandler_StartsBesideTheCallerRead(t *testing.T) {
	var (
		seen     Caller
		readOnly bool
	)
	id := &heldUser{}
	rt := NewRouter(Options{Identity: id, Counter: &memCounter{}, Logger: slog.New(slog.NewTextHandler(io.Discard, nil))},
		[]Route{{Method: "GET", Path: "/v1/lines/{id}", Auth: AuthBearer, Handler: func(w http.ResponseWriter, r *http.Request) error {
			seen = CallerOf(r)
			readOnly = effects.IsReadOnly(r.Context())
			close(id.release) // the read could not have ended before this
			return JSON(w, http.StatusOK, map[string]string{"id": seen.ID})
		}}})

	id.release = make(chan struct{})
	rec := call(rt, "GET", "/v1/lines/l1", "ok")
	assert.Equal(t, http.StatusOK, rec.Code)
	assert.Equal(t, "u1", seen.ID)
	assert.True(t, readOnly, "a GET handler runs before admission: no side effects")
	if assert.NotNil(t, seen.User(), "asked for, the record is what admission read") {
		assert.Equal(t, "u1", seen.User().ID)
	}

	id.release = make(chan struct{})
	rec = call(rt, "GET", "/v1/lines/l1", "gone")
	assert.Equal(t, http.StatusUnauthorized, rec.Code)
	assert.Contains(t, rec.Body.String(), MsgUserNotFound)
	assert.Equal(t, "u2", seen.ID)
}

// Every other handler starts only once the request is admitted: with the
// caller's stored record, never for a refused request.
func TestWriteHandler_StartsOnlyOnceAdmitted(t *testing.T) {
	var runs int
	var seen *users.User
	rt := NewRouter(Options{Identity: oneUser{}, Counter: &memCounter{}, Logger: slog.New(slog.NewTextHandler(io.Discard, nil)),
		Now: func() time.Time { return time.Date(2026, 11, 21, 9, 30, 0, 0, time.UTC) }},
		[]Route{
			{Method: "POST", Path: "/v1/reports", Auth: AuthBearer, Actions: []string{"report"}, Handler: func(w http.ResponseWriter, r *http.Request) error {
				runs++
				seen = CallerOf(r).User()
				assert.False(t, effects.IsReadOnly(r.Context()))
				return JSON(w, http.StatusCreated, map[string]bool{"ok": true})
			}},
			{Method: "GET", Path: "/v1/me", Auth: AuthBearer, AfterAdmission: true, Handler: func(w http.ResponseWriter, r *http.Request) error {
				return JSON(w, http.StatusOK, map[string]string{"tier": string(CallerOf(r).User().Tier)})
			}},
		})

	rec := call(rt, "POST", "/v1/reports", "ok")
	assert.Equal(t, http.StatusCreated, rec.Code)
	if assert.NotNil(t, seen) {
		assert.Equal(t, users.TierPremium, seen.Tier, "the stored record, not the token's claims")
	}

	for _, token := range []string{"gone", "forged", ""} {
		rec = call(rt, "POST", "/v1/reports", token)
		assert.Equal(t, http.StatusUnauthorized, rec.Code, token)
	}
	assert.Equal(t, 1, runs, "no handler ran for a refused caller")

	for i := 2; i <= 10; i++ {
		assert.Equal(t, http.StatusCreated, call(rt, "POST", "/v1/reports", "ok").Code)
	}
	rec = call(rt, "POST", "/v1/reports", "ok")
	assert.Equal(t, http.StatusTooManyRequests, rec.Code, "report allows 10 an hour")
	assert.Equal(t, 10, runs, "the refused request's handler never ran")
	assert.Equal(t, "1800", rec.Header().Get("Retry-After"))

	rec = call(rt, "GET", "/v1/me", "ok")
	assert.Equal(t, http.StatusOK, rec.Code)
	assert.Contains(t, rec.Body.String(), `"tier":"premium"`)
}

// panicRefund is a counter whose refund panics, and brokenUser an
// identity whose read fails: together they make admission panic (a
// failed caller read refunds the count) while an early GET's handler
// waits for its decision.
type panicRefund struct{ memCounter }

func (*panicRefund) Refund(context.Context, string, []ratelimit.Window) error {
	panic("refund exploded")
}

type brokenUser struct{ oneUser }

func (brokenUser) GetUser(context.Context, string) (*users.User, error) {
	return nil, errors.New("table unavailable")
}

// An admission that panics still hands the early GET's handler a
// decision: the handler waiting in Caller.User stops there instead of
// waiting forever, and the request is a 500.
func TestGetHandler_AdmissionPanicReleasesAWaitingHandler(t *testing.T) {
	returned := make(chan struct{})
	rt := NewRouter(Options{Identity: brokenUser{}, Counter: &panicRefund{}, Logger: slog.New(slog.NewTextHandler(io.Discard, nil))},
		[]Route{{Method: "GET", Path: "/v1/me", Auth: AuthBearer, Handler: func(w http.ResponseWriter, r *http.Request) error {
			defer close(returned) // also when User stops the handler
			_ = CallerOf(r).User()
			return JSON(w, http.StatusOK, map[string]bool{"ok": true})
		}}})

	rec := call(rt, "GET", "/v1/me", "ok")
	assert.Equal(t, http.StatusInternalServerError, rec.Code)
	select {
	case <-returned:
	case <-time.After(10 * time.Second):
		t.Fatal("the handler is still waiting for admission's decision: its goroutine leaked")
	}
}
