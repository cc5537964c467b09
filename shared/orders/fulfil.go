package orders

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"net/url"
	"slices"
	"strconv"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/bookplatform/backend/shared/apperr"
	"github.com/bookplatform/backend/shared/page"
	"github.com/bookplatform/backend/shared/payments"
)

// The stores' side of orders: each store sees and fulfils its own part
// of an order (shipped with tracking then delivered, or made ready for
// pickup then picked up), the order's status follows its parts, and an
// operator refunds an order a store has handed over (RefundOrder).

// The statuses only a part holds: a pickup part's steps. The order's
// own statuses stay the spec's (AllStatuses): for the order, a part
// ready for pickup is still confirmed and one picked up is delivered.
const (
	ReadyForPickup Status = "ready_for_pickup"
	PickedUp       Status = "picked_up"
)

// PartStatuses are every status a part can hold: a store's order
// counts keep one number per each, and GET /stores/{slug}/orders
// filters by them.
var PartStatuses = []Status{Pending, Confirmed, ReadyForPickup, Shipped, PickedUp, Delivered, Cancelled, Refunded}

// handedOver reports whether a part in s has left its store: shipped,
// picked up or delivered (refunded after that too).
func (s Status) handedOver() bool { return s == Shipped || s == PickedUp || s == Delivered }

// StatusOfParts is the order's status its parts make, for an order
// whose parts are past confirmation: delivered when every part is
// delivered or picked up; shipped when every part is shipped or beyond
// (a picked-up part counts as delivered; one ready for pickup has not
// left the store, so it is not shipped); confirmed otherwise.
func StatusOfParts(parts []Part) Status {
	delivered, shipped := true, true
	for _, p := range parts {
		if p.Status != Delivered && p.Status != PickedUp {
			delivered = false
		}
		if !p.Status.handedOver() {
			shipped = false
		}
	}
	switch {
	case delivered:
		return Delivered
	case shipped:
		return Shipped
	}
	return Confirmed
}

// CancellableByOwner reports whether the order's owner may cancel it:
// its status allows it (pending or confirmed) and no part has left its
// store (a part ready for pickup has not: its copies are on the store's
// shelf, and go back to its stock). Once a store has handed its part
// over, only an operator's refund undoes the order.
func (o *Order) CancellableByOwner() bool { return o.CancelRefusal() == nil }

// ErrHandedOver is the owner's cancellation of a confirmed order a
// store has already shipped or handed over its part of.
var ErrHandedOver = apperr.Validation("Order cannot be cancelled", map[string]string{
	"status": "a store has already shipped or handed over its part of this order"})

// CancelRefusal is why the owner may not cancel the order
// (ErrNotCancellable, ErrHandedOver), nil when they may.
func (o *Order) CancelRefusal() error {
	if !o.Status.Cancellable() {
		return ErrNotCancellable
	}
	for _, p := range o.Parts {
		if p.Status.handedOver() {
			return ErrHandedOver
		}
	}
	return nil
}

// Refundable reports whether an operator may refund the order: it was
// paid (captured) and a store has handed its part over (shipped, picked
// up or delivered). An order nothing of which left a store is cancelled
// instead, which gives its stock back.
func (o *Order) Refundable() bool {
	if o.Status != Confirmed && o.Status != Shipped && o.Status != Delivered {
		return false
	}
	for _, p := range o.Parts {
		if p.Status.handedOver() {
			return true
		}
	}
	return false
}

// MaxOrderStores is the most stores one order buys from. The
// transactions that move every part of an order write 4 items per store
// (the part, the store's order counts, the pool month's sales and, when
// an item comes back in stock or sells out, the store's inStockCount)
// beside 3 per line: 15 lines from 10 stores are 45 + 40 + 7 = 92 items
// in the order's transaction (90 in a cancellation's), within
// DynamoDB's 100.
const MaxOrderStores = 10

// CheckStoreCount refuses an order of items from more than
// MaxOrderStores stores (400 on items).
func CheckStoreCount(storeIDs []string) error {
	distinct := map[string]bool{}
	for _, id := range storeIDs {
		distinct[id] = true
	}
	if len(distinct) > MaxOrderStores {
		return apperr.Validation("Invalid request", map[string]string{
			"items": "the items come from " + strconv.Itoa(len(distinct)) + " stores: at most " + strconv.Itoa(MaxOrderStores) + " stores per order"})
	}
	return nil
}

