// Package httpapi is the HTTP adapter shared by every endpoint group: the
// route table type, the router (literal segments beat parameters), JSON
// decoding and encoding, the one error envelope, request ids, structured
// logs, authentication and rate limiting. A group declares its routes once;
// the group's Lambda, the local server, the CDK stack and the API reference
// all read that table.
package httpapi

import (
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
	Handler   HandlerFunc
}

// Group is an endpoint group: one Lambda in AWS, one slice of the local server.
type Group struct {
	Name   string // also the directory under functions/
	Routes []Route
}

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
