// Package tradecreditapitest declares what the central tests need about
// the trade credit group (shared/api/apitest): its steps of the call
// benchmark's scenario (local/bench) and the rate-limit actions of its
// routes (shared/groups). Test support: no function links it.
package tradecreditapitest

import (
	"github.com/bookplatform/backend/shared/api/apitest"
)

// Facts are the trade credit group's steps and its routes' rate-limit
// actions.
func Facts() apitest.Facts {
	grant := func(s *apitest.State, amount int) map[string]any {
		return map[string]any{"storeId": s.StoreID, "customerUserId": s.UserID, "amountCents": amount, "reason": "Traded in 3 paperbacks"}
	}
	return apitest.Facts{
		Steps: []apitest.Step{
			// The bookseller's store gives the reader credit for books
			// traded in, corrects it, reads the ledger; the reader reads
			// their balances.
			{Stage: apitest.Store, Route: "POST /v1/trade-credit", Want: 201, Do: func(c *apitest.Client, s *apitest.State) *apitest.Response {
				return c.Keyed("bench-trade-credit-1").Do("POST", "/v1/trade-credit", grant(s, 1500), s.SellerToken)
			}},
			{Stage: apitest.Store, Route: "POST /v1/trade-credit", Note: "a correction", Want: 201, Do: func(c *apitest.Client, s *apitest.State) *apitest.Response {
				return c.Do("POST", "/v1/trade-credit", grant(s, -500), s.SellerToken)
			}},
			// A refusal releases its Idempotency-Key (DeleteItem), so the
			// counter may retry once it has looked at the balance.
			{Stage: apitest.Store, Route: "POST /v1/trade-credit", Note: "below zero", Want: 400, Do: func(c *apitest.Client, s *apitest.State) *apitest.Response {
				return c.Keyed("bench-trade-credit-2").Do("POST", "/v1/trade-credit", grant(s, -5000), s.SellerToken)
			}},
			{Stage: apitest.Store, Route: "POST /v1/trade-credit", Note: "not staff", Want: 403, Do: func(c *apitest.Client, s *apitest.State) *apitest.Response {
				return c.Do("POST", "/v1/trade-credit", grant(s, 100), s.Token)
			}},
			{Stage: apitest.Store, Route: "GET /v1/trade-credit", Want: 200, Do: func(c *apitest.Client, s *apitest.State) *apitest.Response {
				return c.Do("GET", "/v1/trade-credit?storeId="+s.StoreID+"&customerUserId="+s.UserID, nil, s.SellerToken)
			}},
			// Without storeId the store is the caller's own, known only
			// once its record is read: one round trip more (tested in
			// tradecreditapi, not measured here).
			{Stage: apitest.Store, Route: "GET /v1/trade-credit", Note: "unknown customer", Want: 404, Do: func(c *apitest.Client, s *apitest.State) *apitest.Response {
				return c.Do("GET", "/v1/trade-credit?storeId="+s.StoreID+"&customerUserId=00000000-0000-4000-8000-000000000000", nil, s.SellerToken)
			}},
			{Stage: apitest.Store, Route: "GET /v1/trade-credit/me", Want: 200, Do: func(c *apitest.Client, s *apitest.State) *apitest.Response {
				return c.Do("GET", "/v1/trade-credit/me", nil, s.Token)
			}},
		},
		// The spec names no action for trade credit; the tier rate applies.
		Actions: map[string][]string{
			"POST /v1/trade-credit":   nil,
			"GET /v1/trade-credit":    nil,
			"GET /v1/trade-credit/me": nil,
		},
	}
}
