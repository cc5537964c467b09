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
	"runtime/debug"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/aws/aws-lambda-go/lambdacontext"
	"github.com/bookplatform/backend/shared/apperr"
	"github.com/bookplatform/backend/shared/auth"
	"github.com/bookplatform/backend/shared/callstats"
	"github.com/bookplatform/backend/shared/ratelimit"
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
	// GetUser returns the stored user, or an apperr NotFound error.
	GetUser(ctx context.Context, id string) (*users.User, error)
}

// Options configure a Router.
type Options struct {
	Identity     Identity
	Counter      ratelimit.Counter // nil disables rate limiting
	Logger       *slog.Logger
	MaxBodyBytes int64
	Now          func() time.Time
}

// Router serves the routes of one or more groups.
type Router struct {
	opts  Options
	table *table
}

// NewRouter builds the router for the given groups.
func NewRouter(opts Options, groups ...Group) *Router {
	if opts.Logger == nil {
		opts.Logger = slog.Default()
	}
	if opts.Now == nil {
		opts.Now = time.Now
	}
	if opts.MaxBodyBytes <= 0 {
		opts.MaxBodyBytes = 1 << 20
	}
	var routes []Route
	for _, g := range groups {
		routes = append(routes, g.Routes...)
	}
	return &Router{opts: opts, table: newTable(routes)}
}

type ctxKey int

const (
	keyState ctxKey = iota
)

// reqState is what the pipeline learns about a request.
type reqState struct {
	requestID string
	route     string
	claims    *auth.Claims
	user      *users.User
	maxBody   int64
	now       time.Time
}

func state(r *http.Request) *reqState {
	s, _ := r.Context().Value(keyState).(*reqState)
	if s == nil {
		return &reqState{maxBody: 1 << 20, now: time.Now()}
	}
	return s
}

// Caller returns the signed-in user, or nil on an anonymous request.
func Caller(r *http.Request) *users.User { return state(r).user }

// CallerClaims returns the verified token claims, or nil.
func CallerClaims(r *http.Request) *auth.Claims { return state(r).claims }

// RequestID returns the request's id (also sent as X-Request-Id).
func RequestID(r *http.Request) string { return state(r).requestID }

// Now returns the request's clock reading, so one request sees one time.
func Now(r *http.Request) time.Time { return state(r).now }

// ServeHTTP runs the pipeline: request id, logging, recovery, routing (404
// and 405 in the envelope), authentication and rate limiting, the handler.
func (rt *Router) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	start := time.Now()
	st := &reqState{requestID: requestID(r), maxBody: rt.opts.MaxBodyBytes, now: rt.opts.Now()}
	ctx, rec := callstats.With(context.WithValue(r.Context(), keyState, st))
	r = r.WithContext(ctx)
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
		attrs := []any{
			"requestId", st.requestID, "method", r.Method, "path", r.URL.Path, "route", st.route,
			"status", sw.status, "durationMs", float64(time.Since(start).Microseconds()) / 1000,
			"dynamoCalls", calls, "dynamoDepth", depth,
		}
		if st.user != nil {
			attrs = append(attrs, "userId", st.user.ID)
		}
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
		rt.writeError(sw, r, errNotFound(r))
		return
	}
	st.route = c.Method + " " + c.Path
	for k, v := range params {
		r.SetPathValue(k, v)
	}
	if err := rt.admit(sw, r, &c.Route, st); err != nil {
		rt.writeError(sw, r, err)
		return
	}
	if err := c.Handler(sw, r); err != nil {
		rt.writeError(sw, r, err)
	}
}

