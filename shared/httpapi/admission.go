package httpapi

import (
	"context"
	"errors"
	"fmt"
	"net/http"

	"github.com/bookplatform/backend/shared/apperr"
	"github.com/bookplatform/backend/shared/auth"
	"github.com/bookplatform/backend/shared/quota"
	"github.com/bookplatform/backend/shared/ratelimit"
	"github.com/bookplatform/backend/shared/users"
	"golang.org/x/sync/errgroup"
)

// admission is the router's decision on a request: who calls, the
// rate-limit results for the headers, and whether it may go on.
type admission struct {
	user    *users.User
	store   StoreHeader // the store of the route's role
	results []ratelimit.Result
	err     error // nil: admitted
	// scope and windows are where the request was counted, for a refund
	// of its action budgets when the handler does not serve it.
	scope   string
	windows []ratelimit.Window
	counted bool
}

// finish writes the answer: the refusal, the handler's error or its
// buffered response, with the rate-limit and monthly-quota headers. An
// admitted request its handler did not serve (an error answer) gets its
// action budgets back before the answer leaves.
func (rt *Router) finish(w *statusWriter, r *http.Request, route *Route, st *reqState, a admission, herr error, buf *bufferedWriter) {
	if a.err == nil && (herr != nil || buf.status >= 400) {
		rt.refundActions(r.Context(), &a, route, st)
	}
	setRateHeaders(w.Header(), a.results, st.now)
	if a.err != nil {
		setRefusalHeaders(w.Header(), a.err, st.now)
	} else {
		setRefusalHeaders(w.Header(), herr, st.now)
	}
	if a.user != nil && a.err == nil {
		// The route's quota in the caller's record as read; a refusal
		// of the monthly limit reports the count that refused it, and a
		// post the count it made (its handler's headers replace these).
		kind := route.Quota
		if kind == "" {
			kind = quota.Posts
		}
		use := rt.opts.Quota.Usage(a.user, kind, st.now)
		if le := (*quota.LimitError)(nil); errors.As(herr, &le) {
			use = le.Usage
		}
		SetMonthlyHeaders(w, use)
	}
	switch {
	case a.err != nil:
		rt.writeError(w, r, a.err)
	case herr != nil:
		rt.writeError(w, r, herr)
	default:
		buf.flushTo(w)
	}
}

// admit reads the caller's record and counts the request against its
// rate limits, side by side, and decides.
//
// The request is counted with one conditional write (ratelimit.Counter):
// in every window of its rules at once, and only if all of them allow it.
// The tier rate's limit in that condition is the tier the access token
// names, since the stored tier is being read at the same time; the stored
// tier then decides. The two differ only for a token issued before a tier
// change (at most ACCESS_TOKEN_TTL old): a downgrade whose lower rate the
// request exceeds is refused and its count given back, an upgrade whose
// higher rate a refused request is within is counted again under it.
func (rt *Router) admit(r *http.Request, route *Route, claims *auth.Claims, st *reqState) admission {
	ctx := r.Context()
	tokenTier := ratelimit.TierGuest
	a := admission{scope: addressScope(r)}
	if claims != nil && !claims.IsGuest {
		tokenTier, a.scope = claims.Tier, "user:"+claims.UserID
	}
	a.windows = ratelimit.WindowsAt(routeRulesFor(route, tokenTier), st.now)
	var (
		counts   []int64
		admitted = true
		userErr  error
		roleErr  error
		g        errgroup.Group
	)
	if claims != nil {
		getUser := rt.opts.Identity.GetUser
		if ei, ok := rt.opts.Identity.(EventualIdentity); ok && route.ReadsCallerEventually() {
			getUser = ei.GetUserEventually
		}
		g.Go(func() error { a.user, userErr = getUser(ctx, claims.UserID); return nil })
	}
	g.Go(func() error { counts, admitted = rt.count(ctx, a.scope, a.windows, st); return nil })
	ownStore := false // the route's store is the caller's own (StoreRef.OrOwn)
	if route.Role.isStore() {
		// The role's store is read beside the caller and the counters:
		// a store route pays no extra round trip for its check (one that
		// defaults to the caller's own store, one after the caller's
		// record, when the request names none).
		value, err := storeValue(r, route)
		switch {
		case err != nil:
			roleErr = err
		case rt.opts.Stores == nil:
			roleErr = errNoStoreDirectory
		case value == "":
			ownStore = true
		default:
			g.Go(func() error { a.store, roleErr = rt.opts.Stores.FindStore(ctx, route.Role.Store.By, value); return nil })
		}
	}
	_ = g.Wait()
	a.counted = admitted && counts != nil

	switch {
	case errors.Is(userErr, users.ErrNotFound):
		// A token whose user is gone admits nothing, not even as
		// anonymous on an Optional route, and counts nowhere.
		a.user, a.err = nil, apperr.Unauthorized(MsgUserNotFound)
	case userErr != nil:
		a.user, a.err = nil, fmt.Errorf("load caller %s: %w", claims.UserID, userErr)
	case a.user.Suspended():
		// An operator suspended the account: its tokens stop working
		// from the request after the suspension, on every route, since
		// every request with a token reads the stored record here. It
		// counts nowhere, like a token whose user is gone.
		a.user, a.err = nil, users.ErrSuspended
	case a.user != nil && !a.user.SessionValid(claims.IssuedAt):
		// A token issued before the account's sessions were ended (a
		// suspension, then its restore): dead for good, though its
		// signature and expiry hold, answered like a token that does
		// not verify. The same record read decides it.
		a.user, a.err = nil, apperr.Unauthorized(MsgInvalidToken)
	}
	if a.err != nil {
		rt.refund(ctx, &a, a.windows, st)
		return a
	}
	if !route.Unmetered && a.user != nil && !a.user.IsGuest && string(a.user.Tier) != tokenTier {
		counts, admitted = rt.reconcileTier(ctx, &a, counts, admitted, st)
	}
	a.results = ratelimit.Results(a.windows, counts, admitted)
	if refused, ok := ratelimit.Refusal(a.results); ok {
		a.err = rateLimited(refused, st.now)
		return a
	}
	if route.Role.Need != NeedNone {
		// A refusal by role is the route's answer to an admitted
		// request: the tier rate keeps its count, the action budgets
		// get theirs back (as for a handler's error).
		if roleErr == nil && ownStore {
			var id string
			if id, roleErr = ownStoreOf(a.user, route.Role.Store.Name); roleErr == nil {
				a.store, roleErr = rt.opts.Stores.FindStore(ctx, ByID, id)
			}
		}
		if roleErr == nil {
			roleErr = roleDecision(route.Role, a.user, a.store)
		}
		if roleErr != nil {
			a.err = roleErr
			rt.refundActions(ctx, &a, route, st)
		}
	}
	return a
}

