package main

import (
	"slices"
	"testing"

	"github.com/bookplatform/backend/shared/groups"
	"github.com/bookplatform/backend/shared/httpapi"
)

func TestGatewayRoutes_HEAD(t *testing.T) {
	// GIVEN a path served by one function (GET and PUT) and one served by
	// two (GET by a, POST by b)
	fns := []groups.Function{
		{Name: "a", Routes: []httpapi.Route{
			{Method: "GET", Path: "/v1/a"}, {Method: "PUT", Path: "/v1/a", Auth: httpapi.AuthBearer},
			{Method: "GET", Path: "/v1/shared", Auth: httpapi.AuthOptional},
		}},
		{Name: "b", Routes: []httpapi.Route{{Method: "POST", Path: "/v1/shared", Auth: httpapi.AuthBearer}}},
	}
	// WHEN the gateway routes are made
	routes, err := gatewayRoutes(fns)
	if err != nil {
		t.Fatal(err)
	}
	var keys []string
	for _, r := range routes {
		keys = append(keys, r.Key()+" "+r.Function+" "+r.Auth.String())
	}
	// THEN every GET has a HEAD beside it with the GET's function and
	// authorization, every other entry its own route, and no route is
	// ANY (it would take CORS preflights from API Gateway)
	want := []string{
		"GET /v1/a a None", "HEAD /v1/a a None", "PUT /v1/a a Bearer",
		"GET /v1/shared a Optional", "HEAD /v1/shared a Optional",
		"POST /v1/shared b Bearer",
	}
	if !slices.Equal(keys, want) {
		t.Errorf("routes = %q, want %q", keys, want)
	}
}
