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
			// Before the store stage's back office: the reader applies for
			// the bookstore tier (adminapitest decides it).
			{Stage: apitest.Store, Route: "GET /v1/users/me/bookstore-application", Note: "never applied", Want: 404, Do: func(c *apitest.Client, s *apitest.State) *apitest.Response {
				return c.Do("GET", "/v1/users/me/bookstore-application", nil, s.Token)
			}},
			{Stage: apitest.Store, Route: "POST /v1/users/me/bookstore-application", Want: 201, Do: func(c *apitest.Client, s *apitest.State) *apitest.Response {
				res := c.Do("POST", "/v1/users/me/bookstore-application", BookstoreApplication("Bench Corner Books"), s.Token)
				s.ApplicationID, _ = res.JSON["id"].(string)
				return res
			}},
			{Stage: apitest.Store, Route: "POST /v1/users/me/bookstore-application", Note: "one pending", Want: 409, Do: func(c *apitest.Client, s *apitest.State) *apitest.Response {
				return c.Do("POST", "/v1/users/me/bookstore-application", BookstoreApplication("Bench Other Books"), s.Token)
			}},
			{Stage: apitest.Store, Route: "POST /v1/users/me/bookstore-application", Note: "no address", Want: 400, Do: func(c *apitest.Client, s *apitest.State) *apitest.Response {
				return c.Do("POST", "/v1/users/me/bookstore-application", map[string]any{"storeName": "Bench Books", "address": map[string]any{}}, s.SellerToken)
			}},
			{Stage: apitest.Store, Route: "GET /v1/users/me/bookstore-application", Want: 200, Do: func(c *apitest.Client, s *apitest.State) *apitest.Response {
				return c.Do("GET", "/v1/users/me/bookstore-application", nil, s.Token)
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
			"GET /v1/users/me":                        nil,
			"PUT /v1/users/me":                        nil,
			"PUT /v1/users/me/password":               nil,
			"POST /v1/users/me/avatar":                nil,
			"POST /v1/users/me/avatar/upload-url":     nil,
			"PUT /v1/users/me/avatar":                 nil,
			"GET /v1/users/{userId}":                  nil,
			"GET /v1/users/username/{username}":       nil,
			"POST /v1/users/me/bookstore-application": nil,
			"GET /v1/users/me/bookstore-application":  nil,
		},
	}
}

// BookstoreApplication is a valid body of POST
// /v1/users/me/bookstore-application for a store named name.
func BookstoreApplication(name string) map[string]any {
	return map[string]any{
		"storeName": name,
		"address": map[string]any{"addressLine1": "1005 W Burnside St", "city": "Portland", "state": "OR",
			"postalCode": "97209", "country": "US"},
		"website": "https://bench-books.example.com",
		"note":    "A used and new bookshop of two floors, open since 1998.",
	}
}
