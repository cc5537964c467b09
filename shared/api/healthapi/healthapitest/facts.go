// Package healthapitest declares what the central tests need about the
// health group (shared/api/apitest): its steps of the call benchmark's
// scenario (local/bench) and the rate-limit actions of its routes
// (shared/groups). Test support: no function links it.
package healthapitest

import (
	"github.com/bookplatform/backend/shared/api/apitest"
)

// Facts are the health group's steps and its routes' rate-limit actions.
func Facts() apitest.Facts {
	return apitest.Facts{
		Steps: []apitest.Step{
			{Stage: apitest.Open, Route: "GET /health", Want: 200, Do: func(c *apitest.Client, _ *apitest.State) *apitest.Response {
				return c.Do("GET", "/health", nil, "")
			}},
		},
		Actions: map[string][]string{
			"GET /health": nil,
		},
	}
}
