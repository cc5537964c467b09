package adminapitest

import "github.com/bookplatform/backend/shared/api/apitest"

// userFacts: the account routes.
func userFacts() apitest.Facts {
	user := func(id string) string { return "/v1/admin/users/" + id }
	return apitest.Facts{
		Steps: []apitest.Step{
			// The operator looks up the reader; a reader may not.
			{Stage: apitest.Store, Route: "GET /v1/admin/users/{userId}", Want: 200, Do: func(c *apitest.Client, s *apitest.State) *apitest.Response {
				return c.Do("GET", user(s.UserID), nil, s.OperatorToken)
			}},
			{Stage: apitest.Store, Route: "GET /v1/admin/users/{userId}", Note: "not an operator", Want: 403, Do: func(c *apitest.Client, s *apitest.State) *apitest.Response {
				return c.Do("GET", user(s.UserID), nil, s.Token)
			}},
			{Stage: apitest.Store, Route: "GET /v1/admin/users/{userId}", Note: "no such account", Want: 404, Do: func(c *apitest.Client, s *apitest.State) *apitest.Response {
				return c.Do("GET", user("0193a8c4-2f6e-7d1a-9b3c-5e7f9a1b3c5d"), nil, s.OperatorToken)
			}},
		},
		// The spec names no action for the back office; the tier rate
		// applies.
		Actions: map[string][]string{
			"GET /v1/admin/users/{userId}": nil,
		},
	}
}
