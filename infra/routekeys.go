package main

import (
	"fmt"
	"strings"

	"github.com/bookplatform/backend/shared/groups"
	"github.com/bookplatform/backend/shared/httpapi"
)

// gatewayPaths maps each route-table path to the path of its API Gateway
// route. API Gateway refuses two path variables with different names at
// the same place under the same parent (409 ConflictException, "conflicting
// variable on the same hierarchical level"), and the spec has such pairs:
// /users/{userId} beside /users/{username}/lines, /lines/{id} beside
// /lines/{lineId}/replies/{replyId}. The gateway only forwards the raw path
// (the function's router matches it again with the spec's names), so its
// variables may be renamed freely: every variable under the same parent
// takes the name the first route gave it. It fails when two different
// routes become the same gateway route.
func gatewayPaths(functions []groups.Function) (map[string]string, error) {
	names := map[string]string{} // canonical parent path → variable name there
	out := map[string]string{}
	owner := map[string]string{} // "METHOD gateway path" → route-table path
	for _, f := range functions {
		for _, r := range f.Routes {
			segs := strings.Split(strings.Trim(r.Path, "/"), "/")
			parent := ""
			for i, s := range segs {
				if len(s) > 2 && s[0] == '{' && s[len(s)-1] == '}' {
					if name, ok := names[parent]; ok {
						segs[i] = name
					} else {
						names[parent] = s
					}
				}
				parent += "/" + segs[i]
			}
			gw := "/" + strings.Join(segs, "/")
			key := r.Method + " " + gw
			if prev, ok := owner[key]; ok && prev != r.Path {
				return nil, fmt.Errorf("routes %s %s and %s %s are the same API Gateway route %s", r.Method, prev, r.Method, r.Path, key)
			}
			owner[key] = r.Path
			out[r.Path] = gw
		}
	}
	return out, nil
}

// routeKey is the API Gateway route key of a route-table entry.
func routeKey(paths map[string]string, r httpapi.Route) string {
	return r.Method + " " + paths[r.Path]
}
