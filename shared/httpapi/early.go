package httpapi

import (
	"context"
	"fmt"
	"net/http"
	"runtime/debug"

	"github.com/bookplatform/backend/shared/effects"
)

// serveRoute authenticates, applies rate limits and runs the handler.
//
// The caller's record and the rate-limit counters are read side by side
// (admit). A GET handler starts beside them with the caller's identity
// only, in a context that refuses every side effect (shared/effects), and
// its answer is held until the request is admitted: an authenticated read
// costs max(caller read, counter, its own first reads), not their sum.
// Every other handler starts only once the request is admitted, so a
// request refused by authentication or a rate limit changes nothing, by
// construction: no AWS write, no payment, no external call, no bcrypt
// round.
func (rt *Router) serveRoute(w *statusWriter, r *http.Request, route *Route, st *reqState) {
	claims, err := rt.verify(r, route)
	if err != nil {
		rt.writeError(w, r, err)
		return
	}
	if claims != nil {
		st.caller = Caller{ID: claims.UserID, SessionID: claims.SessionID, route: st.route}
	}
	buf := newBufferedWriter()

	if route.early() {
		st.caller.early = true
		ctx, cancel := context.WithCancel(effects.ReadOnly(r.Context()))
		defer cancel()
		done := make(chan error, 1)
		go func() { done <- rt.runHandler(route, buf, r.WithContext(ctx)) }()
		a := rt.admit(r, route, claims, st)
		if a.err != nil {
			cancel() // its answer will not be used: stop its reads
		}
		herr := <-done
		rt.finish(w, r, route, st, a, herr, buf)
		return
	}

	a := rt.admit(r, route, claims, st)
	if a.err != nil {
		rt.finish(w, r, route, st, a, nil, buf)
		return
	}
	st.caller.user, st.caller.store = a.user, a.store
	var herr error
	if route.Idempotent && rt.opts.Idempotency != nil {
		herr = rt.serveIdempotent(buf, r, route, st)
	} else {
		herr = rt.runHandler(route, buf, r)
	}
	rt.finish(w, r, route, st, a, herr, buf)
}

// runHandler runs the route's handler, turning a panic into an error so
// that a handler running in its own goroutine cannot take the process
// down.
func (rt *Router) runHandler(route *Route, w http.ResponseWriter, r *http.Request) (err error) {
	defer func() {
		if p := recover(); p != nil {
			rt.opts.Logger.Error("panic", "requestId", RequestID(r), "panic", fmt.Sprint(p), "stack", string(debug.Stack()))
			err = fmt.Errorf("handler panicked: %v", p)
		}
	}()
	return route.Handler(w, r)
}