// admit authenticates the caller and applies rate limits. The user read and
// the counter updates run concurrently: one round trip of depth.
func (rt *Router) admit(w http.ResponseWriter, r *http.Request, route *Route, st *reqState) error {
	var claims *auth.Claims
	if route.Auth != AuthNone {
		token, present, ok := bearerToken(r)
		switch {
		case !present && route.Auth == AuthOptional:
		case !ok:
			return apperr.Unauthorized(MsgMissingAuth)
		default:
			if rt.opts.Identity == nil {
				return errors.New("router has no identity provider")
			}
			c, err := rt.opts.Identity.VerifyAccessToken(token)
			if err != nil {
				return apperr.Unauthorized(MsgInvalidToken)
			}
			claims = &c
		}
	}
	st.claims = claims

	// Scope: signed-in full accounts by user id; guests and anonymous
	// callers by source address.
	scope := "ip:" + clientIP(r)
	if claims != nil && !claims.IsGuest {
		scope = "user:" + claims.UserID
	}
	var rules []ratelimit.Rule
	if !route.Unmetered {
		rules = append(rules, ratelimit.Rule{Name: ratelimit.RequestAction}) // limit fixed once the tier is known
	}
	for _, a := range route.Actions {
		rule, ok := ratelimit.Actions[a]
		if !ok {
			return fmt.Errorf("route %s %s names unknown rate-limit action %q", route.Method, route.Path, a)
		}
		rules = append(rules, rule)
	}

	var (
		wg      sync.WaitGroup
		user    *users.User
		userErr error
		counts  = make([]int64, len(rules))
	)
	ctx := r.Context()
	if claims != nil {
		wg.Add(1)
		go func() {
			defer wg.Done()
			user, userErr = rt.opts.Identity.GetUser(ctx, claims.UserID)
		}()
	}
	if rt.opts.Counter != nil {
		for i, rule := range rules {
			window := rule.Window
			if rule.Name == ratelimit.RequestAction {
				window = time.Minute
			}
			wg.Add(1)
			go func() {
				defer wg.Done()
				ws := ratelimit.WindowStart(st.now, window)
				n, err := rt.opts.Counter.Incr(ctx, scope, rule.Name, ws, ws.Add(window))
				if err != nil {
					// Fail open: a counter outage must not take the API down.
					rt.opts.Logger.Warn("rate limit counter failed; allowing", "requestId", st.requestID, "error", err.Error())
					n = -1
				}
				counts[i] = n
			}()
		}
	}
	wg.Wait()

	if claims != nil {
		if userErr != nil {
			if apperr.Is(userErr, apperr.CodeNotFound) {
				return apperr.Unauthorized(MsgUserNotFound)
			}
			return fmt.Errorf("load caller %s: %w", claims.UserID, userErr)
		}
		st.user = user
	}
	if rt.opts.Counter == nil || len(rules) == 0 {
		return nil
	}

	tier := ratelimit.TierGuest
	if user != nil && !user.IsGuest {
		tier = string(user.Tier)
	}
	results := make([]ratelimit.Result, len(rules))
	for i, rule := range rules {
		if rule.Name == ratelimit.RequestAction {
			rule = ratelimit.TierRule(tier)
		}
		results[i] = ratelimit.Decide(rule, counts[i], st.now)
	}
	t := ratelimit.Tightest(results)
	h := w.Header()
	h.Set("X-RateLimit-Limit", strconv.FormatInt(t.Rule.Limit, 10))
	h.Set("X-RateLimit-Remaining", strconv.FormatInt(t.Remaining, 10))
	h.Set("X-RateLimit-Reset", strconv.FormatInt(t.Reset.Unix(), 10))
	if !t.Allowed {
		retry := t.Reset.Sub(st.now)
		h.Set("Retry-After", strconv.FormatInt(int64((retry+time.Second-1)/time.Second), 10))
		return apperr.New(apperr.CodeRateLimited, "Rate limit exceeded for %s: %d per %s", t.Rule.Name, t.Rule.Limit, t.Rule.Window).
			WithDetails(map[string]any{
				"error":      "rate_limit_exceeded",
				"action":     t.Rule.Name,
				"retryAfter": retry.Milliseconds(),
				"limit":      t.Rule.Limit,
				"remaining":  0,
			})
	}
	return nil
}

// bearerToken reads "Authorization: Bearer <token>". present is false when
// there is no header; ok is false when it is there but malformed.
func bearerToken(r *http.Request) (token string, present, ok bool) {
	h := r.Header.Get("Authorization")
	if h == "" {
		return "", false, false
	}
	scheme, tok, found := strings.Cut(strings.TrimSpace(h), " ")
	tok = strings.TrimSpace(tok)
	if !found || !strings.EqualFold(scheme, "Bearer") || tok == "" {
		return "", true, false
	}
	return tok, true, true
}

// clientIP is the caller's address: API Gateway's source IP in Lambda (the
// adapter puts it in RemoteAddr), the socket peer locally. Forwarded
// headers are not trusted: a client could set them.
func clientIP(r *http.Request) string {
	if host, _, err := net.SplitHostPort(r.RemoteAddr); err == nil {
		return host
	}
	return r.RemoteAddr
}

// requestID uses the Lambda request id when running in Lambda, so logs
// join up with the platform's, and a fresh random id otherwise.
func requestID(r *http.Request) string {
	if lc, ok := lambdacontext.FromContext(r.Context()); ok && lc.AwsRequestID != "" {
		return lc.AwsRequestID
	}
	var b [12]byte
	_, _ = rand.Read(b[:])
	return hex.EncodeToString(b[:])
}

func setCORS(w http.ResponseWriter) {
	h := w.Header()
	h.Set("Access-Control-Allow-Origin", "*")
	h.Set("Access-Control-Expose-Headers", "X-Request-Id, X-RateLimit-Limit, X-RateLimit-Remaining, X-RateLimit-Reset, Retry-After, X-Monthly-Limit, X-Monthly-Remaining, X-Monthly-Reset")
}

func writeCORSPreflight(w *statusWriter) {
	setCORS(w)
	h := w.Header()
	h.Set("Access-Control-Allow-Methods", "GET, POST, PUT, DELETE, OPTIONS")
	h.Set("Access-Control-Allow-Headers", "Authorization, Content-Type")
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
