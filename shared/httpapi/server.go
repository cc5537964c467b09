package httpapi

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"errors"
	"fmt"
	"log/slog"
	"net"
	"net/http"
	"net/url"
	"runtime/debug"
	"strconv"
	"strings"
	"time"

	"github.com/aws/aws-lambda-go/lambdacontext"
	"github.com/bookplatform/backend/shared/apperr"
	"github.com/bookplatform/backend/shared/auth"
	"github.com/bookplatform/backend/shared/callstats"
	"github.com/bookplatform/backend/shared/effects"
	"github.com/bookplatform/backend/shared/idempotency"
	"github.com/bookplatform/backend/shared/quota"
	"github.com/bookplatform/backend/shared/ratelimit"
	"github.com/bookplatform/backend/shared/tracing"
	"github.com/bookplatform/backend/shared/users"
	"golang.org/x/sync/errgroup"
)

// The three 401 messages of the spec's Authentication item 6, exact.
const (
	MsgMissingAuth  = "Missing or invalid authorization header"
	MsgInvalidToken = "Invalid or expired token"
	MsgUserNotFound = "User not found"
)

// Identity verifies access tokens and loads the caller.
type Identity interface {
	VerifyAccessToken(token string) (auth.Claims, error)
	// GetUser returns the stored user. Errors: users.ErrNotFound.
	GetUser(ctx context.Context, id string) (*users.User, error)
}

// Options configure a Router.
type Options struct {
	Identity     Identity
	Counter      ratelimit.Counter // nil disables rate limiting
	Logger       *slog.Logger
	MaxBodyBytes int64
	Now          func() time.Time
	// CursorKeys are the keys of pagination cursors (32 bytes each;
	// CursorPage, NewCursorBody) held now: the first seals, every one
	// opens, so a cursor issued before a key rotation still pages on. Nil
	// seals with a zero key, which only tests of the router use.
	CursorKeys func() [][]byte
	// Quota reports the free tier's monthly posts on every response of a
	// free-tier caller (X-Monthly-*); the zero value reports nothing.
	Quota quota.Policy
	// Idempotency keeps the answers of Idempotent routes for retries; nil
	// serves those routes without it.
	Idempotency idempotency.Store
	// Group names the function the router serves (a metric dimension of
	// the access log); empty is "local".
	Group string
	// MetricsNamespace is the CloudWatch namespace of the access log's
	// metrics; empty is DefaultMetricsNamespace.
	MetricsNamespace string
	// IdempotencySecrets key the records Idempotency keeps (32 bytes
	// each; idempotency.Sealer): their request fingerprints and sealed
	// answers. The first keys new records, every one serves a retry.
	IdempotencySecrets func() [][]byte
	// Stores finds the stores that routes' roles name (Route.Role).
	Stores StoreDirectory
}

// Router serves a set of routes.
type Router struct {
	opts  Options
	table *table
}

// NewRouter builds the router for routes. It panics on a route that
// names an unknown rate-limit action: a route table is code, and a
// misspelt action would otherwise fail every request of the route.
func NewRouter(opts Options, routes []Route) *Router {
	if opts.Logger == nil {
		opts.Logger = slog.Default()
	}
	if opts.Now == nil {
		opts.Now = time.Now
	}
	if opts.MaxBodyBytes <= 0 {
		opts.MaxBodyBytes = 1 << 20
	}
	for i := range routes {
		if _, err := routeRules(&routes[i]); err != nil {
			panic(err)
		}
		if err := routes[i].Role.check(&routes[i]); err != nil {
			panic(err)
		}
	}
	if opts.Group == "" {
		opts.Group = "local"
	}
	if opts.MetricsNamespace == "" {
		opts.MetricsNamespace = DefaultMetricsNamespace
	}
	if opts.CursorKeys == nil {
		opts.CursorKeys = func() [][]byte { return nil }
	}
	if opts.IdempotencySecrets == nil {
		opts.IdempotencySecrets = func() [][]byte { return nil }
	}
	return &Router{opts: opts, table: newTable(routes)}
}

type ctxKey int

const (
	keyState ctxKey = iota
	keyRequestID
)

