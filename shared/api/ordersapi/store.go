package ordersapi

import (
	"net/http"
	"time"

	"github.com/bookplatform/backend/shared/api"
	"github.com/bookplatform/backend/shared/dynamo"
	"github.com/bookplatform/backend/shared/httpapi"
	"github.com/bookplatform/backend/shared/ids"
	"github.com/bookplatform/backend/shared/orders"
)

// storeHandler serves the stores' side of orders: a store's owner or
// staff list the store's parts of orders, read one, and move it (ship
// with tracking, deliver; ready for pickup, picked up). Who may is
// declared on the routes (StoreStaff of the slug's store) and checked
// by the router.
type storeHandler struct {
	fulfil *orders.FulfilService
}

// storeStaff is the role of every store route: the owner or staff of
// the store the path's slug names.
var storeStaff = httpapi.StoreStaff(httpapi.SlugInPath("slug"))

// storeListLimits: 20 by default, as the buyer's orders; at most 100.
var storeListLimits = httpapi.OffsetLimits{Default: 20, Max: 100}

// StoreRoutes are the stores' side of orders, for the orders group's
// route list. Their calls: Query of the store's parts (GSI1, GSI2 by
// status) beside GetItem of the store's order counts; GetItem of an
// order; TransactWriteItems for a step (Puts of the order, the part and
// the outbox event; Updates of the user's and the store's order
// counts). The group's Table must grant dynamodb:GetItem, Query,
// PutItem and UpdateItem; its Emits orders.Events (order.updated).
func StoreRoutes(d api.Deps) []httpapi.Route {
	h := &storeHandler{fulfil: orders.NewFulfilService(orders.FulfilDeps{Store: dynamo.NewOrders(d.Table), Logger: d.Logger, Now: d.Now})}
	why403 := "the caller is neither the owner nor staff of the store."
	why404 := "no store has this slug, no order has this id, or the order has no part from this store."
	step := func(path string, s orders.Step, summary, from string, body any) httpapi.Route {
		why400 := "the part is not " + from + " (the message names its status; nothing changes), or it is of the other fulfilment (ship or pickup)."
		if body != nil {
			why400 += " Or a bad tracking field: carrier and trackingNumber required, trackingUrl an http(s) URL."
		}
		doc := httpapi.Doc{Summary: summary, Body: body, Response: storeOrderDetail{}, Errors: []int{400, 403, 404},
			Why: map[int]string{400: why400, 403: why403, 404: why404}}
		return httpapi.Route{Method: http.MethodPost, Path: httpapi.V1("/stores/{slug}/orders/{orderId}/" + path), Auth: httpapi.AuthBearer,
			Role: storeStaff, Idempotent: true, Handler: h.step(s), Doc: doc}
	}
	return []httpapi.Route{
		{Method: http.MethodGet, Path: httpapi.V1("/stores/{slug}/orders"), Auth: httpapi.AuthBearer, Role: storeStaff, Handler: h.list,
			Doc: httpapi.Doc{Summary: "The store's parts of orders, newest first, optionally in one part status: what the store must fulfil, with its lines, totals and tracking",
				Query: []httpapi.Param{
					{Name: "status", Type: "string", Enum: statusNames(orders.PartStatuses), About: "only the parts in this status"},
					httpapi.LimitParam(storeListLimits.Default, storeListLimits.Max), httpapi.OffsetParam(),
				},
				Response: storeListResponse{}, Errors: []int{400, 403, 404},
				Why: map[int]string{403: why403, 404: "no store has this slug."}}},
		{Method: http.MethodGet, Path: httpapi.V1("/stores/{slug}/orders/{orderId}"), Auth: httpapi.AuthBearer, Role: storeStaff, Handler: h.get,
			Doc: httpapi.Doc{Summary: "The store's part of an order, with the order's status and, for a part that ships, the shipping address",
				Response: storeOrderDetail{}, Errors: []int{403, 404},
				Why: map[int]string{403: why403, 404: why404}}},
		step("ship", orders.StepShip, "Mark the store's part shipped, with its tracking (a part that ships, confirmed); the order is shipped once every part is", "confirmed", shipRequest{}),
		step("delivered", orders.StepDelivered, "Mark the store's shipped part delivered; the order is delivered once every part is delivered or picked up", "shipped", nil),
		step("ready-for-pickup", orders.StepReadyForPickup, "Mark the store's pickup part ready for the buyer to collect (confirmed); the order stays confirmed", "confirmed", nil),
		step("picked-up", orders.StepPickedUp, "Mark the store's pickup part picked up (ready for pickup); it counts as delivered for the order's status", "ready for pickup", nil),
	}
}

