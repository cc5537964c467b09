// Package usersapitest declares what the central tests need about the
// users group (shared/api/apitest): its steps of the call benchmark's
// scenario (local/bench) and the rate-limit actions of its routes
// (shared/groups). Test support: no function links it.
package usersapitest

import (
	"github.com/bookplatform/backend/shared/api/apitest"
)

// Facts are the users group's steps and its routes' rate-limit actions.
func Facts() apitest.Facts {
	return apitest.Facts{
		Steps: []apitest.Step{
			{Stage: apitest.Write, Route: "GET /v1/users/me", Want: 200, Do: func(c *apitest.Client, s *apitest.State) *apitest.Response {
				return c.Do("GET", "/v1/users/me", nil, s.Token)
			}},
			{Stage: apitest.Write, Route: "GET /v1/users/me", Note: "no token", Want: 401, Do: func(c *apitest.Client, _ *apitest.State) *apitest.Response {
				return c.Do("GET", "/v1/users/me", nil, "")
			}},
			{Stage: apitest.Write, Route: "PUT /v1/users/me", Note: "bio", Want: 200, Do: func(c *apitest.Client, s *apitest.State) *apitest.Response {
				return c.Do("PUT", "/v1/users/me", map[string]any{"bio": "Reads benchmarks."}, s.Token)
			}},
			{Stage: apitest.Write, Route: "PUT /v1/users/me", Note: "new username", Want: 200, Do: func(c *apitest.Client, s *apitest.State) *apitest.Response {
				s.Username = "bench_reader2"
				return c.Do("PUT", "/v1/users/me", map[string]any{"username": s.Username}, s.Token)
			}},
			{Stage: apitest.Write, Route: "PUT /v1/users/me/password", Want: 200, Do: func(c *apitest.Client, s *apitest.State) *apitest.Response {
				return c.Do("PUT", "/v1/users/me/password", map[string]any{"currentPassword": apitest.Password, "newPassword": apitest.Password + "x"}, s.Token)
			}},
			{Stage: apitest.Write, Route: "POST /v1/users/me/avatar", Note: "1 KB PNG", Want: 200, Do: func(c *apitest.Client, s *apitest.State) *apitest.Response {
				body, ctype := apitest.ImageUpload("avatar")
				return c.Raw("POST", "/v1/users/me/avatar", ctype, body, s.Token)
			}},
			{Stage: apitest.Write, Route: "GET /v1/users/{userId}", Want: 200, Do: func(c *apitest.Client, s *apitest.State) *apitest.Response {
				return c.Do("GET", "/v1/users/"+s.UserID, nil, "")
			}},
			{Stage: apitest.Write, Route: "GET /v1/users/{userId}", Note: "unknown id", Want: 404, Do: func(c *apitest.Client, _ *apitest.State) *apitest.Response {
				return c.Do("GET", "/v1/users/00000000-0000-0000-0000-000000000000", nil, "")
			}},
			{Stage: apitest.Write, Route: "GET /v1/users/username/{username}", Want: 200, Do: func(c *apitest.Client, s *apitest.State) *apitest.Response {
				return c.Do("GET", "/v1/users/username/"+s.Username, nil, "")
			}},
		},
		Actions: map[string][]string{
			"GET /v1/users/me":                    nil,
			"PUT /v1/users/me":                    nil,
			"PUT /v1/users/me/password":           nil,
			"POST /v1/users/me/avatar":            nil,
			"POST /v1/users/me/avatar/upload-url": nil,
			"PUT /v1/users/me/avatar":             nil,
			"GET /v1/users/{userId}":              nil,
			"GET /v1/users/username/{username}":   nil,
		},
	}
}