// reconcileTier applies the caller's stored tier to a request counted
// under its token's (admit): the request rate is the first window.
func (rt *Router) reconcileTier(ctx context.Context, a *admission, counts []int64, admitted bool, st *reqState) ([]int64, bool) {
	stored := ratelimit.TierRule(string(a.user.Tier))
	a.windows[0].Rule = stored
	switch {
	case counts == nil:
		return counts, admitted // the counter failed: open
	case admitted && counts[0] > stored.Limit:
		// Counted within the token's higher rate, beyond the stored one.
		rt.refund(ctx, a, a.windows, st)
		a.counted = false
		for i := range counts {
			counts[i]--
		}
		return counts, false
	case !admitted && counts[0] < stored.Limit && onlyRequestRefused(a.windows, counts):
		counts, admitted = rt.count(ctx, a.scope, a.windows, st)
		a.counted = admitted && counts != nil
		return counts, admitted
	}
	return counts, admitted
}

// onlyRequestRefused reports whether, of a refused count, only the
// request rate (window 0) could have refused it.
func onlyRequestRefused(ws []ratelimit.Window, counts []int64) bool {
	for i := 1; i < len(ws); i++ {
		if counts[i] >= ws[i].Rule.Limit {
			return false
		}
	}
	return true
}

// count counts the request with the router's Counter. A counter that
// fails, or none, admits: fail open, with a warning for a failure.
func (rt *Router) count(ctx context.Context, scope string, ws []ratelimit.Window, st *reqState) ([]int64, bool) {
	if rt.opts.Counter == nil || len(ws) == 0 {
		return nil, true
	}
	counts, admitted, err := rt.opts.Counter.Count(ctx, scope, ws)
	if err != nil {
		rt.opts.Logger.Warn("rate limit counter failed; allowing", "requestId", st.requestID, "error", err.Error())
		return nil, true
	}
	return counts, admitted
}

// refund gives the request's count back in ws, if it was counted. The
// refund must happen whatever becomes of the client, so it does not use
// the request's cancellation.
func (rt *Router) refund(ctx context.Context, a *admission, ws []ratelimit.Window, st *reqState) {
	if !a.counted || len(ws) == 0 || rt.opts.Counter == nil {
		return
	}
	if err := rt.opts.Counter.Refund(context.WithoutCancel(ctx), a.scope, ws); err != nil {
		rt.opts.Logger.Warn("rate limit refund failed", "requestId", st.requestID, "error", err.Error())
	}
}

// refundActions gives back the action budgets of a request its handler
// did not serve (it answered an error): the per-tier request rate keeps
// counting every admitted request.
// The headers then report the budgets as the refund left them.
func (rt *Router) refundActions(ctx context.Context, a *admission, route *Route, st *reqState) {
	first := 1 // the tier rate's window
	if route.Unmetered {
		first = 0
	}
	if !a.counted || len(a.windows) <= first || rt.opts.Counter == nil {
		return
	}
	if err := rt.opts.Counter.Refund(context.WithoutCancel(ctx), a.scope, a.windows[first:]); err != nil {
		rt.opts.Logger.Warn("rate limit refund failed", "requestId", st.requestID, "error", err.Error())
		return
	}
	for i := first; i < len(a.results) && i < len(a.windows); i++ {
		r := &a.results[i]
		r.Count = max(r.Count-1, 0)
		r.Remaining = min(r.Remaining+1, r.Rule.Limit)
	}
}

// verify reads and checks the bearer token as the route's auth level asks.
func (rt *Router) verify(r *http.Request, route *Route) (*auth.Claims, error) {
	if route.Auth == AuthNone {
		return nil, nil
	}
	token, present, ok := bearerToken(r)
	switch {
	case !present && route.Auth == AuthOptional:
		return nil, nil
	case !ok:
		return nil, apperr.Unauthorized(MsgMissingAuth)
	case rt.opts.Identity == nil:
		return nil, errors.New("router has no identity provider")
	}
	c, err := rt.opts.Identity.VerifyAccessToken(token)
	if err != nil {
		return nil, apperr.Unauthorized(MsgInvalidToken)
	}
	return &c, nil
}

// bearerToken reads "Authorization: Bearer <token>". present is false when
// there is no header; ok is false when it is there but malformed.
func bearerToken(r *http.Request) (token string, present, ok bool) {
	h := r.Header.Get("Authorization")
	if h == "" {
		return "", false, false
	}
	tok, ok := auth.BearerToken(h)
	return tok, true, ok
}
