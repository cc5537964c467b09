// Package ordersapi is the orders endpoint group: a reader places an
// order of books from one or several stores (paid through the payment
// provider: authorised at creation, captured on confirmation), lists and
// reads their orders, cancels one, and confirms a web checkout session.
// It is its own group (and Lambda): the payment provider's SDK goes into
// no other group's bootstrap.
//
// Who may read or cancel an order is the order's owner, checked by the
// service (403 for another user's order, 404 for none).
package ordersapi

import (
	"net/http"

	"github.com/bookplatform/backend/shared/api"
	"github.com/bookplatform/backend/shared/api/ordering"
	"github.com/bookplatform/backend/shared/httpapi"
	"github.com/bookplatform/backend/shared/orders"
)

// handler serves the orders group.
type handler struct {
	orders *orders.Service
}

// Group is the orders group. Its calls: BatchGetItem for the inventory
// refs, the items (consistent), their stores and books; GetItem for an
// order, a session pointer, a user's order counts, a custom domain's
// claim and a commission; Query for a user's orders (GSI1, GSI2);
// TransactWriteItems for the order and its cancellation and
// confirmation (Puts of the order, its parts, its pointers, the items
// and their history and events; Updates of the counts, the store's
// in-stock count and the earnings; a Delete of a pending commission);
// UpdateItem for the postings' stock flags and the payment's status.
func Group(d api.Deps) api.Group {
	h := &handler{orders: ordering.Service(d, ordering.Provider(d, false))}
	payErr := "payments are not configured on this deployment."
	return api.Group{
		Name: "orders",
		Table: []string{"dynamodb:BatchGetItem", "dynamodb:DeleteItem", "dynamodb:GetItem", "dynamodb:PutItem",
			"dynamodb:Query", "dynamodb:UpdateItem"},
		Emits: ordering.Emits,
		Routes: append([]httpapi.Route{
			{Method: http.MethodPost, Path: httpapi.V1("/orders"), Auth: httpapi.AuthBearer, Idempotent: true, Handler: h.create,
				Doc: httpapi.Doc{Summary: "Place an order of inventory items from one or several stores, paid with a payment method (authorised now, captured on confirmation); each store's part is shipped or picked up",
					Body: createRequest{}, Response: orders.Data{}, Status: http.StatusCreated, Errors: []int{400, 402, 404, 503},
					Why: map[int]string{
						400: "an invalid body (1 to 15 items, distinct inventoryIds, quantities 1-99, a shipping address when any part ships, a fulfilment of ship or pickup, fulfilments naming the order's stores only), a payment method the provider does not know, or items unavailable: a quantity above the item's stock (details.inventoryIds names them; nothing is charged).",
						402: "the payment was declined: no order is written and no stock is held.",
						404: "an inventoryId names no item (details.inventoryIds).",
						503: payErr}}},
			{Method: http.MethodGet, Path: httpapi.V1("/orders"), Auth: httpapi.AuthBearer, Handler: h.list,
				Doc: httpapi.Doc{Summary: "The caller's orders, newest first, optionally in one status",
					Query: []httpapi.Param{
						{Name: "status", Type: "string", Enum: []string{"pending", "confirmed", "shipped", "delivered", "cancelled"}, About: "only the orders in this status"},
						httpapi.LimitParam(listLimits.Default, listLimits.Max), httpapi.OffsetParam(),
					},
					Response: listResponse{}, Errors: []int{400}}},
			{Method: http.MethodGet, Path: httpapi.V1("/orders/{id}"), Auth: httpapi.AuthBearer, Handler: h.get,
				Doc: httpapi.Doc{Summary: "One of the caller's orders in detail: each item's store and book, the shipping address with its phone, tracking and confirmedAt",
					Response: orders.Data{}, Errors: []int{403, 404},
					Why: map[int]string{403: "the order is another user's.", 404: "no order has this id."}}},
			{Method: http.MethodPost, Path: httpapi.V1("/orders/{id}/cancel"), Auth: httpapi.AuthBearer, Idempotent: true, Handler: h.cancel,
				Doc: httpapi.Doc{Summary: "Cancel a pending or confirmed order: its stock goes back, its payment is voided (not captured yet) or refunded (captured)",
					Body: cancelRequest{}, OptionalBody: true, Response: cancelled{}, Errors: []int{400, 403, 404, 503},
					Why: map[int]string{
						400: "the order cannot be cancelled (shipped, delivered, cancelled or refunded: its status is unchanged), or a reason over 500 characters.",
						403: "the order is another user's.", 404: "no order has this id.", 503: payErr}}},
			{Method: http.MethodPost, Path: httpapi.V1("/orders/confirm"), Auth: httpapi.AuthNone, Idempotent: true, Handler: h.confirm,
				Doc: httpapi.Doc{Summary: "Confirm the order of a checkout session once its payment is complete (captures it); confirming again answers the same and changes nothing",
					Body: confirmRequest{}, Response: confirmResponse{}, Errors: []int{400, 404, 503},
					Why: map[int]string{
						400: "a malformed session id, a session expired or canceled, a payment the buyer has not completed, or an order cancelled.",
						404: "no order was paid with this session.", 503: payErr}}},
			PreviewRoute(d),
		}, StoreRoutes(d)...),
	}
}

// listLimits: the spec's default of 20 for orders; at most 100.
var listLimits = httpapi.OffsetLimits{Default: 20, Max: 100}
