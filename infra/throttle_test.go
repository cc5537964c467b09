package main

import (
	"fmt"
	"reflect"
	"strings"
	"testing"

	"github.com/aws/aws-cdk-go/awscdk/v2"
	"github.com/aws/aws-cdk-go/awscdk/v2/assertions"
	"github.com/bookplatform/backend/shared/groups"
	"github.com/bookplatform/backend/shared/httpapi"
)

// stageOf returns the API's default stage and its logical ID in tmpl.
func stageOf(t *testing.T, tmpl assertions.Template) (string, obj) {
	t.Helper()
	stages := resources(tmpl, "AWS::ApiGatewayV2::Stage")
	if len(stages) != 1 {
		t.Fatalf("%d stages", len(stages))
	}
	for id, s := range stages {
		return id, s
	}
	panic("unreachable")
}

// The stage throttles every route, and the unmetered storefront lookup
// (no per-address limit) below it, from configuration; the stage waits
// for the nested stack that has the route a setting names.
func TestThrottling(t *testing.T) {
	// WHEN the default stack's stage is read
	_, st := stageOf(t, template)
	p := props(st)
	// THEN the defaults apply
	if got := fmt.Sprint(p["DefaultRouteSettings"]); got != fmt.Sprint(obj{"ThrottlingBurstLimit": 1000, "ThrottlingRateLimit": 500}) {
		t.Errorf("stage throttle %s", got)
	}
	want := obj{
		"GET /v1/stores/lookup-by-domain":  obj{"ThrottlingBurstLimit": 200, "ThrottlingRateLimit": 100},
		"HEAD /v1/stores/lookup-by-domain": obj{"ThrottlingBurstLimit": 200, "ThrottlingRateLimit": 100},
	}
	if got := p["RouteSettings"]; fmt.Sprint(got) != fmt.Sprint(want) {
		t.Errorf("route settings %v, want %v", got, want)
	}
	if deps := fmt.Sprint(st["DependsOn"]); !strings.Contains(deps, "storesRoutes") {
		t.Errorf("stage depends on %s, want the stores routes' nested stack", deps)
	}
	// AND the hardened stack's configuration replaces the stage's and adds a route's
	_, st = stageOf(t, hardened)
	p = props(st)
	if got := fmt.Sprint(p["DefaultRouteSettings"]); got != fmt.Sprint(obj{"ThrottlingBurstLimit": 400, "ThrottlingRateLimit": 200}) {
		t.Errorf("hardened stage throttle %s", got)
	}
	want["POST /v1/auth/login"] = obj{"ThrottlingBurstLimit": 20, "ThrottlingRateLimit": 10}
	if got := p["RouteSettings"]; fmt.Sprint(got) != fmt.Sprint(want) {
		t.Errorf("hardened route settings %v, want %v", got, want)
	}
}

// No function reserves concurrency by default (a new account's limit may
// be 10, where any reservation fails the deploy); configured, exactly
// the named functions do.
func TestReservedConcurrency(t *testing.T) {
	for _, f := range functions {
		if v, ok := props(resources(template, "AWS::Lambda::Function")[functionID(t, template, f.Name)])["ReservedConcurrentExecutions"]; ok {
			t.Errorf("%s reserves %v by default", f.Name, v)
		}
		v, ok := props(resources(hardened, "AWS::Lambda::Function")[functionID(t, hardened, f.Name)])["ReservedConcurrentExecutions"]
		if want := hardenedOps.ReservedConcurrency[f.Name]; ok != (want > 0) || (ok && v != float64(want)) {
			t.Errorf("hardened %s reserves %v, want %d", f.Name, v, want)
		}
	}
}

