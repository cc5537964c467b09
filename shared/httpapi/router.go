package httpapi

import (
	"net/http"
	"slices"
	"strings"

	"github.com/bookplatform/backend/shared/apperr"
	"github.com/bookplatform/backend/shared/text"
)

// table finds the route of a request: the most specific path pattern
// (Patterns) decides, and its routes by method; a pattern without the
// request's method answers 405 with the methods it has.
type table struct {
	patterns *Patterns
	routes   map[string]map[string]*Route // pattern → method → route
}

func newTable(routes []Route) *table {
	t := &table{routes: map[string]map[string]*Route{}}
	paths := make([]string, 0, len(routes))
	for i := range routes {
		r := &routes[i]
		if t.routes[r.Path] == nil {
			t.routes[r.Path] = map[string]*Route{}
		}
		t.routes[r.Path][r.Method] = r
		paths = append(paths, r.Path)
	}
	t.patterns = NewPatterns(paths...)
	return t
}

// match returns the route for the request and its path parameters, or
// the methods the matching pattern allows (none: no pattern matches).
// Every GET route answers HEAD as well: the same route, without the
// body (ServeHTTP).
func (t *table) match(method, path string) (*Route, map[string]string, []string) {
	pattern, params, ok := t.patterns.Match(path)
	if !ok {
		return nil, nil, nil
	}
	byMethod := t.routes[pattern]
	if method == http.MethodHead {
		method = http.MethodGet
	}
	if r, ok := byMethod[method]; ok {
		return r, params, nil
	}
	allowed := make([]string, 0, len(byMethod)+1)
	for m := range byMethod {
		allowed = append(allowed, m)
		if m == http.MethodGet {
			allowed = append(allowed, http.MethodHead)
		}
	}
	slices.Sort(allowed)
	return nil, nil, allowed
}

// NoRoute and errMethod are the router's own answers, in the envelope.
// They quote a short prefix of the path: a 10,000-character path gives
// a short message.
func NoRoute(r *http.Request) error {
	return apperr.NotFound("No route for %s %s", text.Prefix(r.Method), text.Quote(r.URL.Path))
}

func errMethod(r *http.Request, allowed []string) error {
	return apperr.New(apperr.CodeMethodNotAllowed, "Method %s is not allowed on %s; allowed: %s",
		text.Prefix(r.Method), text.Quote(r.URL.Path), strings.Join(allowed, ", "))
}
