package adminapitest

import (
	"github.com/bookplatform/backend/shared/api/apitest"
	"github.com/bookplatform/backend/shared/api/usersapi/usersapitest"
)

// applicationFacts: the bookstore applications' queue. The reader applied
// in the users group's steps of the stage (s.ApplicationID); the operator
// declines that application, the reader applies again and the operator
// approves the new one, so the reader ends the stage with the bookstore
// tier.
func applicationFacts() apitest.Facts {
	const base = "/v1/admin/bookstore-applications"
	one := func(s *apitest.State) string { return base + "/" + s.ApplicationID }
	const unknown = base + "/0193a8c4-2f6e-7d1a-9b3c-5e7f9a1b3c5d"
	const (
		list    = "GET /v1/admin/bookstore-applications"
		get     = "GET /v1/admin/bookstore-applications/{applicationId}"
		approve = "POST /v1/admin/bookstore-applications/{applicationId}/approve"
		decline = "POST /v1/admin/bookstore-applications/{applicationId}/decline"
	)
	return apitest.Facts{
		Steps: []apitest.Step{
			{Stage: apitest.Store, Route: list, Want: 200, Do: func(c *apitest.Client, s *apitest.State) *apitest.Response {
				return c.Do("GET", base+"?status=pending", nil, s.OperatorToken)
			}},
			{Stage: apitest.Store, Route: list, Note: "not an operator", Want: 403, Do: func(c *apitest.Client, s *apitest.State) *apitest.Response {
				return c.Do("GET", base, nil, s.Token)
			}},
			{Stage: apitest.Store, Route: list, Note: "unknown status", Want: 400, Do: func(c *apitest.Client, s *apitest.State) *apitest.Response {
				return c.Do("GET", base+"?status=open", nil, s.OperatorToken)
			}},
			{Stage: apitest.Store, Route: get, Want: 200, Do: func(c *apitest.Client, s *apitest.State) *apitest.Response {
				return c.Do("GET", one(s), nil, s.OperatorToken)
			}},
			{Stage: apitest.Store, Route: get, Note: "not an operator", Want: 403, Do: func(c *apitest.Client, s *apitest.State) *apitest.Response {
				return c.Do("GET", one(s), nil, s.Token)
			}},
			{Stage: apitest.Store, Route: get, Note: "no such application", Want: 404, Do: func(c *apitest.Client, s *apitest.State) *apitest.Response {
				return c.Do("GET", unknown, nil, s.OperatorToken)
			}},
			{Stage: apitest.Store, Route: decline, Note: "no reason", Want: 400, Do: func(c *apitest.Client, s *apitest.State) *apitest.Response {
				return c.Do("POST", one(s)+"/decline", map[string]any{}, s.OperatorToken)
			}},
			{Stage: apitest.Store, Route: decline, Note: "not an operator", Want: 403, Do: func(c *apitest.Client, s *apitest.State) *apitest.Response {
				return c.Do("POST", one(s)+"/decline", map[string]any{"reason": "Mine"}, s.Token)
			}},
			{Stage: apitest.Store, Route: decline, Note: "no such application", Want: 404, Do: func(c *apitest.Client, s *apitest.State) *apitest.Response {
				return c.Do("POST", unknown+"/decline", map[string]any{"reason": "Unknown"}, s.OperatorToken)
			}},
			{Stage: apitest.Store, Route: decline, Want: 200, Do: func(c *apitest.Client, s *apitest.State) *apitest.Response {
				return c.Do("POST", one(s)+"/decline", map[string]any{"reason": "We could not find the shop at this address; send a photo of its front."}, s.OperatorToken)
			}},
			{Stage: apitest.Store, Route: decline, Note: "decided already", Want: 409, Do: func(c *apitest.Client, s *apitest.State) *apitest.Response {
				return c.Do("POST", one(s)+"/decline", map[string]any{"reason": "Again"}, s.OperatorToken)
			}},
			// The reader, declined, applies again.
			{Stage: apitest.Store, Route: "POST /v1/users/me/bookstore-application", Note: "after a decline", Want: 201, Do: func(c *apitest.Client, s *apitest.State) *apitest.Response {
				res := c.Do("POST", "/v1/users/me/bookstore-application", usersapitest.BookstoreApplication("Bench Corner Books"), s.Token)
				s.ApplicationID, _ = res.JSON["id"].(string)
				return res
			}},
			{Stage: apitest.Store, Route: approve, Note: "not an operator", Want: 403, Do: func(c *apitest.Client, s *apitest.State) *apitest.Response {
				return c.Do("POST", one(s)+"/approve", map[string]any{}, s.Token)
			}},
			{Stage: apitest.Store, Route: approve, Note: "no such application", Want: 404, Do: func(c *apitest.Client, s *apitest.State) *apitest.Response {
				return c.Do("POST", unknown+"/approve", map[string]any{}, s.OperatorToken)
			}},
			{Stage: apitest.Store, Route: approve, Note: "a long reason", Want: 400, Do: func(c *apitest.Client, s *apitest.State) *apitest.Response {
				long := make([]byte, 1001)
				for i := range long {
					long[i] = 'r'
				}
				return c.Do("POST", one(s)+"/approve", map[string]any{"reason": string(long)}, s.OperatorToken)
			}},
			{Stage: apitest.Store, Route: approve, Want: 200, Do: func(c *apitest.Client, s *apitest.State) *apitest.Response {
				return c.Do("POST", one(s)+"/approve", map[string]any{"reason": "Photo received; welcome."}, s.OperatorToken)
			}},
			{Stage: apitest.Store, Route: approve, Note: "decided already", Want: 409, Do: func(c *apitest.Client, s *apitest.State) *apitest.Response {
				return c.Do("POST", one(s)+"/approve", map[string]any{}, s.OperatorToken)
			}},
		},
		// The spec names no action for the back office; the tier rate
		// applies.
		Actions: map[string][]string{list: nil, get: nil, approve: nil, decline: nil},
	}
}
