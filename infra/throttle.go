package main

import (
	"encoding/json"
	"fmt"
	"maps"
	"net/http"
	"slices"
	"strings"

	"github.com/aws/aws-cdk-go/awscdk/v2"
	"github.com/aws/aws-cdk-go/awscdk/v2/awsapigatewayv2"
	"github.com/aws/aws-cdk-go/awscdk/v2/awslambda"
	"github.com/aws/jsii-runtime-go"
	"github.com/bookplatform/backend/shared/groups"
	"github.com/bookplatform/backend/shared/httpapi"
)

// Throttle is an API Gateway token bucket: Rate requests a second on
// average, Burst at once.
type Throttle struct {
	Rate  int `json:"rate"`
	Burst int `json:"burst"`
}

// Throttling defaults (docs/decisions.md, "Throttling and reserved
// concurrency", says why these numbers).
var (
	// defaultStageThrottle applies to each route without its own, route
	// by route (not to the stage as a whole): one route may take at most
	// a twentieth of the account's 10,000 requests a second for HTTP
	// APIs, and at 100 ms each for authorizer and function about 100
	// executions, a tenth of Lambda's default 1,000 (an upper bound: the
	// authorizer runs before the back office's routes alone, so most
	// routes take half as many).
	defaultStageThrottle = Throttle{Rate: 500, Burst: 1000}
	// defaultRouteThrottles are the routes limited below the stage, by
	// route-table key: the storefront's lookup is unmetered (no per-address
	// rate limit: many readers come from one storefront server), so this
	// is its only bound.
	defaultRouteThrottles = map[string]Throttle{
		"GET /v1/stores/lookup-by-domain": {Rate: 100, Burst: 200},
	}
)

// stageThrottle is o's stage throttle.
func (o OpsProps) stageThrottle() Throttle {
	if o.StageThrottle == (Throttle{}) {
		return defaultStageThrottle
	}
	return o.StageThrottle
}

// routeThrottles are o's per-route throttles: the defaults, then the
// context's (a key there replaces the default's).
func (o OpsProps) routeThrottles() map[string]Throttle {
	out := maps.Clone(defaultRouteThrottles)
	maps.Copy(out, o.RouteThrottles)
	return out
}

// throttleAPI sets the default stage's throttle and each configured
// route's. A route setting names a route key that must exist when the
// stage is updated, and the routes are in nested stacks: the stage waits
// for theirs.
func throttleAPI(api awsapigatewayv2.HttpApi, functions []groups.Function, routes []awsapigatewayv2.HttpRoute, ops OpsProps) {
	stage, ok := api.DefaultStage().Node().DefaultChild().(awsapigatewayv2.CfnStage)
	if !ok {
		panic("infra: the HTTP API's default stage has no CloudFormation resource")
	}
	st := ops.stageThrottle()
	stage.SetDefaultRouteSettings(&awsapigatewayv2.CfnStage_RouteSettingsProperty{
		ThrottlingRateLimit:  jsii.Number(st.Rate),
		ThrottlingBurstLimit: jsii.Number(st.Burst),
	})
	settings, err := routeSettings(functions, ops.routeThrottles())
	if err != nil {
		panic("infra: " + err.Error())
	}
	for _, r := range routes {
		cfn, ok := r.Node().DefaultChild().(awsapigatewayv2.CfnRoute)
		if !ok || settings[*cfn.RouteKey()] == nil {
			continue
		}
		if s := awscdk.Stack_Of(r); *awscdk.NestedStack_IsNestedStack(s) {
			stage.Node().AddDependency(s)
		} else {
			stage.Node().AddDependency(r) // SAM: the routes are in the stack
		}
	}
	if len(settings) > 0 {
		stage.AddPropertyOverride(jsii.String("RouteSettings"), settings)
	}
}

// routeSettings are the stage's RouteSettings of throttles (by
// route-table key), by gateway route key: a GET's go on its GET and HEAD
// routes. A key that is no route of the table is an error.
func routeSettings(functions []groups.Function, throttles map[string]Throttle) (map[string]any, error) {
	keys, err := gatewayRoutes(functions)
	if err != nil {
		return nil, err
	}
	settings := map[string]any{}
	for _, key := range slices.Sorted(maps.Keys(throttles)) {
		th := throttles[key]
		method, path, _ := strings.Cut(key, " ")
		inTable := slices.ContainsFunc(functions, func(f groups.Function) bool {
			return slices.ContainsFunc(f.Routes, func(r httpapi.Route) bool { return r.Method == method && r.Path == path })
		})
		for _, gr := range keys {
			if inTable && sameEntry(gr, method, path, functions) {
				settings[gr.Key()] = map[string]any{"ThrottlingRateLimit": th.Rate, "ThrottlingBurstLimit": th.Burst}
			}
		}
		if !inTable {
			return nil, fmt.Errorf("context %s names %q, which is no route of the route table", CtxRouteThrottles, key)
		}
	}
	return settings, nil
}

// sameEntry reports whether gateway route gr serves the route-table entry
// "method path" (a GET's are its GET and HEAD routes).
func sameEntry(gr gatewayRoute, method, path string, functions []groups.Function) bool {
	paths, err := gatewayPaths(functions)
	if err != nil || paths[path] != gr.Path {
		return false
	}
	switch gr.Method {
	case method:
		return true
	case http.MethodHead:
		return method == http.MethodGet
	}
	return false
}

// reserveConcurrency gives each function o names its reserved
// concurrency: that many concurrent executions are kept for it (a hot
// route cannot starve the authorizer) and it may not use more.
func reserveConcurrency(fns map[string]awslambda.Function, o OpsProps) {
	for _, name := range slices.Sorted(maps.Keys(o.ReservedConcurrency)) {
		fn, ok := fns[name]
		if !ok {
			panic(fmt.Sprintf("infra: context %s names function %q, which the stack does not have", CtxReservedConcurrency, name))
		}
		cfn := fn.Node().DefaultChild().(awslambda.CfnFunction)
		cfn.SetReservedConcurrentExecutions(jsii.Number(o.ReservedConcurrency[name]))
	}
}

// maxReserved is the most concurrency the functions may reserve
// together: Lambda keeps 100 of an account's executions unreserved, and
// an account's default limit is 1,000 (a new account's may be 10, where
// any reservation fails: hence none by default).
const maxReserved = 900

// parseObject reads a context value that is a JSON object: cdk.json
// gives it parsed, -c key='{"…"}' as a string.
func parseObject(key string, v any, into any) error {
	if v == nil {
		return nil
	}
	var b []byte
	switch v := v.(type) {
	case string:
		if strings.TrimSpace(v) == "" {
			return nil
		}
		b = []byte(v)
	default:
		var err error
		if b, err = json.Marshal(v); err != nil {
			return fmt.Errorf("context %s: %v", key, err)
		}
	}
	dec := json.NewDecoder(strings.NewReader(string(b)))
	dec.DisallowUnknownFields()
	if err := dec.Decode(into); err != nil {
		return fmt.Errorf("context %s must be a JSON object (%s): %v", key, contextShapes[key], err)
	}
	return nil
}

// contextShapes say what each object-valued context key holds.
var contextShapes = map[string]string{
	CtxStageThrottle:       `{"rate": requests a second, "burst": requests}`,
	CtxRouteThrottles:      `{"METHOD /path": {"rate": n, "burst": n}, …}`,
	CtxReservedConcurrency: `{"function": executions, …}`,
}
