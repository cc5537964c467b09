package httpapi

import (
	"sort"
	"strings"
)

// Patterns matches request paths to route path patterns the way the
// router does, so that everything that must find the route of a path
// (the router, the API reference's contract validator) finds the same.
// Go's http.ServeMux panics on pairs such as /users/username/{username}
// and /users/{username}/lines; Patterns resolves them instead: at the
// first segment where two patterns differ, a literal beats a parameter,
// left to right. A trailing slash is another path (API Gateway routes
// /a/ apart from /a), so it matches nothing.
type Patterns struct {
	list []pattern // most specific first
}

type pattern struct {
	path string
	segs []string
}

// NewPatterns orders the distinct patterns of paths, most specific first.
func NewPatterns(paths ...string) *Patterns {
	p := &Patterns{}
	seen := map[string]bool{}
	for _, path := range paths {
		if !seen[path] {
			seen[path] = true
			p.list = append(p.list, pattern{path: path, segs: segments(path)})
		}
	}
	sort.SliceStable(p.list, func(i, j int) bool { return moreSpecific(p.list[i].segs, p.list[j].segs) })
	return p
}

// Match returns the most specific pattern matching path and the values
// of its parameters; ok is false when none matches.
func (p *Patterns) Match(path string) (pattern string, params map[string]string, ok bool) {
	if len(path) > 1 && strings.HasSuffix(path, "/") {
		return "", nil, false
	}
	segs := segments(path)
	for _, c := range p.list {
		if params, ok := matchSegs(c.segs, segs); ok {
			return c.path, params, true
		}
	}
	return "", nil, false
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
