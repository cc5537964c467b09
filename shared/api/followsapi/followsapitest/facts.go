// Package followsapitest declares what the central tests need about the
// follows group (shared/api/apitest): its steps of the call benchmark's
// scenario (local/bench) and the rate-limit actions of its routes
// (shared/groups). Test support: no function links it.
package followsapitest

import (
	"github.com/bookplatform/backend/shared/api/apitest"
)

// Facts are the follows group's steps and its routes' rate-limit actions.
func Facts() apitest.Facts {
	return apitest.Facts{
		Steps: []apitest.Step{
			// Follows: the converted guest follows the reader.
			{Stage: apitest.Tidy, Route: "POST /v1/follows/users/{userId}", Want: 200, Do: func(c *apitest.Client, s *apitest.State) *apitest.Response {
				return c.Do("POST", "/v1/follows/users/"+s.UserID, nil, s.MigratedToken)
			}},
			{Stage: apitest.Tidy, Route: "POST /v1/follows/users/{userId}", Note: "already following", Want: 400, Do: func(c *apitest.Client, s *apitest.State) *apitest.Response {
				return c.Do("POST", "/v1/follows/users/"+s.UserID, nil, s.MigratedToken)
			}},
			{Stage: apitest.Tidy, Route: "GET /v1/follows/users/{userId}", Want: 200, Do: func(c *apitest.Client, s *apitest.State) *apitest.Response {
				return c.Do("GET", "/v1/follows/users/"+s.UserID, nil, s.MigratedToken)
			}},
			{Stage: apitest.Tidy, Route: "GET /v1/follows/followers", Want: 200, Do: func(c *apitest.Client, s *apitest.State) *apitest.Response {
				return c.Do("GET", "/v1/follows/followers", nil, s.Token)
			}},
			{Stage: apitest.Tidy, Route: "GET /v1/follows/following", Want: 200, Do: func(c *apitest.Client, s *apitest.State) *apitest.Response {
				return c.Do("GET", "/v1/follows/following", nil, s.MigratedToken)
			}},
			{Stage: apitest.Tidy, Route: "DELETE /v1/follows/users/{userId}", Want: 200, Do: func(c *apitest.Client, s *apitest.State) *apitest.Response {
				return c.Do("DELETE", "/v1/follows/users/"+s.UserID, nil, s.MigratedToken)
			}},
			{Stage: apitest.Tidy, Route: "DELETE /v1/follows/users/{userId}", Note: "not following", Want: 400, Do: func(c *apitest.Client, s *apitest.State) *apitest.Response {
				return c.Do("DELETE", "/v1/follows/users/"+s.UserID, nil, s.MigratedToken)
			}},
		},
		Actions: map[string][]string{
			"POST /v1/follows/users/{userId}":   {"follow_user"},
			"DELETE /v1/follows/users/{userId}": {"follow_user"},
			"GET /v1/follows/users/{userId}":    nil,
			// A store is followed under the same budget as a reader.
			"POST /v1/follows/stores/{storeId}":   {"follow_user"},
			"DELETE /v1/follows/stores/{storeId}": {"follow_user"},
			"GET /v1/follows/stores/{storeId}":    nil,
			"GET /v1/follows/following":           nil,
			"GET /v1/follows/stores":              nil,
			"GET /v1/follows/followers":           nil,
		},
	}
}
