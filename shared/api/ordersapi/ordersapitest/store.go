package ordersapitest

import "github.com/bookplatform/backend/shared/api/apitest"

// StoreSteps are the call benchmark's steps of the stores' side of
// orders (ordersapi.StoreRoutes), for the orders group's Facts: placed
// after its confirmation of the scenario's order (orderID: that order,
// one part that ships from the scenario's store), they list and read
// the store's part and ship and deliver it, with their refusals; then
// a second order, picked up, is made ready and collected.
// Actions are the routes' rate-limit actions: none beside the tier
// rate.
func StoreSteps(orderID func() string) ([]apitest.Step, map[string][]string) {
	base := func(s *apitest.State) string { return "/v1/stores/" + s.StoreSlug + "/orders" }
	part := func(s *apitest.State) string { return base(s) + "/" + orderID() }
	tracking := map[string]any{"carrier": "USPS", "trackingNumber": "9400100000000000000000",
		"trackingUrl": "https://tools.usps.com/go/TrackConfirmAction?tLabels=9400100000000000000000"}
	var pickupID, pickupSession string
	steps := []apitest.Step{
		{Stage: apitest.Store, Route: "GET /v1/stores/{slug}/orders", Want: 200, Do: func(c *apitest.Client, s *apitest.State) *apitest.Response {
			return c.Do("GET", base(s), nil, s.SellerToken)
		}},
		{Stage: apitest.Store, Route: "GET /v1/stores/{slug}/orders", Note: "confirmed", Want: 200, Do: func(c *apitest.Client, s *apitest.State) *apitest.Response {
			return c.Do("GET", base(s)+"?status=confirmed", nil, s.SellerToken)
		}},
		{Stage: apitest.Store, Route: "GET /v1/stores/{slug}/orders", Note: "not staff", Want: 403, Do: func(c *apitest.Client, s *apitest.State) *apitest.Response {
			return c.Do("GET", base(s), nil, s.Token)
		}},
		{Stage: apitest.Store, Route: "GET /v1/stores/{slug}/orders/{orderId}", Want: 200, Do: func(c *apitest.Client, s *apitest.State) *apitest.Response {
			return c.Do("GET", part(s), nil, s.SellerToken)
		}},
		{Stage: apitest.Store, Route: "GET /v1/stores/{slug}/orders/{orderId}", Note: "unknown order", Want: 404, Do: func(c *apitest.Client, s *apitest.State) *apitest.Response {
			return c.Do("GET", base(s)+"/00000000-0000-4000-8000-000000000000", nil, s.SellerToken)
		}},
		{Stage: apitest.Store, Route: "POST /v1/stores/{slug}/orders/{orderId}/ready-for-pickup", Note: "a part that ships", Want: 400, Do: func(c *apitest.Client, s *apitest.State) *apitest.Response {
			return c.Do("POST", part(s)+"/ready-for-pickup", nil, s.SellerToken)
		}},
		{Stage: apitest.Store, Route: "POST /v1/stores/{slug}/orders/{orderId}/picked-up", Note: "a part that ships", Want: 400, Do: func(c *apitest.Client, s *apitest.State) *apitest.Response {
			return c.Do("POST", part(s)+"/picked-up", nil, s.SellerToken)
		}},
		{Stage: apitest.Store, Route: "POST /v1/stores/{slug}/orders/{orderId}/delivered", Note: "not shipped yet", Want: 400, Do: func(c *apitest.Client, s *apitest.State) *apitest.Response {
			return c.Do("POST", part(s)+"/delivered", nil, s.SellerToken)
		}},
		{Stage: apitest.Store, Route: "POST /v1/stores/{slug}/orders/{orderId}/ship", Note: "not staff", Want: 403, Do: func(c *apitest.Client, s *apitest.State) *apitest.Response {
			return c.Do("POST", part(s)+"/ship", tracking, s.Token)
		}},
		{Stage: apitest.Store, Route: "POST /v1/stores/{slug}/orders/{orderId}/ship", Want: 200, Do: func(c *apitest.Client, s *apitest.State) *apitest.Response {
			return c.Do("POST", part(s)+"/ship", tracking, s.SellerToken)
		}},
		{Stage: apitest.Store, Route: "POST /v1/stores/{slug}/orders/{orderId}/delivered", Want: 200, Do: func(c *apitest.Client, s *apitest.State) *apitest.Response {
			return c.Do("POST", part(s)+"/delivered", nil, s.SellerToken)
		}},
		// A second order, picked up at the store: paid, made ready, collected.
		{Stage: apitest.Store, Route: "POST /v1/orders", Note: "picked up", Want: 201, Do: func(c *apitest.Client, s *apitest.State) *apitest.Response {
			body := Order(s, 1, "pm_card_visa")
			body["fulfilment"] = "pickup"
			res := c.Do("POST", "/v1/orders", body, s.Token)
			pickupID, _ = res.JSON["id"].(string)
			pickupSession, _ = res.JSON["checkoutSessionId"].(string)
			return res
		}},
		{Stage: apitest.Store, Route: "POST /v1/orders/confirm", Note: "the pickup order", Want: 200, Do: func(c *apitest.Client, _ *apitest.State) *apitest.Response {
			return c.Do("POST", "/v1/orders/confirm", map[string]any{"sessionId": pickupSession}, "")
		}},
		{Stage: apitest.Store, Route: "POST /v1/stores/{slug}/orders/{orderId}/picked-up", Note: "not ready yet", Want: 400, Do: func(c *apitest.Client, s *apitest.State) *apitest.Response {
			return c.Do("POST", base(s)+"/"+pickupID+"/picked-up", nil, s.SellerToken)
		}},
		{Stage: apitest.Store, Route: "POST /v1/stores/{slug}/orders/{orderId}/ready-for-pickup", Want: 200, Do: func(c *apitest.Client, s *apitest.State) *apitest.Response {
			return c.Do("POST", base(s)+"/"+pickupID+"/ready-for-pickup", nil, s.SellerToken)
		}},
		{Stage: apitest.Store, Route: "POST /v1/stores/{slug}/orders/{orderId}/picked-up", Want: 200, Do: func(c *apitest.Client, s *apitest.State) *apitest.Response {
			return c.Do("POST", base(s)+"/"+pickupID+"/picked-up", nil, s.SellerToken)
		}},
	}
	actions := map[string][]string{
		"GET /v1/stores/{slug}/orders":                             nil,
		"GET /v1/stores/{slug}/orders/{orderId}":                   nil,
		"POST /v1/stores/{slug}/orders/{orderId}/ship":             nil,
		"POST /v1/stores/{slug}/orders/{orderId}/delivered":        nil,
		"POST /v1/stores/{slug}/orders/{orderId}/ready-for-pickup": nil,
		"POST /v1/stores/{slug}/orders/{orderId}/picked-up":        nil,
	}
	return steps, actions
}
