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

// gatewayRoute is one API Gateway route: a route-table entry, or the HEAD
// route beside a GET entry.
type gatewayRoute struct {
	Method string // an HTTP method, never ANY (gatewayRoutes)
	Path   string // the gateway path (gatewayPaths)
	Auth   httpapi.Auth
	// Authorizer: API Gateway invokes the Lambda authorizer before the
	// function (groups.AuthorizerInvoked of the entry).
	Authorizer bool
	Function   string // the function whose integration serves it
}

// Key is the route key, "METHOD /path".
func (r gatewayRoute) Key() string { return r.Method + " " + r.Path }

// gatewayRoutes are the API Gateway routes of the route table: one per
// entry, and a HEAD beside each GET with the GET's function and
// authorization (auth level and authorizer). HTTP APIs route a method
// only where a route names it (there is no GET-answers-HEAD) and every
// GET of the router answers HEAD too (shared/httpapi). An ANY route would
// answer HEAD without the copy, but it matches OPTIONS as well, and API
// Gateway answers a CORS preflight itself only when no route matches it:
// through ANY the preflight would reach a function, on a back-office
// path through the authorizer first, which refuses it. No route here
// matches OPTIONS (infra TestRoutes). See docs/decisions.md, "HEAD routes, not ANY".
func gatewayRoutes(functions []groups.Function) ([]gatewayRoute, error) {
	paths, err := gatewayPaths(functions)
	if err != nil {
		return nil, err
	}
	var out []gatewayRoute
	for _, f := range functions {
		for _, r := range f.Routes {
			gr := gatewayRoute{Method: r.Method, Path: paths[r.Path], Auth: r.Auth, Authorizer: groups.AuthorizerInvoked(r), Function: f.Name}
			out = append(out, gr)
			if r.Method == http.MethodGet {
				head := gr
				head.Method = http.MethodHead
				out = append(out, head)
			}
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