func TestOpsFromContext_Throttles(t *testing.T) {
	ctx := func(kv map[string]any) (OpsProps, error) {
		a := awscdk.NewApp(&awscdk.AppProps{Context: &kv})
		return OpsFromContext(a.Node())
	}
	// GIVEN the objects as cdk.json gives them, or as -c strings
	o, err := ctx(map[string]any{
		CtxStageThrottle:       map[string]any{"rate": 300, "burst": 600},
		CtxRouteThrottles:      `{"GET /v1/stores/lookup-by-domain": {"rate": 20, "burst": 40}}`,
		CtxReservedConcurrency: `{"authorizer": 10, "stores": 20}`,
	})
	if err != nil {
		t.Fatal(err)
	}
	if o.StageThrottle != (Throttle{300, 600}) || !reflect.DeepEqual(o.RouteThrottles, map[string]Throttle{"GET /v1/stores/lookup-by-domain": {20, 40}}) ||
		!reflect.DeepEqual(o.ReservedConcurrency, map[string]int{"authorizer": 10, "stores": 20}) {
		t.Errorf("parsed %+v", o)
	}
	if got := o.routeThrottles()["GET /v1/stores/lookup-by-domain"]; got != (Throttle{20, 40}) {
		t.Errorf("the context's lookup throttle does not replace the default: %+v", got)
	}
	// AND malformed ones are refused with the key's name
	for name, kv := range map[string]map[string]any{
		"not JSON":                {CtxRouteThrottles: "fast"},
		"an unknown field":        {CtxStageThrottle: `{"rate": 1, "burst": 2, "per": "second"}`},
		"a zero rate":             {CtxStageThrottle: `{"rate": 0, "burst": 2}`},
		"a key without a path":    {CtxRouteThrottles: `{"lookup": {"rate": 1, "burst": 1}}`},
		"a negative reservation":  {CtxReservedConcurrency: `{"authorizer": -1}`},
		"more than the account's": {CtxReservedConcurrency: `{"authorizer": 500, "stores": 401}`},
	} {
		_, err := ctx(kv)
		if err == nil {
			t.Errorf("%s: accepted", name)
			continue
		}
		for key := range kv {
			if !strings.Contains(err.Error(), key) {
				t.Errorf("%s: %v does not name %s", name, err, key)
			}
		}
	}
}

// A route throttle goes on the gateway routes that serve its entry (a
// GET's on its GET and HEAD),
// and one naming no route of the table is refused rather than ignored.
func TestRouteSettings(t *testing.T) {
	fns := []groups.Function{
		{Name: "a", Routes: []httpapi.Route{{Method: "GET", Path: "/v1/a"}, {Method: "POST", Path: "/v1/a"}, {Method: "GET", Path: "/v1/shared"}}},
		{Name: "b", Routes: []httpapi.Route{{Method: "PUT", Path: "/v1/shared"}}},
	}
	got, err := routeSettings(fns, map[string]Throttle{"GET /v1/a": {1, 2}, "POST /v1/a": {3, 4}, "GET /v1/shared": {5, 6}})
	if err != nil {
		t.Fatal(err)
	}
	want := map[string]any{
		"GET /v1/a":       map[string]any{"ThrottlingRateLimit": 1, "ThrottlingBurstLimit": 2},
		"HEAD /v1/a":      map[string]any{"ThrottlingRateLimit": 1, "ThrottlingBurstLimit": 2},
		"POST /v1/a":      map[string]any{"ThrottlingRateLimit": 3, "ThrottlingBurstLimit": 4},
		"GET /v1/shared":  map[string]any{"ThrottlingRateLimit": 5, "ThrottlingBurstLimit": 6},
		"HEAD /v1/shared": map[string]any{"ThrottlingRateLimit": 5, "ThrottlingBurstLimit": 6},
	}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("settings %v, want %v", got, want)
	}
	for _, key := range []string{"GET /v1/b", "DELETE /v1/a", "ANY /v1/a", "HEAD /v1/a"} {
		if _, err := routeSettings(fns, map[string]Throttle{key: {1, 1}}); err == nil || !strings.Contains(err.Error(), CtxRouteThrottles) {
			t.Errorf("%s: %v", key, err)
		}
	}
}
