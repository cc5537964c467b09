package orders

import (
	"crypto/rand"
	"errors"
	"strings"
	"time"

	"github.com/bookplatform/backend/shared/apperr"
	"github.com/bookplatform/backend/shared/payments"
)

// Status is where an order (or one store's part of it) stands.
type Status string

// The statuses (spec: Order status). Shipped and delivered are moved
// into by the stores' side (a later change); refunded by an operator's
// refund.
const (
	Pending   Status = "pending"
	Confirmed Status = "confirmed"
	Shipped   Status = "shipped"
	Delivered Status = "delivered"
	Cancelled Status = "cancelled"
	Refunded  Status = "refunded"
)

// Statuses are the statuses GET /orders filters by (the spec's list).
var Statuses = []Status{Pending, Confirmed, Shipped, Delivered, Cancelled}

// AllStatuses are every status an order can hold: the order counts
// keep one number per each.
var AllStatuses = []Status{Pending, Confirmed, Shipped, Delivered, Cancelled, Refunded}

// Filterable reports whether s is a status GET /orders filters by.
func (s Status) Filterable() bool {
	for _, x := range Statuses {
		if s == x {
			return true
		}
	}
	return false
}

// Cancellable reports whether an order in s may be cancelled by its
// owner: before anything was shipped.
func (s Status) Cancellable() bool { return s == Pending || s == Confirmed }

// PaymentStatus is where the order's payment stands at the provider,
// as the order last recorded it.
type PaymentStatus string

// The payment statuses.
const (
	PayAuthorized     PaymentStatus = "authorized"
	PayActionRequired PaymentStatus = "action_required"
	PayCaptured       PaymentStatus = "captured"
	PayVoided         PaymentStatus = "voided"
	PayRefunded       PaymentStatus = "refunded"
)

// Limits of an order.
const (
	// MaxOrderItems is the most lines an order has: its transaction
	// writes 3 items per line (the inventory item, its history entry,
	// its event), at most 3 per store (the part, the store's
	// inStockCount, the pool month's sales) and 7 fixed (the order, its
	// number's claim, the session pointer, the order counts, the
	// order.created event and the commission record with the store's
	// earnings or the pool month's total); the parts' store counts make
	// a store 4, hence MaxOrderStores: 15 lines from 10 stores are
	// 45 + 40 + 7 = 92, within DynamoDB's 100 items per transaction.
	MaxOrderItems = 15
	// MaxQuantity is the most copies of one line.
	MaxQuantity = 99
	// MaxReasonRunes bounds a cancellation reason.
	MaxReasonRunes = 500
)

// Address is a shipping address. Phone is accepted and shown in the
// detail view only.
type Address struct {
	Name         string `dynamo:"name" json:"name"`
	AddressLine1 string `dynamo:"addressLine1" json:"addressLine1"`
	AddressLine2 string `dynamo:"addressLine2,omitempty" json:"addressLine2"`
	City         string `dynamo:"city" json:"city"`
	State        string `dynamo:"state" json:"state"`
	PostalCode   string `dynamo:"postalCode" json:"postalCode"`
	Country      string `dynamo:"country" json:"country"`
	Phone        string `dynamo:"phone,omitempty" json:"phone,omitempty"`
}

// Tracking is a shipment's tracking (set by the store's side).
type Tracking struct {
	Carrier        string `dynamo:"carrier" json:"carrier"`
	TrackingNumber string `dynamo:"trackingNumber" json:"trackingNumber"`
	TrackingURL    string `dynamo:"trackingUrl" json:"trackingUrl"`
}

// Item is one line of an order: copies of one store's inventory item,
// at the price charged, with what the order shows of its book and store.
type Item struct {
	ID          string   `dynamo:"id"`
	InventoryID string   `dynamo:"inventoryId"`
	BookID      string   `dynamo:"bookId"`
	StoreID     string   `dynamo:"storeId"`
	Quantity    int      `dynamo:"quantity"`
	PriceCents  int64    `dynamo:"priceCents"`
	Condition   string   `dynamo:"condition"`
	Title       string   `dynamo:"title"`
	Authors     []string `dynamo:"authors"`
	ISBN        string   `dynamo:"isbn"`
	CoverURL    string   `dynamo:"coverUrl"`
}

// Part is one store's part of an order: its lines (by index into the
// order's Items), how it reaches the buyer and its totals.
type Part struct {
	StoreID    string     `dynamo:"storeId"`
	StoreName  string     `dynamo:"storeName"`
	StoreSlug  string     `dynamo:"storeSlug"`
	Fulfilment Fulfilment `dynamo:"fulfilment"`
	Status     Status     `dynamo:"status"`
	Totals
	Tracking *Tracking `dynamo:"tracking,omitempty"`
}