// reqState is what the pipeline learns about a request.
type reqState struct {
	requestID string
	route     string
	// optionalBody: the route's JSON body may be left out (Doc.OptionalBody).
	optionalBody bool
	caller       Caller
	cursorKeys   func() [][]byte
	maxBody      int64
	now          time.Time
}

func state(r *http.Request) *reqState {
	s, _ := r.Context().Value(keyState).(*reqState)
	if s == nil {
		id, _ := r.Context().Value(keyRequestID).(string)
		return &reqState{requestID: id, maxBody: 1 << 20, now: time.Now()}
	}
	return s
}

// WithRequestID gives r the id id, for a server in front of the router
// (the local server's start-up answers, its header limit, /media): the
// router then keeps it, and RequestID and WriteError use it.
func WithRequestID(r *http.Request, id string) *http.Request {
	return r.WithContext(context.WithValue(r.Context(), keyRequestID, id))
}

// requestIDOf is the id given by WithRequestID, or a new one.
func requestIDOf(r *http.Request) string {
	if id, _ := r.Context().Value(keyRequestID).(string); id != "" {
		return id
	}
	return NewRequestID(r)
}

// RequestID returns the request's id (also sent as X-Request-Id).
func RequestID(r *http.Request) string { return state(r).requestID }

// Now returns the request's clock reading, so one request sees one time.
func Now(r *http.Request) time.Time { return state(r).now }

// ServeHTTP runs the pipeline: request id, logging, recovery, routing (404
// and 405 in the envelope), authentication and rate limiting, the handler.
// The request is one span of its trace (shared/tracing), and its access
// log line carries the trace id and the line's metrics (accesslog.go).
func (rt *Router) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	start := time.Now()
	st := &reqState{requestID: requestIDOf(r), maxBody: rt.opts.MaxBodyBytes, now: rt.opts.Now(), cursorKeys: rt.opts.CursorKeys}
	tctx, span := tracing.Start(r.Context(), UnmatchedRoute)
	ctx, rec := callstats.With(context.WithValue(tctx, keyState, st))
	r = r.WithContext(ctx)
	if r.Method == http.MethodHead {
		w = headWriter{w}
	}
	sw := &statusWriter{ResponseWriter: w}
	sw.Header().Set("X-Request-Id", st.requestID)

	defer func() {
		if p := recover(); p != nil {
			rt.opts.Logger.Error("panic", "requestId", st.requestID, "panic", fmt.Sprint(p), "stack", string(debug.Stack()))
			if !sw.wrote {
				rt.writeError(sw, r, errors.New("panic"))
			}
		}
		calls, depth := rec.Summary("dynamodb")
		route := st.route
		if route == "" {
			route = UnmatchedRoute
		}
		attrs := []any{
			"requestId", st.requestID, "method", r.Method, "path", r.URL.Path, DimRoute, route,
			"status", sw.status, DimStatusClass, StatusClass(sw.status), DimGroup, rt.opts.Group,
			MetricDuration, float64(time.Since(start).Microseconds()) / 1000,
			MetricDynamoCalls, calls, "dynamoDepth", depth, "awsOps", rec.Operations(),
		}
		if st.caller.ID != "" {
			attrs = append(attrs, "userId", st.caller.ID)
		}
		if id := tracing.TraceID(ctx); id != "" {
			attrs = append(attrs, "traceId", id)
		}
		attrs = append(attrs, emfMetadata(rt.opts.MetricsNamespace, start))
		tracing.End(span, route, rt.opts.Group, sw.status)
		rt.opts.Logger.Info("request", attrs...)
	}()

	if r.Method == http.MethodOptions {
		writeCORSPreflight(sw)
		return
	}
	setCORS(sw)

	c, params, allowed := rt.table.match(r.Method, r.URL.Path)
	if c == nil {
		if len(allowed) > 0 {
			sw.Header().Set("Allow", strings.Join(allowed, ", "))
			rt.writeError(sw, r, errMethod(r, allowed))
			return
		}
		rt.writeError(sw, r, NoRoute(r))
		return
	}
	st.route = c.Method + " " + c.Path
	span.SetName(st.route)
	st.optionalBody = c.Doc.OptionalBody
	for k, v := range params {
		r.SetPathValue(k, v)
	}
	if _, err := url.ParseQuery(r.URL.RawQuery); err != nil {
		// r.URL.Query() would drop the bad pair silently and serve, say,
		// the first page instead of the one the client asked for.
		rt.writeError(sw, r, apperr.Validation("Malformed query string", map[string]string{"query": "is not valid URL encoding"}))
		return
	}
	rt.serveRoute(sw, r, c, st)
}

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

