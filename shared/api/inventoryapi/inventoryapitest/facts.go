// Package inventoryapitest declares what the central tests need about
// the inventory group (shared/api/apitest): its steps of the call
// benchmark's scenario (local/bench) and the rate-limit actions of its
// routes (shared/groups). Test support: no function links it.
package inventoryapitest

import (
	"github.com/bookplatform/backend/shared/api/apitest"
	"github.com/bookplatform/backend/shared/inventory"
)

// Facts are the inventory group's steps and its routes' rate-limit
// actions.
func Facts() apitest.Facts {
	item := func(s *apitest.State) string { return "/v1/inventory/" + inventory.ItemID(s.StoreID, s.BookID) }
	return apitest.Facts{
		Steps: []apitest.Step{
			// The stores group's steps end with the store's deletion: the
			// bookseller opens it again (the slug is theirs) and stocks a
			// book; the reader, no longer staff, is refused.
			{Stage: apitest.Store, Route: "POST /v1/stores", Note: "again, to stock", Want: 201, Do: func(c *apitest.Client, s *apitest.State) *apitest.Response {
				res := c.Do("POST", "/v1/stores", map[string]any{
					"name": "Bench Books", "slug": s.StoreSlug, "addressLine1": "1005 W Burnside St", "city": "Portland", "state": "OR",
					"postalCode": "97209", "country": "US",
				}, s.SellerToken)
				s.StoreID, _ = res.JSON["id"].(string)
				return res
			}},
			{Stage: apitest.Store, Route: "POST /v1/inventory", Want: 201, Do: func(c *apitest.Client, s *apitest.State) *apitest.Response {
				return c.Do("POST", "/v1/inventory", map[string]any{"storeId": s.StoreID, "bookId": s.BookID, "quantity": 3,
					"priceCents": 1299, "costCents": 700, "condition": "new", "location": "Front table"}, s.SellerToken)
			}},
			{Stage: apitest.Store, Route: "POST /v1/inventory", Note: "same book again", Want: 409, Do: func(c *apitest.Client, s *apitest.State) *apitest.Response {
				return c.Do("POST", "/v1/inventory", map[string]any{"storeId": s.StoreID, "bookId": s.BookID, "quantity": 1,
					"priceCents": 1299, "condition": "new"}, s.SellerToken)
			}},
			{Stage: apitest.Store, Route: "POST /v1/inventory", Note: "not staff", Want: 403, Do: func(c *apitest.Client, s *apitest.State) *apitest.Response {
				return c.Do("POST", "/v1/inventory", map[string]any{"storeId": s.StoreID, "bookId": s.Book2ID, "quantity": 1,
					"priceCents": 999, "condition": "used_good"}, s.Token)
			}},
			{Stage: apitest.Store, Route: "GET /v1/inventory", Want: 200, Do: func(c *apitest.Client, s *apitest.State) *apitest.Response {
				return c.Do("GET", "/v1/inventory?storeId="+s.StoreID, nil, s.SellerToken)
			}},
			{Stage: apitest.Store, Route: "GET /v1/inventory", Note: "search, in stock", Want: 200, Do: func(c *apitest.Client, s *apitest.State) *apitest.Response {
				return c.Do("GET", "/v1/inventory?inStockOnly=true&search=bench&storeId="+s.StoreID, nil, s.SellerToken)
			}},
			{Stage: apitest.Store, Route: "GET /v1/inventory/{id}", Want: 200, Do: func(c *apitest.Client, s *apitest.State) *apitest.Response {
				return c.Do("GET", item(s)+"?storeId="+s.StoreID, nil, s.SellerToken)
			}},
			{Stage: apitest.Store, Route: "GET /v1/inventory/{id}", Note: "unknown id", Want: 404, Do: func(c *apitest.Client, s *apitest.State) *apitest.Response {
				return c.Do("GET", "/v1/inventory/00000000-0000-4000-8000-000000000000?storeId="+s.StoreID, nil, s.SellerToken)
			}},
			{Stage: apitest.Store, Route: "PUT /v1/inventory/{id}", Want: 200, Do: func(c *apitest.Client, s *apitest.State) *apitest.Response {
				return c.Do("PUT", item(s), map[string]any{"storeId": s.StoreID, "priceCents": 1499, "notes": "Signed"}, s.SellerToken)
			}},
			{Stage: apitest.Store, Route: "PUT /v1/inventory/{id}/adjust", Want: 200, Do: func(c *apitest.Client, s *apitest.State) *apitest.Response {
				return c.Do("PUT", item(s)+"/adjust", map[string]any{"storeId": s.StoreID, "adjustment": -1, "reason": "Sold at the till"}, s.SellerToken)
			}},
			{Stage: apitest.Store, Route: "PUT /v1/inventory/{id}/adjust", Note: "insufficient", Want: 400, Do: func(c *apitest.Client, s *apitest.State) *apitest.Response {
				return c.Do("PUT", item(s)+"/adjust", map[string]any{"storeId": s.StoreID, "adjustment": -100, "reason": "Recount"}, s.SellerToken)
			}},
			{Stage: apitest.Store, Route: "GET /v1/inventory/{id}/history", Want: 200, Do: func(c *apitest.Client, s *apitest.State) *apitest.Response {
				return c.Do("GET", item(s)+"/history?storeId="+s.StoreID, nil, s.SellerToken)
			}},
			{Stage: apitest.Store, Route: "GET /v1/books/{id}/availability", Note: "near Portland", Want: 200, Do: func(c *apitest.Client, s *apitest.State) *apitest.Response {
				return c.Do("GET", "/v1/books/"+s.BookID+"/availability?latitude=45.5231&longitude=-122.6765", nil, s.Token)
			}},
			{Stage: apitest.Store, Route: "GET /v1/books/{id}/availability", Note: "unknown book", Want: 404, Do: func(c *apitest.Client, s *apitest.State) *apitest.Response {
				return c.Do("GET", "/v1/books/00000000-0000-4000-8000-000000000000/availability", nil, s.Token)
			}},
			{Stage: apitest.Store, Route: "DELETE /v1/inventory/{id}", Want: 200, Do: func(c *apitest.Client, s *apitest.State) *apitest.Response {
				return c.Do("DELETE", item(s)+"?storeId="+s.StoreID, nil, s.SellerToken)
			}},
		},
		// The spec names no action for inventory; the tier rate applies.
		Actions: map[string][]string{
			"GET /v1/inventory":               nil,
			"POST /v1/inventory":              nil,
			"GET /v1/inventory/{id}":          nil,
			"PUT /v1/inventory/{id}":          nil,
			"PUT /v1/inventory/{id}/adjust":   nil,
			"DELETE /v1/inventory/{id}":       nil,
			"GET /v1/inventory/{id}/history":  nil,
			"GET /v1/books/{id}/availability": nil,
		},
	}
}
