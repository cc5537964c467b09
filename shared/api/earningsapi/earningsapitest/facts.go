// Package earningsapitest declares what the central tests need about
// the earnings group (shared/api/apitest): its steps of the call
// benchmark's scenario (local/bench) and the rate-limit actions of its
// routes (shared/groups). Test support: no function links it.
package earningsapitest

import (
	"github.com/bookplatform/backend/shared/api/apitest"
)

// Facts are the earnings group's steps and its routes' rate-limit
// actions.
func Facts() apitest.Facts {
	path := func(s *apitest.State, rest string) string { return "/v1/stores/" + s.StoreSlug + rest }
	return apitest.Facts{
		Steps: []apitest.Step{
			// The bookseller's store, open again since the inventory
			// group's steps: its owner reads what it earned.
			{Stage: apitest.Store, Route: "GET /v1/stores/{slug}/earnings", Want: 200, Do: func(c *apitest.Client, s *apitest.State) *apitest.Response {
				return c.Do("GET", path(s, "/earnings"), nil, s.SellerToken)
			}},
			{Stage: apitest.Store, Route: "GET /v1/stores/{slug}/earnings", Note: "not the owner", Want: 403, Do: func(c *apitest.Client, s *apitest.State) *apitest.Response {
				return c.Do("GET", path(s, "/earnings"), nil, s.Token)
			}},
			{Stage: apitest.Store, Route: "GET /v1/stores/{slug}/affiliate-commissions", Want: 200, Do: func(c *apitest.Client, s *apitest.State) *apitest.Response {
				return c.Do("GET", path(s, "/affiliate-commissions"), nil, s.SellerToken)
			}},
			{Stage: apitest.Store, Route: "GET /v1/stores/{slug}/affiliate-commissions", Note: "pending", Want: 200, Do: func(c *apitest.Client, s *apitest.State) *apitest.Response {
				return c.Do("GET", path(s, "/affiliate-commissions?status=pending"), nil, s.SellerToken)
			}},
			{Stage: apitest.Store, Route: "GET /v1/stores/{slug}/affiliate-commissions", Note: "bad status", Want: 400, Do: func(c *apitest.Client, s *apitest.State) *apitest.Response {
				return c.Do("GET", path(s, "/affiliate-commissions?status=refunded"), nil, s.SellerToken)
			}},
			{Stage: apitest.Store, Route: "GET /v1/stores/{slug}/pool-payouts", Want: 200, Do: func(c *apitest.Client, s *apitest.State) *apitest.Response {
				return c.Do("GET", path(s, "/pool-payouts"), nil, s.SellerToken)
			}},
		},
		// The spec names no action for earnings; the tier rate applies.
		Actions: map[string][]string{
			"GET /v1/stores/{slug}/earnings":              nil,
			"GET /v1/stores/{slug}/affiliate-commissions": nil,
			"GET /v1/stores/{slug}/pool-payouts":          nil,
		},
	}
}