// Step is a store's move of its part.
type Step string

// The steps, each from one part status to the next, for one fulfilment.
const (
	StepShip           Step = "ship"
	StepReadyForPickup Step = "ready-for-pickup"
	StepPickedUp       Step = "picked-up"
	StepDelivered      Step = "delivered"
)

// steps are the rules of each Step: the fulfilment it applies to, the
// part status it moves from and the one it moves to.
var steps = map[Step]struct {
	fulfilment Fulfilment
	from, to   Status
}{
	StepShip:           {Ship, Confirmed, Shipped},
	StepDelivered:      {Ship, Shipped, Delivered},
	StepReadyForPickup: {Pickup, Confirmed, ReadyForPickup},
	StepPickedUp:       {Pickup, ReadyForPickup, PickedUp},
}

// Tracking's bounds.
const (
	maxTrackingRunes = 100
	maxTrackingURL   = 2000
)

// validate checks a shipment's tracking: carrier and trackingNumber
// required, trackingUrl an absolute http(s) URL when given.
func (t *Tracking) validate() error {
	var f apperr.Fields
	t.Carrier, t.TrackingNumber, t.TrackingURL = strings.TrimSpace(t.Carrier), strings.TrimSpace(t.TrackingNumber), strings.TrimSpace(t.TrackingURL)
	for _, c := range []struct{ field, v string }{{"carrier", t.Carrier}, {"trackingNumber", t.TrackingNumber}} {
		switch n := utf8.RuneCountInString(c.v); {
		case n == 0:
			f.Add(c.field, "is required")
		case n > maxTrackingRunes:
			f.Add(c.field, "at most "+strconv.Itoa(maxTrackingRunes)+" characters")
		}
	}
	if t.TrackingURL != "" {
		u, err := url.Parse(t.TrackingURL)
		if err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" || len(t.TrackingURL) > maxTrackingURL {
			f.Add("trackingUrl", "must be an absolute http(s) URL of at most "+strconv.Itoa(maxTrackingURL)+" characters")
		}
	}
	return f.Err()
}

// Errors of the stores' side.
var (
	// ErrNotRefundable is a refund of an order no store handed over, or
	// one cancelled or refunded already.
	ErrNotRefundable = apperr.Validation("Order cannot be refunded", map[string]string{
		"status": "only a paid order a store has shipped, handed over or delivered can be refunded (cancel one that is not)"})
	// ErrPartNotFound is an order with no part from the store (or none).
	ErrPartNotFound = apperr.NotFound("Order not found")
)

// wrongStatus is the 400 of a step from a part's other status.
func wrongStatus(step Step, cur Status) error {
	return apperr.Validation("Order part is "+string(cur)+": cannot "+string(step), map[string]string{
		"status": "the part is " + string(cur) + "; " + string(step) + " needs it " + string(steps[step].from)})
}

// wrongFulfilment is the 400 of a step of the other fulfilment.
func wrongFulfilment(step Step, f Fulfilment) error {
	return apperr.Validation("Order part is fulfilled by "+string(f)+": cannot "+string(step), map[string]string{
		"fulfilment": "the part is " + string(f) + "; " + string(step) + " applies to " + string(steps[step].fulfilment) + " parts"})
}

// Advance is o with storeID's part moved by step at now (tracking for
// StepShip), and the order's status as its parts make it; o is left
// unchanged. Errors: ErrPartNotFound, 400 for a wrong fulfilment or
// status (naming the current one) or bad tracking.
func Advance(o *Order, storeID string, step Step, tracking *Tracking, now time.Time) (*Order, error) {
	rule, ok := steps[step]
	if !ok {
		return nil, fmt.Errorf("orders: unknown step %q", step)
	}
	p := o.Part(storeID)
	if p == nil {
		return nil, ErrPartNotFound
	}
	if p.Fulfilment != rule.fulfilment {
		return nil, wrongFulfilment(step, p.Fulfilment)
	}
	if step == StepShip {
		if tracking == nil {
			tracking = &Tracking{}
		}
		t := *tracking
		if err := t.validate(); err != nil {
			return nil, err
		}
		tracking = &t
	}
	if p.Status != rule.from || (o.Status != Confirmed && o.Status != Shipped) {
		return nil, wrongStatus(step, p.Status)
	}
	next := *o
	next.Parts = slices.Clone(o.Parts)
	np := next.Part(storeID)
	np.Status = rule.to
	if tracking != nil {
		np.Tracking = tracking
	}
	next.Status = StatusOfParts(next.Parts)
	next.UpdatedAt, next.Version = now.UTC(), o.Version+1
	return &next, nil
}

