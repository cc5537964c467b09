package adminapitest

import (
	"time"

	"github.com/bookplatform/backend/shared/api/apitest"
	"github.com/bookplatform/backend/shared/dynamo"
	"github.com/bookplatform/backend/shared/earnings"
	"github.com/bookplatform/backend/shared/inventory"
)

// moneyFacts: payouts marked paid and the refund after delivery. They
// run in the Store stage, after the orders group's steps delivered the
// reader's orders (attributed to the scenario's store, the reader's home
// store): the operator marks one order's commission paid, refunds that
// order (its paid commission gets a pending reversal), then marks the
// reversal paid; a pool payout no route makes (the monthly job's) is put
// behind the API for the pool route.
func moneyFacts() apitest.Facts {
	// orderID: a delivered order whose commission is paid before its
	// refund; otherID: another, refunded with its commission pending;
	// split: an order arranged behind the API whose second store (none
	// of the scenario's) has not handed its part over, paid by otherID's
	// session (the refunds of both take what is left of it).
	var orderID, otherID, otherSession, split string
	const month = "2026-10"
	com := func(s *apitest.State, order string) string {
		return "/v1/admin/stores/" + s.StoreID + "/payouts/orders/" + order + "/paid"
	}
	pool := func(s *apitest.State, m string) string {
		return "/v1/admin/stores/" + s.StoreID + "/payouts/pool/" + m + "/paid"
	}
	refund := func(id string) string { return "/v1/admin/orders/" + id + "/refund" }
	const unknown = "0193a8c4-2f6e-7d1a-9b3c-5e7f9a1b3c5d"
	paid := map[string]any{"reference": "tr_1QbX8e2eZvKYlo2C", "reason": "October's transfer"}
	why := map[string]any{"reason": "The copy arrived water-damaged"}
	return apitest.Facts{
		Steps: []apitest.Step{
			{Stage: apitest.Store, Route: "GET /v1/orders", Note: "a delivered order, for the back office", Want: 200, Do: func(c *apitest.Client, s *apitest.State) *apitest.Response {
				res := c.Do("GET", "/v1/orders?status=delivered&limit=2", nil, s.Token)
				if list, _ := res.JSON["orders"].([]any); len(list) > 1 {
					orderID, _ = list[0].(map[string]any)["id"].(string)
					otherID, _ = list[1].(map[string]any)["id"].(string)
				}
				return res
			}},
			{Stage: apitest.Store, Route: "GET /v1/orders/{id}", Note: "its payment, for the back office", Want: 200, Do: func(c *apitest.Client, s *apitest.State) *apitest.Response {
				res := c.Do("GET", "/v1/orders/"+otherID, nil, s.Token)
				otherSession, _ = res.JSON["checkoutSessionId"].(string)
				return res
			}},
			// The order's commission, paid.
			{Stage: apitest.Store, Route: "POST /v1/admin/stores/{storeId}/payouts/orders/{orderId}/paid", Want: 200, Do: func(c *apitest.Client, s *apitest.State) *apitest.Response {
				return c.Do("POST", com(s, orderID), paid, s.OperatorToken)
			}},
			{Stage: apitest.Store, Route: "POST /v1/admin/stores/{storeId}/payouts/orders/{orderId}/paid", Note: "paid already", Want: 400, Do: func(c *apitest.Client, s *apitest.State) *apitest.Response {
				return c.Do("POST", com(s, orderID), paid, s.OperatorToken)
			}},
			{Stage: apitest.Store, Route: "POST /v1/admin/stores/{storeId}/payouts/orders/{orderId}/paid", Note: "no reference", Want: 400, Do: func(c *apitest.Client, s *apitest.State) *apitest.Response {
				return c.Do("POST", com(s, orderID), map[string]any{"reference": ""}, s.OperatorToken)
			}},
			{Stage: apitest.Store, Route: "POST /v1/admin/stores/{storeId}/payouts/orders/{orderId}/paid", Note: "not an operator", Want: 403, Do: func(c *apitest.Client, s *apitest.State) *apitest.Response {
				return c.Do("POST", com(s, orderID), paid, s.SellerToken)
			}},
			{Stage: apitest.Store, Route: "POST /v1/admin/stores/{storeId}/payouts/orders/{orderId}/paid", Note: "no such record", Want: 404, Do: func(c *apitest.Client, s *apitest.State) *apitest.Response {
				return c.Do("POST", com(s, unknown), paid, s.OperatorToken)
			}},
			// The refund of that order, after delivery.
			{Stage: apitest.Store, Route: "POST /v1/admin/orders/{orderId}/refund", Want: 200, Do: func(c *apitest.Client, s *apitest.State) *apitest.Response {
				return c.Keyed("bench-refund-1").Do("POST", refund(orderID), why, s.OperatorToken)
			}},
			{Stage: apitest.Store, Route: "POST /v1/admin/orders/{orderId}/refund", Note: "its commission unpaid", Want: 200, Do: func(c *apitest.Client, s *apitest.State) *apitest.Response {
				return c.Do("POST", refund(otherID), why, s.OperatorToken)
			}},
			{Stage: apitest.Store, Route: "POST /v1/admin/orders/{orderId}/refund", Note: "a part not handed over", Want: 200,
				Before: func(s *apitest.State) error {
					split = "0193a8c4-2f6e-7d1a-9b3c-00000000b0c1"
					return s.PutItem(splitOrder(s, split, otherSession))
				},
				Do: func(c *apitest.Client, s *apitest.State) *apitest.Response {
					return c.Do("POST", refund(split), why, s.OperatorToken)
				}},
			{Stage: apitest.Store, Route: "POST /v1/admin/orders/{orderId}/refund", Note: "refunded already", Want: 409, Do: func(c *apitest.Client, s *apitest.State) *apitest.Response {
				return c.Do("POST", refund(orderID), why, s.OperatorToken)
			}},
			{Stage: apitest.Store, Route: "POST /v1/admin/orders/{orderId}/refund", Note: "no reason", Want: 400, Do: func(c *apitest.Client, s *apitest.State) *apitest.Response {
				return c.Do("POST", refund(orderID), map[string]any{}, s.OperatorToken)
			}},
			{Stage: apitest.Store, Route: "POST /v1/admin/orders/{orderId}/refund", Note: "not an operator", Want: 403, Do: func(c *apitest.Client, s *apitest.State) *apitest.Response {
				return c.Do("POST", refund(orderID), why, s.Token)
			}},
			{Stage: apitest.Store, Route: "POST /v1/admin/orders/{orderId}/refund", Note: "no such order", Want: 404, Do: func(c *apitest.Client, s *apitest.State) *apitest.Response {
				return c.Do("POST", refund(unknown), why, s.OperatorToken)
			}},
			// The commission was paid before the refund: its reversal is
			// pending, and netted now.
			{Stage: apitest.Store, Route: "POST /v1/admin/stores/{storeId}/payouts/orders/{orderId}/paid", Note: "the reversal", Want: 200, Do: func(c *apitest.Client, s *apitest.State) *apitest.Response {
				return c.Do("POST", com(s, orderID), map[string]any{"reference": "netted in tr_1QcA"}, s.OperatorToken)
			}},
			// A pool payout, as the monthly job writes it.
			{Stage: apitest.Store, Route: "POST /v1/admin/stores/{storeId}/payouts/pool/{month}/paid", Want: 200,
				Before: func(s *apitest.State) error {
					k := dynamo.PoolPayoutKey(s.StoreID, month)
					return s.PutItem(map[string]any{"PK": k.PK, "SK": k.SK, "type": "PoolPayout", "id": earnings.PoolPayoutID(month, s.StoreID),
						"storeId": s.StoreID, "poolMonth": month, "payoutAmountCents": 1250, "status": "pending",
						"createdAt": time.Date(2026, 11, 1, 2, 0, 0, 0, time.UTC).Format(time.RFC3339Nano)})
				},
				Do: func(c *apitest.Client, s *apitest.State) *apitest.Response {
					return c.Do("POST", pool(s, month), paid, s.OperatorToken)
				}},
			{Stage: apitest.Store, Route: "POST /v1/admin/stores/{storeId}/payouts/pool/{month}/paid", Note: "paid already", Want: 400, Do: func(c *apitest.Client, s *apitest.State) *apitest.Response {
				return c.Do("POST", pool(s, month), paid, s.OperatorToken)
			}},
			{Stage: apitest.Store, Route: "POST /v1/admin/stores/{storeId}/payouts/pool/{month}/paid", Note: "not a month", Want: 400, Do: func(c *apitest.Client, s *apitest.State) *apitest.Response {
				return c.Do("POST", pool(s, "2026-13"), paid, s.OperatorToken)
			}},
			{Stage: apitest.Store, Route: "POST /v1/admin/stores/{storeId}/payouts/pool/{month}/paid", Note: "not an operator", Want: 403, Do: func(c *apitest.Client, s *apitest.State) *apitest.Response {
				return c.Do("POST", pool(s, month), paid, s.SellerToken)
			}},
			{Stage: apitest.Store, Route: "POST /v1/admin/stores/{storeId}/payouts/pool/{month}/paid", Note: "no such payout", Want: 404, Do: func(c *apitest.Client, s *apitest.State) *apitest.Response {
				return c.Do("POST", pool(s, "2026-09"), paid, s.OperatorToken)
			}},
		},
		// The spec names no action for the back office; the tier rate
		// applies.
		Actions: map[string][]string{
			"POST /v1/admin/stores/{storeId}/payouts/orders/{orderId}/paid": nil,
			"POST /v1/admin/stores/{storeId}/payouts/pool/{month}/paid":     nil,
			"POST /v1/admin/orders/{orderId}/refund":                        nil,
		},
	}
}

