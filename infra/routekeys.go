package main

import (
	"fmt"
	"net/http"
	"strings"

	"github.com/aws/aws-cdk-go/awscdk/v2"
	"github.com/aws/constructs-go/constructs/v10"
	"github.com/aws/jsii-runtime-go"

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

// gatewayRoute is one API Gateway route: a route-table entry, or for a
// GET entry the ANY route of its path that also answers HEAD.
type gatewayRoute struct {
	Method   string // an HTTP method, or "ANY"
	Path     string // the gateway path (gatewayPaths)
	Auth     httpapi.Auth
	Function string // the function whose integration serves it
}

// Key is the route key, "METHOD /path".
func (r gatewayRoute) Key() string { return r.Method + " " + r.Path }

// anyMethod is API Gateway's method wildcard in a route key.
const anyMethod = "ANY"

// gatewayRoutes are the API Gateway routes of the route table. HTTP APIs
// route a method only where it is named, and every GET of the router
// answers HEAD too (shared/httpapi), so a GET entry needs a second
// route. Instead, a GET entry becomes the ANY route of its path when
// every route of that path is one function's: API Gateway prefers a
// route naming the method, so the path's other entries keep their own
// routes (and authorizer attachment), and ANY takes GET, HEAD and any
// method the path does not have, which the function's router answers
// 405 with the path's Allow, as $default's did. A path shared by two
// functions keeps GET and HEAD routes: the GET function's router would
// not know the other's methods for Allow. See docs/decisions.md,
// "HEAD without HEAD routes".
func gatewayRoutes(functions []groups.Function) ([]gatewayRoute, error) {
	paths, err := gatewayPaths(functions)
	if err != nil {
		return nil, err
	}
	owners := map[string]map[string]bool{} // route-table path → functions serving it
	for _, f := range functions {
		for _, r := range f.Routes {
			if owners[r.Path] == nil {
				owners[r.Path] = map[string]bool{}
			}
			owners[r.Path][f.Name] = true
		}
	}
	var out []gatewayRoute
	for _, f := range functions {
		for _, r := range f.Routes {
			gr := gatewayRoute{Method: r.Method, Path: paths[r.Path], Auth: r.Auth, Function: f.Name}
			if r.Method != http.MethodGet {
				out = append(out, gr)
				continue
			}
			if len(owners[r.Path]) == 1 {
				gr.Method = anyMethod
				out = append(out, gr)
				continue
			}
			head := gr
			head.Method = http.MethodHead
			out = append(out, gr, head)
		}
	}
	return out, nil
}

// routeID is the construct ID of a gateway route: its key ("/" becomes
// "--" in construct IDs).
func routeID(r gatewayRoute) string { return r.Method + r.Path }

// routeStacks gives each function's routes a nested stack of their own,
// "<function>Routes", made on first use: the routes, the function's
// integration and API Gateway's permission to invoke it. The routes are
// most of the API's resources (one per route-table entry), so keeping
// them out of the stack keeps it under CloudFormation's 500 resources
// whatever the number of groups, while one deploy (`cdk deploy`) still
// deploys them with the stack: docs/decisions.md, "Nested stacks of
// routes".
func routeStacks(stack awscdk.Stack) func(function string) constructs.Construct {
	made := map[string]awscdk.NestedStack{}
	return func(function string) constructs.Construct {
		if s, ok := made[function]; ok {
			return s
		}
		s := awscdk.NewNestedStack(stack, jsii.String(function+"Routes"), &awscdk.NestedStackProps{
			Description: jsii.String("bookplatform: the API routes of the " + function + " function"),
		})
		made[function] = s
		return s
	}
}