// StorePart is one store's part of an order as the store sees it: its
// lines, fulfilment, status, totals and tracking, with the order's
// number; the detail view adds the order's status and, for a part that
// ships, the address (the buyer's name and phone with it).
type StorePart struct {
	OrderID, OrderNumber string
	Part
	Items     []Item
	CreatedAt time.Time
	UpdatedAt time.Time
	// OrderStatus and Address are the detail view's (Address nil for a
	// pickup part).
	OrderStatus Status
	Address     *Address
}

// StorePartOf is storeID's part of o in the detail view; nil when o has
// none.
func StorePartOf(o *Order, storeID string) *StorePart {
	p := o.Part(storeID)
	if p == nil {
		return nil
	}
	sp := &StorePart{OrderID: o.ID, OrderNumber: o.Number, Part: *p, CreatedAt: o.CreatedAt, UpdatedAt: o.UpdatedAt, OrderStatus: o.Status}
	for _, it := range o.Items {
		if it.StoreID == storeID {
			sp.Items = append(sp.Items, it)
		}
	}
	if p.Fulfilment == Ship {
		sp.Address = o.Address
	}
	return sp
}

// FulfilStorer is the storage of the stores' side (shared/dynamo's
// Orders).
type FulfilStorer interface {
	// Get reads an order. Errors: ErrNotFound.
	Get(ctx context.Context, id string) (*Order, error)
	// StoreParts reads a page of storeID's parts, newest first (status
	// "" for all), and their exact total.
	StoreParts(ctx context.Context, storeID string, status Status, o page.Offset) ([]StorePart, int, error)
	// Advance writes next over prev (one part moved): the order
	// conditional on prev's version, storeID's part, the counts and
	// order.updated. Errors: ErrMoved.
	Advance(ctx context.Context, prev, next *Order, storeID string) error
	// Refund writes next (refunded) over prev: the order conditional on
	// prev's version, its parts, the counts, the reversal of its
	// commission or pool shares and order.updated; the stock of the
	// lines of parts not handed over comes back.
	// Errors: ErrMoved.
	Refund(ctx context.Context, prev, next *Order) error
	// SetPayment records where an order's payment stands after a
	// provider call that follows a commit.
	SetPayment(ctx context.Context, id string, ps PaymentStatus, at time.Time) error
}

// FulfilDeps are the stores' side's storage, provider and clock.
type FulfilDeps struct {
	Store FulfilStorer
	// Payments refunds (RefundOrder); nil: a refund is ErrPaymentsOff.
	Payments payments.Provider
	Logger   *slog.Logger
	Now      func() time.Time
}

// FulfilService is the stores' side of orders and the operator's
// refund.
type FulfilService struct{ d FulfilDeps }

// NewFulfilService builds the stores' side.
func NewFulfilService(d FulfilDeps) *FulfilService {
	if d.Now == nil {
		d.Now = time.Now
	}
	if d.Logger == nil {
		d.Logger = slog.Default()
	}
	return &FulfilService{d: d}
}

// statusMessage is the 400 of a status filter no part holds.
var statusMessage = "must be one of " + joinStatuses(PartStatuses)

func joinStatuses(ss []Status) string {
	out := make([]string, len(ss))
	for i, s := range ss {
		out[i] = string(s)
	}
	return strings.Join(out, ", ")
}

// List reads a page of storeID's parts, newest first, optionally in one
// part status, with their exact total.
func (s *FulfilService) List(ctx context.Context, storeID string, status Status, p page.Offset) ([]StorePart, int, error) {
	if status != "" && !slices.Contains(PartStatuses, status) {
		return nil, 0, apperr.Validation("Invalid status", map[string]string{"status": statusMessage})
	}
	return s.d.Store.StoreParts(ctx, storeID, status, p)
}

