package orders

import (
	"time"

	"github.com/bookplatform/backend/shared/events"
)

// The events of orders, each recorded in the transaction of the change
// it reports: order.created with the order's creation, order.updated
// with every move of the order's status or of one of its parts'.
var (
	CreatedEvent = events.Declaration{
		Type: "order.created", Version: 1, Data: Data{},
		Summary: "A reader placed an order (pending: payment authorised, not yet confirmed)",
	}
	UpdatedEvent = events.Declaration{
		Type: "order.updated", Version: 1, Data: Data{},
		Summary: "An order's status or one of its store parts' changed (confirmed, cancelled, refunded, ...)",
	}
	// Events are the events the orders group emits (api.Group.Emits).
	Events = []events.Declaration{CreatedEvent, UpdatedEvent}
)

// Data is an order as GET /orders/{id} shows it: the data of its events
// and the detail view's body (the orders API writes this very type).
type Data struct {
	ID                 string        `json:"id"`
	OrderNumber        string        `json:"orderNumber"`
	UserID             string        `json:"userId"`
	Status             Status        `json:"status"`
	Items              []ItemData    `json:"items"`
	Fulfilment         []PartData    `json:"fulfilment" doc:"The order's store parts: each store's shipment (or pickup), its status and totals."`
	SubtotalCents      int64         `json:"subtotalCents"`
	ShippingCents      int64         `json:"shippingCents"`
	TaxCents           int64         `json:"taxCents"`
	TotalCents         int64         `json:"totalCents"`
	ShippingAddress    *Address      `json:"shippingAddress"`
	Tracking           *Tracking     `json:"tracking,omitempty"`
	CheckoutSessionID  string        `json:"checkoutSessionId" doc:"The payment session: what POST /v1/orders/confirm takes."`
	PaymentStatus      PaymentStatus `json:"paymentStatus" doc:"authorized, action_required (the buyer completes the payment on the web), captured, voided or refunded."`
	CreatedAt          time.Time     `json:"createdAt"`
	UpdatedAt          time.Time     `json:"updatedAt"`
	ConfirmedAt        *time.Time    `json:"confirmedAt"`
	CancelledAt        *time.Time    `json:"cancelledAt"`
	CancellationReason *string       `json:"cancellationReason"`
	RefundedAt         *time.Time    `json:"refundedAt,omitempty"`
}

// ItemData is an order item in the detail view.
type ItemData struct {
	ID          string   `json:"id"`
	InventoryID string   `json:"inventoryId"`
	BookID      string   `json:"bookId"`
	Book        BookData `json:"book"`
	Quantity    int      `json:"quantity"`
	PriceCents  int64    `json:"priceCents"`
	Condition   string   `json:"condition"`
	StoreID     string   `json:"storeId"`
	StoreName   string   `json:"storeName"`
	StoreSlug   string   `json:"storeSlug"`
}

// BookData is an order item's book in the detail view.
type BookData struct {
	ID       string   `json:"id"`
	ISBN     string   `json:"isbn"`
	Title    string   `json:"title"`
	Authors  []string `json:"authors"`
	CoverURL string   `json:"coverUrl"`
}

// PartData is one store's part of an order.
type PartData struct {
	StoreID    string     `json:"storeId"`
	StoreName  string     `json:"storeName"`
	StoreSlug  string     `json:"storeSlug"`
	Fulfilment Fulfilment `json:"fulfilment" doc:"ship or pickup"`
	Status     Status     `json:"status"`
	Totals
	Tracking *Tracking `json:"tracking,omitempty"`
}

// DataOf is o as GET /orders/{id} shows it.
func DataOf(o *Order) Data {
	d := Data{
		ID: o.ID, OrderNumber: o.Number, UserID: o.UserID, Status: o.Status,
		Items: make([]ItemData, len(o.Items)), Fulfilment: make([]PartData, len(o.Parts)),
		SubtotalCents: o.SubtotalCents, ShippingCents: o.ShippingCents, TaxCents: o.TaxCents, TotalCents: o.TotalCents,
		ShippingAddress: o.Address, Tracking: o.Tracking(), CheckoutSessionID: o.CheckoutSessionID, PaymentStatus: o.PaymentStatus,
		CreatedAt: o.CreatedAt.UTC(), UpdatedAt: o.UpdatedAt.UTC(), ConfirmedAt: utc(o.ConfirmedAt), CancelledAt: utc(o.CancelledAt),
		RefundedAt: utc(o.RefundedAt),
	}
	if o.CancellationReason != "" {
		r := o.CancellationReason
		d.CancellationReason = &r
	}
	for i, it := range o.Items {
		var name, slug string
		if p := o.Part(it.StoreID); p != nil {
			name, slug = p.StoreName, p.StoreSlug
		}
		d.Items[i] = ItemData{
			ID: it.ID, InventoryID: it.InventoryID, BookID: it.BookID,
			Book:     BookData{ID: it.BookID, ISBN: it.ISBN, Title: it.Title, Authors: nonNil(it.Authors), CoverURL: it.CoverURL},
			Quantity: it.Quantity, PriceCents: it.PriceCents, Condition: it.Condition, StoreID: it.StoreID, StoreName: name, StoreSlug: slug,
		}
	}
	for i, p := range o.Parts {
		d.Fulfilment[i] = PartData{StoreID: p.StoreID, StoreName: p.StoreName, StoreSlug: p.StoreSlug, Fulfilment: p.Fulfilment,
			Status: p.Status, Totals: p.Totals, Tracking: p.Tracking}
	}
	return d
}

func utc(t *time.Time) *time.Time {
	if t == nil {
		return nil
	}
	u := t.UTC()
	return &u
}

func nonNil(s []string) []string {
	if s == nil {
		return []string{}
	}
	return s
}

// Created and Updated are o's events at its UpdatedAt.
func Created(o *Order) (events.Event, error) { return CreatedEvent.New(o.UpdatedAt, DataOf(o)) }
func Updated(o *Order) (events.Event, error) { return UpdatedEvent.New(o.UpdatedAt, DataOf(o)) }