// splitOrder is an order of two stores, the scenario's (shipped, then
// delivered) and another (confirmed: its copy still on its shelf, to go
// back to its stock, which no longer exists), paid by session: what a
// refund that gives stock back reads. Its item is as the orders' storage
// writes it (dynamo.orderItem); no route makes a second store.
func splitOrder(s *apitest.State, id, session string) map[string]any {
	k := dynamo.OrderKey(id)
	other := "0193a8c4-2f6e-7d1a-9b3c-00000000b0c2"
	at := time.Date(2026, 11, 2, 10, 0, 0, 0, time.UTC).Format(time.RFC3339Nano)
	item := func(n, storeID string) map[string]any {
		return map[string]any{"id": id + "-" + n, "inventoryId": inventory.ItemID(storeID, s.BookID), "bookId": s.BookID,
			"storeId": storeID, "quantity": 1, "priceCents": 100, "condition": "new", "title": "A book", "isbn": "9780441172719"}
	}
	part := func(storeID, status string) map[string]any {
		return map[string]any{"storeId": storeID, "storeName": "A store", "storeSlug": "a-store", "fulfilment": "ship", "status": status,
			"subtotalCents": 100, "shippingCents": 0, "taxCents": 0, "totalCents": 100}
	}
	return map[string]any{"PK": k.PK, "SK": k.SK, "type": "Order", "id": id, "orderNumber": "BW-20261102-SPL1T0", "userId": s.UserID,
		"status": "confirmed", "items": []any{item("1", s.StoreID), item("2", other)},
		"itemCount": 2, "parts": []any{part(s.StoreID, "delivered"), part(other, "confirmed")},
		"subtotalCents": 200, "shippingCents": 0, "taxCents": 0, "totalCents": 200, "checkoutSessionId": session,
		"paymentStatus": "captured", "commissionCents": 0, "poolCents": 4, "version": 3, "createdAt": at, "updatedAt": at}
}
