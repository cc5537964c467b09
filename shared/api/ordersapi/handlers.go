package ordersapi

import (
	"encoding/json"
	"net/http"
	"strconv"
	"time"

	"github.com/bookplatform/backend/shared/apperr"
	"github.com/bookplatform/backend/shared/httpapi"
	"github.com/bookplatform/backend/shared/ids"
	"github.com/bookplatform/backend/shared/orders"
)

// createRequest is the body of POST /v1/orders.
type createRequest struct {
	Items           []lineRequest     `json:"items" doc:"1 to 15 lines, one per inventory item."`
	ShippingAddress *shippingAddress  `json:"shippingAddress,omitempty"`
	PaymentMethodID string            `json:"paymentMethodId" doc:"The payment provider's payment method (Stripe's test ids on test deployments: pm_card_visa succeeds, pm_card_chargeDeclined is declined)."`
	Fulfilment      string            `json:"fulfilment,omitempty" doc:"ship (the default) or pickup, for every store's part."`
	Fulfilments     map[string]string `json:"fulfilments,omitempty" doc:"ship or pickup per store id of the order's items; overrides fulfilment for that store."`
}

// lineRequest is one line of an order; quantity is read raw to tell an
// integer from anything else.
type lineRequest struct {
	InventoryID string          `json:"inventoryId"`
	Quantity    json.RawMessage `json:"quantity" openapi:"integer" doc:"1 to 99."`
}

// shippingAddress is a shipping address as sent: required when any part
// ships (addressLine2 and phone optional).
type shippingAddress struct {
	Name         string `json:"name"`
	AddressLine1 string `json:"addressLine1"`
	AddressLine2 string `json:"addressLine2,omitempty"`
	City         string `json:"city"`
	State        string `json:"state"`
	PostalCode   string `json:"postalCode"`
	Country      string `json:"country"`
	Phone        string `json:"phone,omitempty"`
}

// listResponse answers GET /v1/orders.
type listResponse struct {
	Orders []summary `json:"orders"`
	httpapi.OffsetMeta
}

// summary is an order as GET /v1/orders lists it.
type summary struct {
	ID          string        `json:"id"`
	OrderNumber string        `json:"orderNumber"`
	UserID      string        `json:"userId"`
	Status      orders.Status `json:"status"`
	TotalCents  int64         `json:"totalCents"`
	ItemCount   int           `json:"itemCount" doc:"Copies ordered, all lines together."`
	CreatedAt   time.Time     `json:"createdAt"`
	UpdatedAt   time.Time     `json:"updatedAt"`
}

// cancelRequest is the body of POST /v1/orders/{id}/cancel.
type cancelRequest struct {
	Reason string `json:"reason,omitempty" doc:"Why; at most 500 characters (default: cancelled by the customer)."`
}

// cancelled answers POST /v1/orders/{id}/cancel.
type cancelled struct {
	ID                 string               `json:"id"`
	OrderNumber        string               `json:"orderNumber"`
	Status             orders.Status        `json:"status"`
	CancelledAt        time.Time            `json:"cancelledAt"`
	CancellationReason string               `json:"cancellationReason"`
	PaymentStatus      orders.PaymentStatus `json:"paymentStatus" doc:"voided or refunded once the provider has released the payment; as it was when that failed (an operator retries)."`
}

// confirmRequest is the body of POST /v1/orders/confirm.
type confirmRequest struct {
	SessionID string `json:"sessionId" doc:"The order's checkoutSessionId (a web checkout session)."`
}

// confirmResponse answers POST /v1/orders/confirm.
type confirmResponse struct {
	Order confirmedOrder `json:"order"`
}

type confirmedOrder struct {
	ID          string        `json:"id"`
	OrderNumber string        `json:"orderNumber"`
	Status      orders.Status `json:"status"`
	TotalCents  int64         `json:"totalCents"`
	ConfirmedAt *time.Time    `json:"confirmedAt"`
}

