// Package ordersapitest declares what the central tests need about the
// orders group (shared/api/apitest): its steps of the call benchmark's
// scenario (local/bench) and the rate-limit actions of its routes
// (shared/groups). Test support: no function links it.
package ordersapitest

import (
	"github.com/bookplatform/backend/shared/api/apitest"
	"github.com/bookplatform/backend/shared/inventory"
	"maps"
)

// Address is the scenario's shipping address.
var Address = map[string]any{"name": "Bench Reader", "addressLine1": "2 Oak Ave", "city": "Portland", "state": "OR",
	"postalCode": "97205", "country": "US", "phone": "+1 503 555 0199"}

// Order is the body of an order of copies of the scenario's book at its
// store, paid with pm.
func Order(s *apitest.State, copies int, pm string) map[string]any {
	return map[string]any{"items": []any{map[string]any{"inventoryId": inventory.ItemID(s.StoreID, s.BookID), "quantity": copies}},
		"shippingAddress": Address, "paymentMethodId": pm}
}

// Facts are the orders group's steps and its routes' rate-limit
// actions.
func Facts() apitest.Facts {
	// What the steps pass on: the order placed and its session, and one
	// to cancel.
	var orderID, sessionID, cancelID string
	order := func() string { return "/v1/orders/" + orderID }
	steps := []apitest.Step{
		// The inventory steps end with the item's deletion: the
		// bookseller stocks the book again; the reader makes the store
		// their home store (the order's commission accrues to it).
		{Stage: apitest.Store, Route: "POST /v1/inventory", Note: "again, to order", Want: 201, Do: func(c *apitest.Client, s *apitest.State) *apitest.Response {
			return c.Do("POST", "/v1/inventory", map[string]any{"storeId": s.StoreID, "bookId": s.BookID, "quantity": 20,
				"priceCents": 1299, "condition": "new"}, s.SellerToken)
		}},
		{Stage: apitest.Store, Route: "PUT /v1/users/me/home-store", Note: "attribution", Want: 200, Do: func(c *apitest.Client, s *apitest.State) *apitest.Response {
			return c.Do("PUT", "/v1/users/me/home-store", map[string]any{"storeId": s.StoreID}, s.Token)
		}},
		{Stage: apitest.Store, Route: "POST /v1/orders", Want: 201, Do: func(c *apitest.Client, s *apitest.State) *apitest.Response {
			res := c.Keyed("bench-order-1").Do("POST", "/v1/orders", Order(s, 2, "pm_card_visa"), s.Token)
			orderID, _ = res.JSON["id"].(string)
			sessionID, _ = res.JSON["checkoutSessionId"].(string)
			return res
		}},
		{Stage: apitest.Store, Route: "POST /v1/orders", Note: "retried (same key)", Want: 201, Do: func(c *apitest.Client, s *apitest.State) *apitest.Response {
			return c.Keyed("bench-order-1").Do("POST", "/v1/orders", Order(s, 2, "pm_card_visa"), s.Token)
		}},
		{Stage: apitest.Store, Route: "POST /v1/orders", Note: "declined", Want: 402, Do: func(c *apitest.Client, s *apitest.State) *apitest.Response {
			return c.Do("POST", "/v1/orders", Order(s, 1, "pm_card_chargeDeclined"), s.Token)
		}},
		{Stage: apitest.Store, Route: "POST /v1/orders", Note: "above stock", Want: 400, Do: func(c *apitest.Client, s *apitest.State) *apitest.Response {
			return c.Do("POST", "/v1/orders", Order(s, 50, "pm_card_visa"), s.Token)
		}},
		{Stage: apitest.Store, Route: "POST /v1/orders", Note: "unknown item", Want: 404, Do: func(c *apitest.Client, s *apitest.State) *apitest.Response {
			return c.Do("POST", "/v1/orders", map[string]any{"items": []any{map[string]any{"inventoryId": "00000000-0000-4000-8000-000000000000", "quantity": 1}},
				"shippingAddress": Address, "paymentMethodId": "pm_card_visa"}, s.Token)
		}},
		{Stage: apitest.Store, Route: "GET /v1/orders", Want: 200, Do: func(c *apitest.Client, s *apitest.State) *apitest.Response {
			return c.Do("GET", "/v1/orders", nil, s.Token)
		}},
		{Stage: apitest.Store, Route: "GET /v1/orders", Note: "pending", Want: 200, Do: func(c *apitest.Client, s *apitest.State) *apitest.Response {
			return c.Do("GET", "/v1/orders?status=pending", nil, s.Token)
		}},
		{Stage: apitest.Store, Route: "GET /v1/orders/{id}", Want: 200, Do: func(c *apitest.Client, s *apitest.State) *apitest.Response {
			return c.Do("GET", order(), nil, s.Token)
		}},
		{Stage: apitest.Store, Route: "GET /v1/orders/{id}", Note: "not the owner", Want: 403, Do: func(c *apitest.Client, s *apitest.State) *apitest.Response {
			return c.Do("GET", order(), nil, s.SellerToken)
		}},
		{Stage: apitest.Store, Route: "GET /v1/orders/{id}", Note: "unknown id", Want: 404, Do: func(c *apitest.Client, s *apitest.State) *apitest.Response {
			return c.Do("GET", "/v1/orders/00000000-0000-4000-8000-000000000000", nil, s.Token)
		}},
		{Stage: apitest.Store, Route: "POST /v1/orders/confirm", Want: 200, Do: func(c *apitest.Client, _ *apitest.State) *apitest.Response {
			return c.Do("POST", "/v1/orders/confirm", map[string]any{"sessionId": sessionID}, "")
		}},
		{Stage: apitest.Store, Route: "POST /v1/orders/confirm", Note: "again", Want: 200, Do: func(c *apitest.Client, _ *apitest.State) *apitest.Response {
			return c.Do("POST", "/v1/orders/confirm", map[string]any{"sessionId": sessionID}, "")
		}},
		{Stage: apitest.Store, Route: "POST /v1/orders/confirm", Note: "unknown session", Want: 404, Do: func(c *apitest.Client, _ *apitest.State) *apitest.Response {
			return c.Do("POST", "/v1/orders/confirm", map[string]any{"sessionId": "pi_000000000000000000000000"}, "")
		}},
		{Stage: apitest.Store, Route: "POST /v1/orders/confirm", Note: "malformed", Want: 400, Do: func(c *apitest.Client, _ *apitest.State) *apitest.Response {
			return c.Do("POST", "/v1/orders/confirm", map[string]any{"sessionId": "cs_test"}, "")
		}},
	}
	store, storeActions := StoreSteps(func() string { return orderID })
	steps = append(steps, store...)
	steps = append(steps, []apitest.Step{
		{Stage: apitest.Store, Route: "POST /v1/orders", Note: "to cancel", Want: 201, Do: func(c *apitest.Client, s *apitest.State) *apitest.Response {
			res := c.Do("POST", "/v1/orders", Order(s, 1, "pm_card_visa"), s.Token)
			cancelID, _ = res.JSON["id"].(string)
			return res
		}},
		{Stage: apitest.Store, Route: "POST /v1/orders/{id}/cancel", Note: "not the owner", Want: 403, Do: func(c *apitest.Client, s *apitest.State) *apitest.Response {
			return c.Do("POST", "/v1/orders/"+cancelID+"/cancel", map[string]any{"reason": "mine"}, s.SellerToken)
		}},
		{Stage: apitest.Store, Route: "POST /v1/orders/{id}/cancel", Want: 200, Do: func(c *apitest.Client, s *apitest.State) *apitest.Response {
			return c.Do("POST", "/v1/orders/"+cancelID+"/cancel", map[string]any{"reason": "Changed my mind"}, s.Token)
		}},
		{Stage: apitest.Store, Route: "POST /v1/orders/{id}/cancel", Note: "again", Want: 400, Do: func(c *apitest.Client, s *apitest.State) *apitest.Response {
			return c.Do("POST", "/v1/orders/"+cancelID+"/cancel", map[string]any{}, s.Token)
		}},
		{Stage: apitest.Store, Route: "POST /v1/orders/{id}/cancel", Note: "unknown id", Want: 404, Do: func(c *apitest.Client, s *apitest.State) *apitest.Response {
			return c.Do("POST", "/v1/orders/00000000-0000-4000-8000-000000000000/cancel", map[string]any{}, s.Token)
		}},
		// The preview needs no token: a guest asks.
		{Stage: apitest.Store, Route: "POST /v1/orders/preview", Note: "a guest", Want: 200, Do: func(c *apitest.Client, s *apitest.State) *apitest.Response {
			return c.Do("POST", "/v1/orders/preview", map[string]any{"items": []any{map[string]any{"bookId": s.BookID, "quantity": 1}},
				"shippingAddress": map[string]any{"postalCode": "97209", "country": "US"}}, "")
		}},
		{Stage: apitest.Store, Route: "POST /v1/orders/preview", Note: "unknown book", Want: 400, Do: func(c *apitest.Client, s *apitest.State) *apitest.Response {
			return c.Do("POST", "/v1/orders/preview", map[string]any{"items": []any{map[string]any{"bookId": "00000000-0000-4000-8000-000000000000", "quantity": 1}},
				"shippingAddress": map[string]any{"postalCode": "97209", "country": "US"}}, "")
		}},
	}...)
	// The spec names no action for orders; the tier rate applies.
	actions := map[string][]string{
		"POST /v1/orders":             nil,
		"GET /v1/orders":              nil,
		"GET /v1/orders/{id}":         nil,
		"POST /v1/orders/{id}/cancel": nil,
		"POST /v1/orders/confirm":     nil,
		"POST /v1/orders/preview":     nil,
	}
	maps.Copy(actions, storeActions)
	return apitest.Facts{Steps: steps, Actions: actions}
}
