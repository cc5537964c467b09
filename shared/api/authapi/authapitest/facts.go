// Package authapitest declares what the central tests need about the
// auth group (shared/api/apitest): its steps of the call benchmark's
// scenario (local/bench) and the rate-limit actions of its routes
// (shared/groups). Test support: no function links it.
package authapitest

import (
	"github.com/bookplatform/backend/shared/api/apitest"
)

// Facts are the auth group's steps and its routes' rate-limit actions.
func Facts() apitest.Facts {
	return apitest.Facts{
		Steps: []apitest.Step{
			{Stage: apitest.Write, Route: "POST /v1/auth/signup", Want: 201, Do: func(c *apitest.Client, s *apitest.State) *apitest.Response {
				s.Username, s.Email = "bench_reader", "bench.reader@example.com"
				res := c.Do("POST", "/v1/auth/signup", map[string]any{
					"username": s.Username, "email": s.Email, "password": apitest.Password, "displayName": "Bench Reader",
				}, "")
				if u, ok := res.JSON["user"].(map[string]any); ok {
					s.UserID, _ = u["id"].(string)
					s.Token, _ = res.JSON["token"].(string)
					s.Refresh, _ = res.JSON["refreshToken"].(string)
				}
				return res
			}},
			{Stage: apitest.Write, Route: "POST /v1/auth/login", Want: 200, Do: func(c *apitest.Client, s *apitest.State) *apitest.Response {
				res := c.Do("POST", "/v1/auth/login", map[string]any{"email": s.Email, "password": apitest.Password}, "")
				if t, ok := res.JSON["token"].(string); ok {
					s.Token = t
					s.Refresh, _ = res.JSON["refreshToken"].(string)
				}
				return res
			}},
			{Stage: apitest.Write, Route: "POST /v1/auth/login", Note: "wrong password", Want: 401, Do: func(c *apitest.Client, s *apitest.State) *apitest.Response {
				return c.Do("POST", "/v1/auth/login", map[string]any{"email": s.Email, "password": "not-the-password"}, "")
			}},
			{Stage: apitest.Write, Route: "POST /v1/auth/refresh", Want: 200, Do: func(c *apitest.Client, s *apitest.State) *apitest.Response {
				res := c.Do("POST", "/v1/auth/refresh", map[string]any{"refreshToken": s.Refresh}, "")
				if t, ok := res.JSON["token"].(string); ok {
					s.Token = t
					s.Refresh, _ = res.JSON["refreshToken"].(string)
				}
				return res
			}},
			{Stage: apitest.Write, Route: "POST /v1/auth/guest", Want: 201, Do: func(c *apitest.Client, s *apitest.State) *apitest.Response {
				res := c.Do("POST", "/v1/auth/guest", map[string]any{}, "")
				s.GuestToken, _ = res.JSON["token"].(string)
				return res
			}},
			{Stage: apitest.Write, Route: "POST /v1/auth/migrate-guest", Want: 200, Do: func(c *apitest.Client, s *apitest.State) *apitest.Response {
				res := c.Do("POST", "/v1/auth/migrate-guest", map[string]any{
					"username": "bench_convert", "email": "bench.convert@example.com", "password": apitest.Password, "displayName": "Converted",
				}, s.GuestToken)
				s.MigratedToken, _ = res.JSON["token"].(string)
				s.MigratedRefresh, _ = res.JSON["refreshToken"].(string)
				if u, ok := res.JSON["user"].(map[string]any); ok {
					s.MigratedID, _ = u["id"].(string)
				}
				return res
			}},
			// Last (apitest.Close): every step before uses these tokens.
			{Stage: apitest.Close, Route: "POST /v1/auth/logout", Want: 200, Do: func(c *apitest.Client, s *apitest.State) *apitest.Response {
				return c.Do("POST", "/v1/auth/logout", map[string]any{}, s.Token)
			}},
			{Stage: apitest.Close, Route: "POST /v1/auth/logout", Note: "with refresh_token", Want: 200, Do: func(c *apitest.Client, s *apitest.State) *apitest.Response {
				return c.Do("POST", "/v1/auth/logout", map[string]any{"refresh_token": s.MigratedRefresh}, s.MigratedToken)
			}},
		},
		Actions: map[string][]string{
			"POST /v1/auth/guest":         nil,
			"POST /v1/auth/signup":        nil,
			"POST /v1/auth/login":         nil,
			"POST /v1/auth/refresh":       nil,
			"POST /v1/auth/migrate-guest": nil,
			"POST /v1/auth/logout":        nil,
		},
	}
}
