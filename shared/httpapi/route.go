// Package httpapi is the HTTP adapter shared by every endpoint group: the
// route type, the router (literal segments beat parameters), admission
// (authentication and rate limits before anything changes), idempotency
// keys, JSON decoding and encoding, the one error envelope with the only
// code → status table, cursor and offset pages, request ids and access
// logs. A group declares its routes once (shared/api); the group's
// Lambda, the local server, the CDK stack and the API reference all read
// that table.
package httpapi

import (
	"fmt"
	"github.com/bookplatform/backend/shared/page"
	"github.com/bookplatform/backend/shared/quota"
	"net/http"
	"strings"
)

// Auth is a route's authentication level.
type Auth int

// Authentication levels, as in the spec's Auth column.
const (
	AuthNone     Auth = iota // no token read
	AuthOptional             // a token is used when sent
	AuthBearer               // a valid token is required
)

// String returns the spec's name for the level.
func (a Auth) String() string {
	switch a {
	case AuthOptional:
		return "Optional"
	case AuthBearer:
		return "Bearer"
	default:
		return "None"
	}
}

// HandlerFunc serves one route. A returned error is written in the error
// envelope; handlers never write errors themselves.
type HandlerFunc func(w http.ResponseWriter, r *http.Request) error

// Route is one entry of a group's route table.
type Route struct {
	Method string
	Path   string // full path with version, {name} for parameters
	Auth   Auth
	// Actions are the per-action rate limits (ratelimit.Actions keys) this
	// route counts against, beside the per-tier request rate.
	Actions []string
	// Unmetered routes skip the request-rate counter (health checks).
	Unmetered bool
	// AfterAdmission makes a GET handler start only once the request is
	// admitted, as every other method's does: for a GET that needs the
	// caller's stored record (GET /users/me) or has side effects (an
	// OAuth callback). Other GET handlers start at once, beside the
	// caller read and the rate-limit counters, with side effects refused.
	AfterAdmission bool
	// Idempotent routes honour an Idempotency-Key header: a retry with
	// the same key and body gets the first answer (every POST that
	// creates something).
	Idempotent bool
	// Quota is the free tier's monthly quota the route charges (POST
	// /lines and replies: posts; POST /reviews: reviews). Its answers
	// report that quota in X-Monthly-*, a refusal included, and its 403
	// may carry the stated monthly-limit body; every other route's
	// answers report the posts quota.
	Quota quota.Kind
	// Role is the standing the caller must hold beyond Auth: the
	// bookstore tier, or the owner's or staff's of the store the route
	// names (role.go). The router checks it during admission: 403 for
	// the wrong standing, 404 for an unknown store.
	Role    Role
	Handler HandlerFunc
	// Doc describes the route for the API reference.
	Doc Doc
}

// ReadsCallerEventually reports whether the router reads a signed-in
// caller's record eventually consistent on this route, at half the read
// units: a public read (GET or HEAD, auth Optional, no role) whose handler
// starts beside admission. There the record decides only whether the
// token is still honoured (a suspended, ended or deleted account) and the
// stored tier's rate, and it personalises a page that is itself read
// eventually consistent (the indexes, the catalog's batch reads). Most
// such pages are the same for anyone without a token; a private
// wishlist's or club's views also show their owner or members more, so
// an account suspended a moment ago can read its own private wishlist or
// club for that moment (about a second, DynamoDB's usual lag), never
// anyone else's: what it may read is decided by the wishlist's owner or
// the membership, read strongly consistent, not by the record.
// Everywhere else (a write, a role, GET /users/me and the other routes
// that show the caller's record: AfterAdmission) it is read
// strongly consistent, as whoever just wrote it must read it as written.
func (rt *Route) ReadsCallerEventually() bool {
	return (rt.Method == http.MethodGet || rt.Method == http.MethodHead) && rt.Auth == AuthOptional &&
		rt.Role.Need == NeedNone && !rt.AfterAdmission
}

// Doc is what the API reference says of a route beyond its table entry:
// its request and response bodies (as zero values of their Go types, read
// by reflection), its query parameters and the statuses it answers.
type Doc struct {
	Summary string
	// Query lists the query parameters.
	Query []Param
	// Body is the JSON request body (nil for none); Multipart names the
	// file field of a multipart/form-data upload instead.
	Body      any
	Multipart string
	// OptionalBody marks a JSON body a client may leave out (POST
	// /auth/guest and /auth/logout take {}): Decode reads an empty body
	// as {}. Every other JSON body is required.
	OptionalBody bool
	// Response is the success body; Status its status (200 when 0), and
	// Also the other success statuses with the same body (POST /reviews
	// answers 201 for a new review, 200 for an update).
	Response any
	Status   int
	Also     []int
	// Errors are the error statuses the handler answers. The router's own
	// (400 for a malformed query string, 401 on token routes, 429 on
	// metered routes, 500) are added by the reference itself.
	Errors []int
	// Why says, per status, which situation gives it where the codes
	// alone do not tell (following someone twice is 400, not the 409 the
	// route also lists): the reference lists it in the operation's
	// description.
	Why map[int]string
}

// Param is a query parameter.
type Param struct {
	Name     string
	Type     string // "string", "integer", "number" or "boolean"
	Required bool
	Enum     []string
	About    string
	// Minimum and Maximum are the bounds the handler enforces on a
	// number (nil: none); Default is the value when it is left out (nil:
	// none stated). The reference states them, so that a generated client
	// checks them before it sends.
	Minimum, Maximum *float64
	Default          any
	// NotUUID: a string parameter named like an id ("...Id") that holds
	// other values too (the audit log's actorId, cli:<name> for the
	// operator command); the reference states no uuid format for it.
	NotUUID bool
}

// LimitParam is the limit of a list: 1 to max, default def. about, when
// given, says more after the bounds.
func LimitParam(def, max int, about ...string) Param {
	text := fmt.Sprintf("%d-%d, default %d", 1, max, def)
	if len(about) > 0 {
		text += ": " + strings.Join(about, " ")
	}
	return Param{Name: "limit", Type: "integer", About: text, Minimum: bound(1), Maximum: bound(max), Default: def}
}

// OffsetParam is the offset of an offset list: 0 to page.MaxOffset
// (OffsetPage answers 400 beyond it), default 0.
func OffsetParam() Param {
	return Param{Name: "offset", Type: "integer", About: fmt.Sprintf("0-%d, default 0: beyond that, narrow the list with its filters", page.MaxOffset),
		Minimum: bound(0), Maximum: bound(page.MaxOffset), Default: 0}
}

func bound[N int | float64](n N) *float64 { f := float64(n); return &f }

// early reports whether the handler starts before admission (a GET not
// marked AfterAdmission).
func (r *Route) early() bool { return r.Method == http.MethodGet && !r.AfterAdmission }

// V1 prefixes a spec path with the current version segment.
func V1(path string) string { return "/v1" + path }

// segments splits a path into its segments; "/" has none.
func segments(path string) []string {
	path = strings.Trim(path, "/")
	if path == "" {
		return nil
	}
	return strings.Split(path, "/")
}

// isParam reports whether a pattern segment is a {parameter}.
func isParam(seg string) bool {
	return len(seg) > 2 && seg[0] == '{' && seg[len(seg)-1] == '}'
}
