package httpapi

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"runtime/debug"
	"sync"

	"github.com/bookplatform/backend/shared/effects"
	"github.com/bookplatform/backend/shared/users"
)

// serveRoute authenticates, applies rate limits and runs the handler.
//
// The caller's record and the rate-limit counters are read side by side
// (admit). A GET handler starts beside them with the caller's identity
// only, in a context that refuses every side effect (shared/effects), and
// its answer is held until the request is admitted: an authenticated read
// costs max(caller read, counter, its own first reads), not their sum.
// Such a handler may still ask for the caller's record or the role's
// store (Caller.User, Caller.Store): the call waits for admission and
// returns what the router read, or, for a refused request, stops the
// handler there (its answer is the refusal anyway). So no route has to
// know to ask for AfterAdmission to read them; the flag only saves the
// early start's reads where a handler would waste them.
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
		st.caller = Caller{ID: claims.UserID, SessionID: claims.SessionID}
	}
	buf := newBufferedWriter()

	if route.early() {
		wait := &admitted{ready: make(chan struct{})}
		st.caller.wait = wait
		ctx, cancel := context.WithCancel(effects.ReadOnly(r.Context()))
		defer cancel()
		done := make(chan error, 1)
		go func() { done <- rt.runHandler(route, buf, r.WithContext(ctx)) }()
		// Whatever ends admission, a panic included, the handler gets a
		// decision: without one, a handler waiting in Caller.User would
		// wait forever, a goroutine leaked per such request (the
		// server's recover answers 500 without it).
		defer wait.publish(admission{err: errNotAdmitted})
		a := rt.admit(r, route, claims, st)
		if a.err != nil {
			cancel() // its answer will not be used: stop its reads
		}
		wait.publish(a)
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
			if _, ok := p.(refusedStop); ok {
				err = errRefusedStop // not a bug: see admitted.wait
				return
			}
			rt.opts.Logger.Error("panic", "requestId", RequestID(r), "panic", fmt.Sprint(p), "stack", string(debug.Stack()))
			err = fmt.Errorf("handler panicked: %v", p)
		}
	}()
	return route.Handler(w, r)
}

// admitted is the router's decision as an early GET's handler sees it:
// published once admission ends (publish), read by Caller.User and
// Caller.Store, which wait for it.
type admitted struct {
	once    sync.Once
	ready   chan struct{} // closed by publish
	user    *users.User
	store   StoreHeader
	refused bool
}

// publish hands the decision to the handler. The channel's close orders
// these writes before every read of them (the Go memory model). Only the
// first call counts: serveRoute publishes admission's decision, then
// again a refusal in a defer for the path where admission never ended.
func (w *admitted) publish(a admission) {
	w.once.Do(func() {
		w.user, w.store, w.refused = a.user, a.store, a.err != nil
		close(w.ready)
	})
}

// wait blocks until the request is admitted and returns the decision. A
// refused request stops its handler here: it panics with refusedStop,
// which runHandler turns into errRefusedStop without logging it as a
// bug; finish answers the refusal, never that error.
func (w *admitted) wait() *admitted {
	<-w.ready
	if w.refused {
		panic(refusedStop{})
	}
	return w
}

// refusedStop is the panic value that ends the handler of a refused
// early GET (admitted.wait).
type refusedStop struct{}

// errNotAdmitted is the decision an early GET's handler gets when
// admission ended without one (it panicked).
var errNotAdmitted = errors.New("httpapi: admission did not complete")

// errRefusedStop is the handler's result once refusedStop ended it.
var errRefusedStop = errors.New("httpapi: request refused at admission; handler stopped")