func statusNames(ss []orders.Status) []string {
	out := make([]string, len(ss))
	for i, s := range ss {
		out[i] = string(s)
	}
	return out
}

// shipRequest is the body of POST .../ship: the shipment's tracking.
type shipRequest struct {
	Carrier        string `json:"carrier" doc:"The carrier (USPS, UPS, ...): at most 100 characters."`
	TrackingNumber string `json:"trackingNumber" doc:"At most 100 characters."`
	TrackingURL    string `json:"trackingUrl,omitempty" doc:"Where the buyer follows the shipment: an absolute http(s) URL."`
}

// storeListResponse answers GET /v1/stores/{slug}/orders.
type storeListResponse struct {
	Orders []storeOrder `json:"orders"`
	httpapi.OffsetMeta
}

// storeOrder is a store's part of an order as its list shows it.
type storeOrder struct {
	OrderID     string            `json:"orderId"`
	OrderNumber string            `json:"orderNumber"`
	StoreID     string            `json:"storeId"`
	Fulfilment  orders.Fulfilment `json:"fulfilment" doc:"ship (to the order's shipping address) or pickup (at the store)."`
	Status      orders.Status     `json:"status" doc:"The part's status: pending (not paid yet: do not fulfil), confirmed, ready_for_pickup, shipped, picked_up, delivered, cancelled or refunded."`
	Items       []storeOrderItem  `json:"items"`
	orders.Totals
	// Tracking is null until shipped, and for pickup.
	Tracking  *orders.Tracking `json:"tracking"`
	CreatedAt time.Time        `json:"createdAt"`
	UpdatedAt time.Time        `json:"updatedAt"`
}

// storeOrderDetail is a store's part of an order in detail: the list's
// fields with the order's status and the address the part ships to.
type storeOrderDetail struct {
	OrderID     string            `json:"orderId"`
	OrderNumber string            `json:"orderNumber"`
	OrderStatus orders.Status     `json:"orderStatus" doc:"The whole order's status (all stores' parts): confirmed until every part has shipped."`
	StoreID     string            `json:"storeId"`
	Fulfilment  orders.Fulfilment `json:"fulfilment" doc:"ship or pickup."`
	Status      orders.Status     `json:"status" doc:"The part's status: pending, confirmed, ready_for_pickup, shipped, picked_up, delivered, cancelled or refunded."`
	Items       []storeOrderItem  `json:"items"`
	orders.Totals
	// Tracking is null until shipped, and for pickup; ShippingAddress
	// (the buyer's name and phone with it) null for a pickup part.
	Tracking        *orders.Tracking `json:"tracking"`
	ShippingAddress *orders.Address  `json:"shippingAddress"`
	CreatedAt       time.Time        `json:"createdAt"`
	UpdatedAt       time.Time        `json:"updatedAt"`
}

// storeOrderItem is one line of a store's part: its inventory item
// (one line per item in an order), the book, copies, price charged and
// condition.
type storeOrderItem struct {
	InventoryID string        `json:"inventoryId"`
	BookID      string        `json:"bookId"`
	Book        storeLineBook `json:"book"`
	Quantity    int           `json:"quantity"`
	PriceCents  int64         `json:"priceCents"`
	Condition   string        `json:"condition"`
}

// storeLineBook is what a line shows of its book.
type storeLineBook struct {
	ISBN    string   `json:"isbn"`
	Title   string   `json:"title"`
	Authors []string `json:"authors"`
}