// Get reads storeID's part of order id. Errors: ErrPartNotFound (no
// order, or none with a part from the store).
func (s *FulfilService) Get(ctx context.Context, storeID, id string) (*StorePart, error) {
	o, err := s.d.Store.Get(ctx, id)
	if errors.Is(err, ErrNotFound) {
		return nil, ErrPartNotFound
	}
	if err != nil {
		return nil, err
	}
	sp := StorePartOf(o, storeID)
	if sp == nil {
		return nil, ErrPartNotFound
	}
	return sp, nil
}

// Advance moves storeID's part of order id by step (Advance's rules),
// in one transaction with the order's status its parts make, read again
// when another change moved the order first (bounded).
func (s *FulfilService) Advance(ctx context.Context, storeID, id string, step Step, tracking *Tracking) (*StorePart, error) {
	for attempt := 1; ; attempt++ {
		o, err := s.d.Store.Get(ctx, id)
		if errors.Is(err, ErrNotFound) {
			return nil, ErrPartNotFound
		}
		if err != nil {
			return nil, err
		}
		next, err := Advance(o, storeID, step, tracking, s.d.Now())
		if err != nil {
			return nil, err
		}
		err = s.d.Store.Advance(ctx, o, next, storeID)
		if errors.Is(err, ErrMoved) && attempt < moveAttempts {
			continue
		}
		if err != nil {
			return nil, err
		}
		return StorePartOf(next, storeID), nil
	}
}

// RefundOrder refunds order id, which a store has handed over (an
// operator's act: local/orders refund): the captured payment is
// refunded in full at the provider first (idempotency key
// "refund-<orderId>", and only what the session has not refunded yet),
// then one transaction moves the order and every part to refunded
// (refundedAt, the reason kept as the order's cancellationReason) with
// the reversal of its commission or pool shares and order.updated. The
// stock of a part no store handed over yet comes back; a handed-over
// part's does not: its books are with the buyer. Running it again refunds
// nothing twice: an order refunded already is answered as it is, and a
// run whose transaction failed after the provider's refund finds the
// session refunded.
func (s *FulfilService) RefundOrder(ctx context.Context, id, reason string) (*Order, error) {
	return s.refund(ctx, id, reason, func(o *Order) (*Order, error) {
		switch {
		case o.Status == Refunded:
			return o, nil
		case o.Status == Cancelled:
			o, err := s.settleCancelled(ctx, o)
			return o, err
		case !o.Refundable() || o.PaymentStatus != PayCaptured:
			return nil, ErrNotRefundable
		}
		return nil, nil
	})
}

// Errors of the back office's refund (RefundHandedOver): each a 409, the
// order's state refusing it.
var (
	// ErrRefundedAlready is an order refunded before: the payment went
	// back once, and a second request changes nothing.
	ErrRefundedAlready = apperr.Conflict("Order is refunded already")
	// ErrNotHandedOver is an order no store has handed over (or one
	// cancelled, or not paid): its owner cancels it, which gives its
	// stock back and releases its payment.
	ErrNotHandedOver = apperr.Conflict("Order cannot be refunded: no store has shipped or handed over its part (cancel it instead), or it is cancelled or not paid")
	// errPartialRefund: see RefundHandedOver.
	errPartialRefund = apperr.Validation("Invalid request", map[string]string{
		"amountCents": "partial refunds are not supported: give the order's totalCents, or leave it out"})
)

// RefundHandedOver is the back office's refund of an order after a
// store handed it over (POST /v1/admin/orders/{orderId}/refund): the
// same refund as RefundOrder, but with the order's state answered
// rather than settled: an order refunded already is ErrRefundedAlready,
// and one cancelled, never handed over or not captured is
// ErrNotHandedOver (a cancelled order's payment release is retried by
// local/orders refund), so every success is one transaction, which
// carries the operator's audit entry. amountCents, when given, must be
// the order's total: the refund is whole (docs/decisions.md).
func (s *FulfilService) RefundHandedOver(ctx context.Context, id, reason string, amountCents *int64) (*Order, error) {
	return s.refund(ctx, id, reason, func(o *Order) (*Order, error) {
		switch {
		case o.Status == Refunded:
			return nil, ErrRefundedAlready
		case !o.Refundable() || o.PaymentStatus != PayCaptured:
			return nil, ErrNotHandedOver
		case amountCents != nil && *amountCents != o.TotalCents:
			return nil, errPartialRefund
		}
		return nil, nil
	})
}