// create serves POST /v1/orders: 201 with the order, its shipping
// address without the phone (the detail view's alone).
func (h *handler) create(w http.ResponseWriter, r *http.Request) error {
	var req createRequest
	if err := httpapi.Decode(w, r, &req); err != nil {
		return err
	}
	in := orders.Request{
		PaymentMethodID: req.PaymentMethodID, Fulfilment: orders.Fulfilment(req.Fulfilment), Origin: r.Header.Get("Origin"),
		Lines: make([]orders.LineRequest, len(req.Items)),
	}
	var f apperr.Fields
	for i, l := range req.Items {
		at := "items[" + strconv.Itoa(i) + "].quantity"
		q, present, err := httpapi.IntField(l.Quantity, at, quantityMessage)
		switch {
		case err != nil:
			f.Add(at, quantityMessage)
		case !present || q == nil:
			f.Add(at, "is required: "+quantityMessage)
		default:
			in.Lines[i].Quantity = *q
		}
		in.Lines[i].InventoryID = l.InventoryID
	}
	if err := f.Err(); err != nil {
		return err
	}
	if len(req.Fulfilments) > 0 {
		in.Fulfilments = make(map[string]orders.Fulfilment, len(req.Fulfilments))
		for k, v := range req.Fulfilments {
			in.Fulfilments[k] = orders.Fulfilment(v)
		}
	}
	if a := req.ShippingAddress; a != nil {
		in.Address = &orders.Address{Name: a.Name, AddressLine1: a.AddressLine1, AddressLine2: a.AddressLine2, City: a.City,
			State: a.State, PostalCode: a.PostalCode, Country: a.Country, Phone: a.Phone}
	}
	c := httpapi.CallerOf(r)
	buyer := orders.Buyer{ID: c.ID}
	if u := c.User(); u != nil {
		buyer.HomeStoreID = u.HomeStoreID
	}
	o, err := h.orders.Create(r.Context(), buyer, in)
	if err != nil {
		return err
	}
	d := orders.DataOf(o)
	if d.ShippingAddress != nil {
		a := *d.ShippingAddress
		a.Phone = ""
		d.ShippingAddress = &a
	}
	return httpapi.JSON(w, http.StatusCreated, d)
}

// quantityMessage is the message of a bad quantity.
var quantityMessage = "must be an integer from 1 to " + strconv.Itoa(orders.MaxQuantity)

// list serves GET /v1/orders.
func (h *handler) list(w http.ResponseWriter, r *http.Request) error {
	o, err := httpapi.OffsetPage(r, listLimits)
	if err != nil {
		return err
	}
	status := orders.Status(r.URL.Query().Get("status"))
	rows, total, err := h.orders.List(r.Context(), httpapi.CallerOf(r).ID, status, o)
	if err != nil {
		return err
	}
	out := listResponse{Orders: make([]summary, len(rows)), OffsetMeta: httpapi.NewOffsetMeta(o, total)}
	for i, s := range rows {
		out.Orders[i] = summary{ID: s.ID, OrderNumber: s.Number, UserID: s.UserID, Status: s.Status, TotalCents: s.TotalCents,
			ItemCount: s.ItemCount, CreatedAt: s.CreatedAt.UTC(), UpdatedAt: s.UpdatedAt.UTC()}
	}
	return httpapi.JSON(w, http.StatusOK, out)
}

// orderID reads the path's order id: one that is no order id (a UUID)
// names no order.
func orderID(r *http.Request) (string, error) {
	id, ok := ids.Parse(r.PathValue("id"))
	if !ok {
		return "", orders.ErrNotFound
	}
	return id, nil
}

// get serves GET /v1/orders/{id}.
func (h *handler) get(w http.ResponseWriter, r *http.Request) error {
	id, err := orderID(r)
	if err != nil {
		return err
	}
	o, err := h.orders.Get(r.Context(), httpapi.CallerOf(r).ID, id)
	if err != nil {
		return err
	}
	return httpapi.JSON(w, http.StatusOK, orders.DataOf(o))
}

// cancel serves POST /v1/orders/{id}/cancel.
func (h *handler) cancel(w http.ResponseWriter, r *http.Request) error {
	var req cancelRequest
	if err := httpapi.Decode(w, r, &req); err != nil {
		return err
	}
	id, err := orderID(r)
	if err != nil {
		return err
	}
	o, err := h.orders.Cancel(r.Context(), httpapi.CallerOf(r).ID, id, req.Reason)
	if err != nil {
		return err
	}
	return httpapi.JSON(w, http.StatusOK, cancelled{ID: o.ID, OrderNumber: o.Number, Status: o.Status,
		CancelledAt: o.CancelledAt.UTC(), CancellationReason: o.CancellationReason, PaymentStatus: o.PaymentStatus})
}

// confirm serves POST /v1/orders/confirm.
func (h *handler) confirm(w http.ResponseWriter, r *http.Request) error {
	var req confirmRequest
	if err := httpapi.Decode(w, r, &req); err != nil {
		return err
	}
	o, err := h.orders.Confirm(r.Context(), req.SessionID)
	if err != nil {
		return err
	}
	d := orders.DataOf(o)
	return httpapi.JSON(w, http.StatusOK, confirmResponse{Order: confirmedOrder{ID: d.ID, OrderNumber: d.OrderNumber, Status: d.Status,
		TotalCents: d.TotalCents, ConfirmedAt: d.ConfirmedAt}})
}