func storeItems(items []orders.Item) []storeOrderItem {
	out := make([]storeOrderItem, len(items))
	for i, it := range items {
		authors := it.Authors
		if authors == nil {
			authors = []string{}
		}
		out[i] = storeOrderItem{InventoryID: it.InventoryID, BookID: it.BookID,
			Book:     storeLineBook{ISBN: it.ISBN, Title: it.Title, Authors: authors},
			Quantity: it.Quantity, PriceCents: it.PriceCents, Condition: it.Condition}
	}
	return out
}

func newStoreOrder(p orders.StorePart) storeOrder {
	return storeOrder{OrderID: p.OrderID, OrderNumber: p.OrderNumber, StoreID: p.StoreID, Fulfilment: p.Fulfilment, Status: p.Status,
		Items: storeItems(p.Items), Totals: p.Totals, Tracking: p.Tracking, CreatedAt: p.CreatedAt.UTC(), UpdatedAt: p.UpdatedAt.UTC()}
}

func newStoreOrderDetail(p *orders.StorePart) storeOrderDetail {
	return storeOrderDetail{OrderID: p.OrderID, OrderNumber: p.OrderNumber, OrderStatus: p.OrderStatus, StoreID: p.StoreID,
		Fulfilment: p.Fulfilment, Status: p.Status, Items: storeItems(p.Items), Totals: p.Totals, Tracking: p.Tracking,
		ShippingAddress: p.Address, CreatedAt: p.CreatedAt.UTC(), UpdatedAt: p.UpdatedAt.UTC()}
}

// list serves GET /v1/stores/{slug}/orders.
func (h *storeHandler) list(w http.ResponseWriter, r *http.Request) error {
	o, err := httpapi.OffsetPage(r, storeListLimits)
	if err != nil {
		return err
	}
	status := orders.Status(r.URL.Query().Get("status"))
	rows, total, err := h.fulfil.List(r.Context(), httpapi.CallerOf(r).Store().ID, status, o)
	if err != nil {
		return err
	}
	out := storeListResponse{Orders: make([]storeOrder, len(rows)), OffsetMeta: httpapi.NewOffsetMeta(o, total)}
	for i, p := range rows {
		out.Orders[i] = newStoreOrder(p)
	}
	return httpapi.JSON(w, http.StatusOK, out)
}

// storeOrderID reads the path's order id: one that is no UUID names no
// order.
func storeOrderID(r *http.Request) (string, error) {
	id, ok := ids.Parse(r.PathValue("orderId"))
	if !ok {
		return "", orders.ErrPartNotFound
	}
	return id, nil
}

// get serves GET /v1/stores/{slug}/orders/{orderId}.
func (h *storeHandler) get(w http.ResponseWriter, r *http.Request) error {
	id, err := storeOrderID(r)
	if err != nil {
		return err
	}
	p, err := h.fulfil.Get(r.Context(), httpapi.CallerOf(r).Store().ID, id)
	if err != nil {
		return err
	}
	return httpapi.JSON(w, http.StatusOK, newStoreOrderDetail(p))
}

// step serves POST /v1/stores/{slug}/orders/{orderId}/<step>.
func (h *storeHandler) step(s orders.Step) httpapi.HandlerFunc {
	return func(w http.ResponseWriter, r *http.Request) error {
		id, err := storeOrderID(r)
		if err != nil {
			return err
		}
		var tracking *orders.Tracking
		if s == orders.StepShip {
			var req shipRequest
			if err := httpapi.Decode(w, r, &req); err != nil {
				return err
			}
			tracking = &orders.Tracking{Carrier: req.Carrier, TrackingNumber: req.TrackingNumber, TrackingURL: req.TrackingURL}
		}
		p, err := h.fulfil.Advance(r.Context(), httpapi.CallerOf(r).Store().ID, id, s, tracking)
		if err != nil {
			return err
		}
		return httpapi.JSON(w, http.StatusOK, newStoreOrderDetail(p))
	}
}