// refund is the refund of order id (RefundOrder's): gate sees the order
// as read and answers it (an order, or an error) to stop there, or
// (nil, nil) to refund it.
func (s *FulfilService) refund(ctx context.Context, id, reason string, gate func(*Order) (*Order, error)) (*Order, error) {
	if s.d.Payments == nil {
		return nil, ErrPaymentsOff
	}
	reason = strings.TrimSpace(reason)
	if reason == "" || utf8.RuneCountInString(reason) > MaxReasonRunes {
		return nil, apperr.Validation("Invalid request", map[string]string{"reason": "is required, at most " + strconv.Itoa(MaxReasonRunes) + " characters"})
	}
	for attempt := 1; ; attempt++ {
		o, err := s.d.Store.Get(ctx, id)
		if err != nil {
			return nil, err
		}
		if done, err := gate(o); done != nil || err != nil {
			return done, err
		}
		sess, err := s.d.Payments.Get(ctx, o.CheckoutSessionID)
		if err != nil {
			return nil, fmt.Errorf("read the payment of order %s: %w", id, err)
		}
		if sess.RefundedCents < o.TotalCents {
			if _, err := s.d.Payments.Refund(ctx, o.CheckoutSessionID, o.TotalCents-sess.RefundedCents, "refund-"+o.ID); err != nil {
				return nil, fmt.Errorf("refund the payment of order %s: %w", id, err)
			}
		}
		next := *o
		now := s.d.Now().UTC()
		next.Status, next.PaymentStatus, next.RefundedAt, next.CancellationReason = Refunded, PayRefunded, &now, reason
		next.UpdatedAt, next.Version = now, o.Version+1
		next.Parts = slices.Clone(o.Parts)
		for k := range next.Parts {
			next.Parts[k].Status = Refunded
		}
		err = s.d.Store.Refund(ctx, o, &next)
		if errors.Is(err, ErrMoved) && attempt < moveAttempts {
			continue
		}
		if err != nil {
			s.d.Logger.Error("refunded at the provider, order not moved: run the refund again", "order", id, "err", err)
			return nil, err
		}
		return &next, nil
	}
}

// settleCancelled is the operator's retry of a cancelled order's
// payment release that failed after the cancellation's commit (its
// paymentStatus left authorized, action_required or captured): what the
// session still holds is voided, what it captured is refunded (once:
// only what it has not refunded yet), and the order's paymentStatus
// recorded. An order released already is answered as it is.
func (s *FulfilService) settleCancelled(ctx context.Context, o *Order) (*Order, error) {
	switch o.PaymentStatus {
	case PayAuthorized, PayActionRequired, PayCaptured:
	default:
		return o, nil
	}
	sess, err := s.d.Payments.Get(ctx, o.CheckoutSessionID)
	if err != nil {
		return nil, fmt.Errorf("read the payment of order %s: %w", o.ID, err)
	}
	ps := PayVoided
	switch sess.Status {
	case payments.Captured:
		ps = PayRefunded
		if sess.RefundedCents < sess.AmountCents {
			if _, err := s.d.Payments.Refund(ctx, o.CheckoutSessionID, sess.AmountCents-sess.RefundedCents, "refund-"+o.ID); err != nil {
				return nil, fmt.Errorf("refund the payment of cancelled order %s: %w", o.ID, err)
			}
		}
	case payments.Canceled:
	default:
		if _, err := s.d.Payments.Void(ctx, o.CheckoutSessionID); err != nil {
			return nil, fmt.Errorf("void the payment of cancelled order %s: %w", o.ID, err)
		}
	}
	now := s.d.Now().UTC()
	if err := s.d.Store.SetPayment(ctx, o.ID, ps, now); err != nil {
		return nil, err
	}
	next := *o
	next.PaymentStatus, next.Version = ps, o.Version+1
	if ps == PayRefunded {
		next.RefundedAt = &now
	}
	return &next, nil
}
