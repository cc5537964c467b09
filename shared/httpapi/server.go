package httpapi

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"errors"
	"fmt"
	"log/slog"
	"net/http"
	"net/url"
	"runtime/debug"
	"strings"
	"time"

	"github.com/aws/aws-lambda-go/lambdacontext"
	"github.com/bookplatform/backend/shared/apperr"
	"github.com/bookplatform/backend/shared/auth"
	"github.com/bookplatform/backend/shared/callstats"
	"github.com/bookplatform/backend/shared/idempotency"
	"github.com/bookplatform/backend/shared/quota"
	"github.com/bookplatform/backend/shared/ratelimit"
	"github.com/bookplatform/backend/shared/tracing"
	"github.com/bookplatform/backend/shared/users"
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

// EventualIdentity is an Identity that can also read the caller
// eventually consistent (at half the read units), which the router does
// on the routes Route.ReadsCallerEventually names.
type EventualIdentity interface {
	Identity
	GetUserEventually(ctx context.Context, id string) (*users.User, error)
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
		// Every byte of the line is billed on every request, so it
		// leaves out what is said elsewhere or leads nowhere. The path,
		// the method (and only when the route key does not name it: a
		// HEAD, an OPTIONS or an unmatched request) and dynamoDepth are
		// on a 4xx or 5xx line, which someone reads to debug; a 2xx or
		// 3xx line leaves them out, since the gateway's access line has
		// the path and method and joins this one on the request id. The
		// AWS operations are on a 5xx only, where they are read
		// (dynamoCalls stays, a kept trace lists every call); the id of
		// a trace not kept is left out.
		failed := sw.status >= 400
		attrs := []any{"requestId", st.requestID}
		if failed && !strings.HasPrefix(route, r.Method+" ") {
			attrs = append(attrs, "method", r.Method)
		}
		if failed {
			attrs = append(attrs, "path", r.URL.Path)
		}
		attrs = append(attrs, DimRoute, route,
			"status", sw.status, DimStatusClass, StatusClass(sw.status), DimGroup, rt.opts.Group,
			MetricDuration, float64(time.Since(start).Microseconds())/1000,
			MetricDynamoCalls, calls)
		if failed {
			attrs = append(attrs, "dynamoDepth", depth)
		}
		if sw.status >= 500 {
			attrs = append(attrs, "awsOps", rec.Operations())
		}
		if st.caller.ID != "" {
			attrs = append(attrs, "userId", st.caller.ID)
		}
		// The trace is kept or dropped as the route's span ends (a 5xx,
		// a slow request, a draw), and sent before the line is written.
		if id := tracing.End(ctx, span, route, rt.opts.Group, sw.status); id != "" {
			attrs = append(attrs, "traceId", id)
		}
		rt.opts.Logger.Info(AccessLineMessage, attrs...)
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