// finish writes the answer: the refusal, the handler's error or its
// buffered response, with the rate-limit and monthly-quota headers. An
// admitted request its handler did not serve (an error answer) gets its
// action budgets back before the answer leaves.
func (rt *Router) finish(w *statusWriter, r *http.Request, route *Route, st *reqState, a admission, herr error, buf *bufferedWriter) {
	if a.err == nil && (herr != nil || buf.status >= 400) {
		rt.refundActions(r.Context(), &a, route, st)
	}
	setRateHeaders(w.Header(), a.results, st.now)
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
		g.Go(func() error { a.user, userErr = rt.opts.Identity.GetUser(ctx, claims.UserID); return nil })
	}
	g.Go(func() error { counts, admitted = rt.count(ctx, a.scope, a.windows, st); return nil })
	if route.Role.isStore() {
		// The role's store is read beside the caller and the counters:
		// a store route pays no extra round trip for its check.
		value, err := storeValue(r, route)
		switch {
		case err != nil:
			roleErr = err
		case rt.opts.Stores == nil:
			roleErr = errNoStoreDirectory
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

// routeRules lists the limits a route counts against: the tier rate
// (whose limit is fixed once the caller's tier is known) first, then the
// route's actions. It fails on an unknown action name.
func routeRules(route *Route) ([]ratelimit.Rule, error) {
	var rules []ratelimit.Rule
	if !route.Unmetered {
		rules = append(rules, ratelimit.TierRule(ratelimit.TierGuest))
	}
	for _, a := range route.Actions {
		rule, ok := ratelimit.Actions[a]
		if !ok {
			return nil, fmt.Errorf("route %s %s names unknown rate-limit action %q", route.Method, route.Path, a)
		}
		rules = append(rules, rule)
	}
	return rules, nil
}

// routeRulesFor is routeRules with the tier rate of tier.
func routeRulesFor(route *Route, tier string) []ratelimit.Rule {
	rules, _ := routeRules(route) // checked by NewRouter
	if !route.Unmetered {
		rules[0] = ratelimit.TierRule(tier)
	}
	return rules
}

// rateLimited is the 429 of a refused request (ratelimit.Exceeded),
// Retry-After until the refusing rule's window ends.
func rateLimited(t ratelimit.Result, now time.Time) error {
	return ratelimit.Exceeded(t.Rule.Name, t.Rule.Limit, t.Reset.Sub(now),
		fmt.Sprintf("Rate limit exceeded for %s: %d per %s", t.Rule.Name, t.Rule.Limit, t.Rule.Window))
}

// setRateHeaders reports the tightest rule in the X-RateLimit headers.
func setRateHeaders(h http.Header, results []ratelimit.Result, now time.Time) {
	if len(results) == 0 {
		return
	}
	t := ratelimit.Tightest(results)
	h.Set("X-RateLimit-Limit", strconv.FormatInt(t.Rule.Limit, 10))
	h.Set("X-RateLimit-Remaining", strconv.FormatInt(t.Remaining, 10))
	h.Set("X-RateLimit-Reset", strconv.FormatInt(t.Reset.Unix(), 10))
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

// addressScope is the identity of a caller without an account of its
// own: its address. The anonymous (and guest) rate limits count under it,
// and anonymous idempotency keys are scoped by it.
func addressScope(r *http.Request) string { return "ip:" + clientIP(r) }

// clientIP is the caller's address: API Gateway's source IP in Lambda (the
// adapter puts it in RemoteAddr), the socket peer locally. Forwarded
// headers are not trusted: a client could set them.
func clientIP(r *http.Request) string {
	if host, _, err := net.SplitHostPort(r.RemoteAddr); err == nil {
		return host
	}
	return r.RemoteAddr
}

// NewRequestID draws the id of a request: the Lambda invocation's
// request id when there is one, so logs join up with the platform's,
// else 12 random bytes in hex.
func NewRequestID(r *http.Request) string {
	if lc, ok := lambdacontext.FromContext(r.Context()); ok && lc.AwsRequestID != "" {
		return lc.AwsRequestID
	}
	return randomID()
}

// randomID is 12 random bytes in hex.
func randomID() string {
	var b [12]byte
	_, _ = rand.Read(b[:])
	return hex.EncodeToString(b[:])
}

// ExposedHeaders are the response headers browsers may read. The CDK stack
// repeats them in API Gateway's CORS configuration, which replaces ours.
var ExposedHeaders = []string{
	"X-Request-Id", "X-RateLimit-Limit", "X-RateLimit-Remaining", "X-RateLimit-Reset", "Retry-After",
	"X-Monthly-Limit", "X-Monthly-Remaining", "X-Monthly-Reset", "Idempotent-Replayed",
}

// AllowedHeaders are the request headers browsers may send.
var AllowedHeaders = []string{"Authorization", "Content-Type", "Idempotency-Key"}

func setCORS(w http.ResponseWriter) {
	h := w.Header()
	h.Set("Access-Control-Allow-Origin", "*")
	h.Set("Access-Control-Expose-Headers", strings.Join(ExposedHeaders, ", "))
}

func writeCORSPreflight(w *statusWriter) {
	setCORS(w)
	h := w.Header()
	h.Set("Access-Control-Allow-Methods", "GET, POST, PUT, DELETE, OPTIONS")
	h.Set("Access-Control-Allow-Headers", strings.Join(AllowedHeaders, ", "))
	h.Set("Access-Control-Max-Age", "600")
	w.WriteHeader(http.StatusNoContent)
}

// statusWriter remembers the status for the access log.
type statusWriter struct {
	http.ResponseWriter
	status int
	wrote  bool
}

func (w *statusWriter) WriteHeader(code int) {
	if !w.wrote {
		w.status, w.wrote = code, true
	}
	w.ResponseWriter.WriteHeader(code)
}

func (w *statusWriter) Write(b []byte) (int, error) {
	if !w.wrote {
		w.WriteHeader(http.StatusOK)
	}
	return w.ResponseWriter.Write(b)
}

// headWriter answers a HEAD: the GET's status and headers, no body
// (net/http drops it by itself, a Lambda adapter may not).
type headWriter struct{ http.ResponseWriter }

func (w headWriter) Write(b []byte) (int, error) { return len(b), nil }

// bufferedWriter holds a handler's response until the request's answer
// is decided (admission, idempotency).
type bufferedWriter struct {
	header http.Header
	status int
	body   []byte
}

func newBufferedWriter() *bufferedWriter { return &bufferedWriter{header: http.Header{}} }

func (b *bufferedWriter) Header() http.Header { return b.header }

func (b *bufferedWriter) WriteHeader(code int) {
	if b.status == 0 {
		b.status = code
	}
}

func (b *bufferedWriter) Write(p []byte) (int, error) {
	if b.status == 0 {
		b.status = http.StatusOK
	}
	b.body = append(b.body, p...)
	return len(p), nil
}

func (b *bufferedWriter) flushTo(w http.ResponseWriter) {
	for k, v := range b.header {
		w.Header()[k] = v
	}
	if b.status == 0 {
		b.status = http.StatusOK
	}
	if b.status != http.StatusNoContent && b.status != http.StatusNotModified {
		// The whole body is known: a HEAD reports the GET's length.
		w.Header().Set("Content-Length", strconv.Itoa(len(b.body)))
	}
	w.WriteHeader(b.status)
	_, _ = w.Write(b.body)
}

// SetMonthlyHeaders reports a free-tier caller's monthly quota
// (X-Monthly-Limit, X-Monthly-Remaining, X-Monthly-Reset); a no-op for
// unlimited tiers. The router sets them from the caller record on every
// response; a handler that just published calls it to count that post.
func SetMonthlyHeaders(w http.ResponseWriter, u quota.Usage) {
	if !u.Limited {
		return
	}
	h := w.Header()
	h.Set("X-Monthly-Limit", strconv.Itoa(u.Limit))
	h.Set("X-Monthly-Remaining", strconv.Itoa(u.Remaining))
	h.Set("X-Monthly-Reset", u.ResetsAt.Format(time.RFC3339))
}
