// Package docsapitest declares what the central tests need about the
// docs group (shared/api/apitest): its steps of the call benchmark's
// scenario (local/bench) and the rate-limit actions of its routes
// (shared/groups). Test support: no function links it.
package docsapitest

import (
	"github.com/bookplatform/backend/shared/api/apitest"
)

// Facts are the docs group's steps and its routes' rate-limit actions.
func Facts() apitest.Facts {
	return apitest.Facts{
		Steps: []apitest.Step{
			{Stage: apitest.Open, Route: "GET /openapi.json", Want: 200, Do: func(c *apitest.Client, _ *apitest.State) *apitest.Response {
				return c.Do("GET", "/openapi.json", nil, "")
			}},
			{Stage: apitest.Open, Route: "GET /docs", Want: 200, Do: func(c *apitest.Client, _ *apitest.State) *apitest.Response {
				return c.Do("GET", "/docs", nil, "")
			}},
			{Stage: apitest.Open, Route: "GET /docs/redoc.standalone.js", Want: 200, Do: func(c *apitest.Client, _ *apitest.State) *apitest.Response {
				return c.Do("GET", "/docs/redoc.standalone.js", nil, "")
			}},
		},
		Actions: map[string][]string{
			"GET /openapi.json":             nil,
			"GET /docs":                     nil,
			"GET /docs/redoc.standalone.js": nil,
		},
	}
}
