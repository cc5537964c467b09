package posapitest

import (
	"github.com/bookplatform/backend/shared/api/apitest"
	"github.com/bookplatform/backend/shared/inventory"
)

// Sale is the body of a sale of three lines at the scenario's store: a
// copy of its book from the store's stock (the orders' steps stocked it,
// new), a catalog book sold without stock, and a custom item.
func Sale(s *apitest.State) map[string]any {
	return map[string]any{"storeId": s.StoreID, "paymentMethod": "card", "items": []any{
		map[string]any{"bookId": s.BookID, "inventoryId": inventory.ItemID(s.StoreID, s.BookID), "quantity": 1, "unitPriceCents": 1299, "isUsed": false},
		map[string]any{"bookId": s.Book2ID, "quantity": 1, "unitPriceCents": 850, "isUsed": true},
		map[string]any{"customItem": map[string]any{"title": "Bookmark", "authors": []string{"Local Artist"}}, "quantity": 2, "unitPriceCents": 250, "isUsed": false},
	}}
}

// saleFacts are the sales' steps: the bookseller (the store's owner,
// with every staff right) rings up a sale, retries it, reads the list,
// the sale and its receipt; the reader, who staffs nothing, is refused.
func saleFacts() apitest.Facts {
	var saleID string
	sale := func() string { return "/api/pos/sales/" + saleID }
	return apitest.Facts{
		Steps: []apitest.Step{
			{Stage: apitest.Store, Route: "POST /api/pos/sales", Want: 201, Do: func(c *apitest.Client, s *apitest.State) *apitest.Response {
				res := c.Keyed("bench-sale-1").Do("POST", "/api/pos/sales", Sale(s), s.SellerToken)
				saleID, _ = res.JSON["id"].(string)
				return res
			}},
			{Stage: apitest.Store, Route: "POST /api/pos/sales", Note: "retried (same key)", Want: 201, Do: func(c *apitest.Client, s *apitest.State) *apitest.Response {
				return c.Keyed("bench-sale-1").Do("POST", "/api/pos/sales", Sale(s), s.SellerToken)
			}},
			{Stage: apitest.Store, Route: "POST /api/pos/sales", Note: "above stock, keyed", Want: 400, Do: func(c *apitest.Client, s *apitest.State) *apitest.Response {
				// Refused, it wrote nothing: its key is released for a retry.
				body := Sale(s)
				body["items"].([]any)[0].(map[string]any)["quantity"] = 999
				return c.Keyed("bench-sale-2").Do("POST", "/api/pos/sales", body, s.SellerToken)
			}},
			{Stage: apitest.Store, Route: "POST /api/pos/sales", Note: "no items", Want: 400, Do: func(c *apitest.Client, s *apitest.State) *apitest.Response {
				return c.Do("POST", "/api/pos/sales", map[string]any{"storeId": s.StoreID, "items": []any{}, "paymentMethod": "cash"}, s.SellerToken)
			}},
			{Stage: apitest.Store, Route: "POST /api/pos/sales", Note: "not staff", Want: 403, Do: func(c *apitest.Client, s *apitest.State) *apitest.Response {
				return c.Do("POST", "/api/pos/sales", Sale(s), s.Token)
			}},
			{Stage: apitest.Store, Route: "GET /api/pos/sales", Want: 200, Do: func(c *apitest.Client, s *apitest.State) *apitest.Response {
				return c.Do("GET", "/api/pos/sales?storeId="+s.StoreID, nil, s.SellerToken)
			}},
			{Stage: apitest.Store, Route: "GET /api/pos/sales", Note: "dates, limit", Want: 200, Do: func(c *apitest.Client, s *apitest.State) *apitest.Response {
				return c.Do("GET", "/api/pos/sales?storeId="+s.StoreID+"&startDate=2020-01-01&endDate=2099-12-31T23:59:59Z&limit=10", nil, s.SellerToken)
			}},
			{Stage: apitest.Store, Route: "GET /api/pos/sales/{id}", Want: 200, Do: func(c *apitest.Client, s *apitest.State) *apitest.Response {
				return c.Do("GET", sale(), nil, s.SellerToken)
			}},
			{Stage: apitest.Store, Route: "GET /api/pos/sales/{id}", Note: "unknown id", Want: 404, Do: func(c *apitest.Client, s *apitest.State) *apitest.Response {
				return c.Do("GET", "/api/pos/sales/00000000-0000-4000-8000-000000000000", nil, s.SellerToken)
			}},
			{Stage: apitest.Store, Route: "GET /api/pos/sales/{id}", Note: "not staff", Want: 403, Do: func(c *apitest.Client, s *apitest.State) *apitest.Response {
				return c.Do("GET", sale(), nil, s.Token)
			}},
			{Stage: apitest.Store, Route: "GET /api/pos/sales/{id}/receipt", Want: 200, Do: func(c *apitest.Client, s *apitest.State) *apitest.Response {
				return c.Do("GET", sale()+"/receipt", nil, s.SellerToken)
			}},
		},
		// The spec names no action for the point of sale; the tier rate
		// applies.
		Actions: map[string][]string{
			"POST /api/pos/sales":             nil,
			"GET /api/pos/sales":              nil,
			"GET /api/pos/sales/{id}":         nil,
			"GET /api/pos/sales/{id}/receipt": nil,
		},
	}
}