// Order is a reader's order.
type Order struct {
	ID     string
	Number string
	UserID string
	Status Status
	Items  []Item
	Parts  []Part
	// Address is nil when every part is picked up and none was given.
	Address *Address
	Totals
	CheckoutSessionID string
	PaymentStatus     PaymentStatus
	// AttributedStoreID is the store the order's affiliate commission
	// accrues to; "" when none (the order feeds the monthly pool).
	AttributedStoreID string
	// CommissionCents is the attributed store's commission;
	// PoolCents the pool's share of an order with no attribution. Kept
	// on the order so a cancellation reverses exactly what was added.
	CommissionCents    int64
	PoolCents          int64
	Version            int
	CreatedAt          time.Time
	UpdatedAt          time.Time
	ConfirmedAt        *time.Time
	CancelledAt        *time.Time
	CancellationReason string
	RefundedAt         *time.Time
}

// Part returns the order's part of storeID, nil when none.
func (o *Order) Part(storeID string) *Part {
	for i := range o.Parts {
		if o.Parts[i].StoreID == storeID {
			return &o.Parts[i]
		}
	}
	return nil
}

// ItemCount is the number of copies ordered.
func (o *Order) ItemCount() int {
	n := 0
	for _, it := range o.Items {
		n += it.Quantity
	}
	return n
}

// Tracking is the order's tracking when exactly one shipped part has
// one (the spec's one tracking per order); nil otherwise.
func (o *Order) Tracking() *Tracking {
	var t *Tracking
	for _, p := range o.Parts {
		if p.Tracking != nil {
			if t != nil {
				return nil
			}
			t = p.Tracking
		}
	}
	return t
}

// Summary is an order as GET /orders lists it.
type Summary struct {
	ID, Number, UserID string
	Status             Status
	TotalCents         int64
	ItemCount          int
	CreatedAt          time.Time
	UpdatedAt          time.Time
}

// Errors of the orders domain.
var (
	ErrNotFound = apperr.NotFound("Order not found")
	// ErrForbidden is another user's order.
	ErrForbidden = apperr.Forbidden("Not your order")
	// ErrNotCancellable is an order shipped, delivered or cancelled.
	ErrNotCancellable = apperr.Validation("Order cannot be cancelled", map[string]string{"status": "only a pending or confirmed order can be cancelled"})
	// ErrExpired is a confirmation of a session the provider canceled
	// (voided, or expired unpaid).
	ErrExpired = apperr.Validation("Checkout session expired", map[string]string{"sessionId": "the checkout session has expired or was canceled"})
	// ErrNotPaid is a confirmation of a session the buyer has not
	// completed yet (3-D Secure pending).
	ErrNotPaid = apperr.Validation("Payment not completed", map[string]string{"sessionId": "the payment of this checkout session is not completed yet"})
	// ErrOrderCancelled is a confirmation of a cancelled order.
	ErrOrderCancelled = apperr.Validation("Order was cancelled", map[string]string{"sessionId": "the order of this checkout session was cancelled"})
	// ErrPaymentsOff is a deployment without a payment provider (503).
	ErrPaymentsOff = payments.ErrNotConfigured
	// ErrNumberTaken is an order number claimed already (storage): the
	// order is tried again with another.
	ErrNumberTaken = errors.New("orders: order number taken")
	// ErrMoved is the order changed since it was read (storage).
	ErrMoved = errors.New("orders: order changed since it was read")
)

// UnavailableError is lines whose stock is short (storage): the
// service answers Unavailable.
type UnavailableError struct{ InventoryIDs []string }

func (e *UnavailableError) Error() string {
	return "items unavailable: " + strings.Join(e.InventoryIDs, ", ")
}

// Unavailable is the 400 of lines whose stock is short, naming each
// inventoryId (details.inventoryIds).
func Unavailable(inventoryIDs []string) error {
	e := apperr.Validation("Items unavailable", map[string]string{"items": "not enough copies in stock: " + strings.Join(inventoryIDs, ", ")})
	e.Details["inventoryIds"] = inventoryIDs
	return e
}

// NotFoundItems is the 404 of inventoryIds that name no item.
func NotFoundItems(inventoryIDs []string) error {
	return &apperr.Error{Code: apperr.CodeNotFound, Message: "Inventory not found: " + strings.Join(inventoryIDs, ", "),
		Details: map[string]any{"inventoryIds": inventoryIDs}}
}

// crockford is Crockford's base32 alphabet (no I, L, O, U).
const crockford = "0123456789ABCDEFGHJKMNPQRSTVWXYZ"

// NewNumber is a human-readable order number, BW-YYYYMMDD-XXXXXX: the
// UTC date of creation and 6 random Crockford base32 characters (2^30
// a day; storage claims it, a collision draws another).
func NewNumber(at time.Time) string {
	var b [6]byte
	_, _ = rand.Read(b[:])
	out := make([]byte, 6)
	for i, c := range b {
		out[i] = crockford[c&31]
	}
	return "BW-" + at.UTC().Format("20060102") + "-" + string(out)
}
