package httpapi

import (
	"net/http"
	"slices"
	"sort"
	"strings"

	"github.com/bookplatform/backend/shared/apperr"
)

// compiled is a route with its pattern split once.
type compiled struct {
	Route
	segs []string
}

// table matches paths to routes. Go's http.ServeMux panics on pairs such as
// /users/username/{username} and /users/{username}/lines; this table
// resolves them instead: at the first segment where two patterns differ, a
// literal beats a parameter.
type table struct {
	routes []compiled // most specific first
}

func newTable(routes []Route) *table {
	t := &table{}
	for _, r := range routes {
		t.routes = append(t.routes, compiled{Route: r, segs: segments(r.Path)})
	}
	sort.SliceStable(t.routes, func(i, j int) bool {
		return moreSpecific(t.routes[i].segs, t.routes[j].segs)
	})
	return t
}

// moreSpecific orders patterns: at the first differing segment kind a
// literal wins; otherwise the longer pattern first (it cannot match the
// same path anyway) and then lexical order for a stable listing.
func moreSpecific(a, b []string) bool {
	for k := 0; k < len(a) && k < len(b); k++ {
		pa, pb := isParam(a[k]), isParam(b[k])
		if pa != pb {
			return !pa
		}
	}
	if len(a) != len(b) {
		return len(a) > len(b)
	}
	return strings.Join(a, "/") < strings.Join(b, "/")
}

// match returns the most specific pattern matching the path: the route for
// the method if there is one, else the methods that pattern allows.
func (t *table) match(method, path string) (*compiled, map[string]string, []string) {
	if len(path) > 1 && strings.HasSuffix(path, "/") {
		// API Gateway routes /a/ apart from /a; so does the local server.
		return nil, nil, nil
	}
	segs := segments(path)
	var allowed []string
	var first []string
	for i := range t.routes {
		c := &t.routes[i]
		params, ok := matchSegs(c.segs, segs)
		if !ok {
			continue
		}
		if first == nil {
			first = c.segs
		} else if !slices.Equal(first, c.segs) {
			// A less specific pattern: it only counts if the more
			// specific one had no route for this method either.
			if len(allowed) > 0 {
				break
			}
			first = c.segs
		}
		if c.Method == method {
			return c, params, nil
		}
		allowed = append(allowed, c.Method)
	}
	return nil, nil, allowed
}

func matchSegs(pattern, path []string) (map[string]string, bool) {
	if len(pattern) != len(path) {
		return nil, false
	}
	var params map[string]string
	for i, p := range pattern {
		if isParam(p) {
			if path[i] == "" {
				return nil, false
			}
			if params == nil {
				params = map[string]string{}
			}
			params[p[1:len(p)-1]] = path[i]
			continue
		}
		if p != path[i] {
			return nil, false
		}
	}
	return params, true
}

// errNotFound and errMethod are the router's own answers, in the envelope.
func errNotFound(r *http.Request) error {
	return apperr.NotFound("No route for %s %s", r.Method, r.URL.Path)
}

func errMethod(r *http.Request, allowed []string) error {
	return apperr.New(apperr.CodeMethodNotAllowed, "Method %s is not allowed on %s; allowed: %s",
		r.Method, r.URL.Path, strings.Join(allowed, ", "))
}
