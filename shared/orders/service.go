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
	"github.com/bookplatform/backend/shared/books"
	"github.com/bookplatform/backend/shared/ids"
	"github.com/bookplatform/backend/shared/inventory"
	"github.com/bookplatform/backend/shared/page"
	"github.com/bookplatform/backend/shared/payments"
	"github.com/bookplatform/backend/shared/stores"
	"golang.org/x/sync/errgroup"
)

// Ref is where an inventory item lives: POST /orders names items by id
// alone, and an item's id (inventory.ItemID) does not hold its store.
type Ref struct{ StoreID, BookID string }

// StockRead is what Storer.Stock read: the items by inventory id, and
// the storage's own record of them (Rows, opaque here), which Place
// writes from without reading the items a second time.
type StockRead struct {
	Items map[string]*inventory.Item
	Rows  any
}

// Storer is the orders' storage (shared/dynamo's Orders).
type Storer interface {
	// Refs reads the refs of inventory ids; unknown ids are absent.
	Refs(ctx context.Context, inventoryIDs []string) (map[string]Ref, error)
	// Stock reads the items refs name, strongly consistent, by
	// inventory id; items gone are absent.
	Stock(ctx context.Context, refs map[string]Ref) (StockRead, error)
	// Place writes o (pending) in one transaction with the stock it
	// takes, its parts, its number's claim, its session pointer, the
	// user's order counts, its commission or pool shares and its
	// order.created event, from the items as read (the zero StockRead:
	// it reads them itself); an item changed since is read again.
	// Errors: *UnavailableError (stock short by then), ErrNumberTaken.
	Place(ctx context.Context, o *Order, read StockRead) error
	// Get reads an order. Errors: ErrNotFound.
	Get(ctx context.Context, id string) (*Order, error)
	// SessionOrder reads the id of the order paid by a session.
	// Errors: ErrNotFound.
	SessionOrder(ctx context.Context, sessionID string) (string, error)
	// List reads a page of userID's orders, newest first (status ""
	// for all), and their exact total.
	List(ctx context.Context, userID string, status Status, o page.Offset) ([]Summary, int, error)
	// Confirm writes next (confirmed) over prev, its parts and counts
	// and its event, conditional on prev's version. Errors: ErrMoved.
	Confirm(ctx context.Context, prev, next *Order) error
	// Cancel writes next (cancelled) over prev with the stock given
	// back, the counts, the commission or pool reversal and the event,
	// conditional on prev's version; it returns the inventory ids of
	// lines whose item is gone (their stock is not given back).
	// Errors: ErrMoved.
	Cancel(ctx context.Context, prev, next *Order) ([]string, error)
	// SetPayment records where the payment stands after a provider call
	// that follows a commit.
	SetPayment(ctx context.Context, id string, ps PaymentStatus, at time.Time) error
}

// StoreReader reads the stores of an order's items.
type StoreReader interface {
	// GetStores reads live stores by id; missing ones are absent.
	GetStores(ctx context.Context, ids []string) (map[string]*stores.Store, error)
	// GetDomainClaim reads a custom domain's claim. Errors:
	// stores.ErrNotFound.
	GetDomainClaim(ctx context.Context, domain string) (stores.DomainClaim, error)
}

// BookReader reads the books of an order's items.
type BookReader interface {
	GetBooks(ctx context.Context, ids []string) ([]*books.Book, error)
}

// Settings are the orders' configuration.
type Settings struct {
	Pricing Pricing
	// CommissionBPS is the attributed store's commission, basis points
	// of the subtotal; PoolBPS the pool's share of an order with no
	// attribution.
	CommissionBPS, PoolBPS int64
}

// Deps are the service's storage, provider, settings and clock.
type Deps struct {
	Store  Storer
	Stores StoreReader
	Books  BookReader
	// Payments is nil on a deployment without a provider: every route
	// that pays answers ErrPaymentsOff.
	Payments payments.Provider
	Settings Settings
	Logger   *slog.Logger
	Now      func() time.Time
}

// Service is the orders domain behind the orders routes and the
// payment webhook.
type Service struct{ d Deps }

// NewService builds the service.
func NewService(d Deps) *Service {
	if d.Now == nil {
		d.Now = time.Now
	}
	if d.Logger == nil {
		d.Logger = slog.Default()
	}
	return &Service{d: d}
}

// LineRequest is one line of an order request.
type LineRequest struct {
	InventoryID string
	Quantity    int
}

// Request is POST /orders.
type Request struct {
	Lines           []LineRequest
	Address         *Address
	PaymentMethodID string
	// Fulfilment is the whole order's ("" : ship); Fulfilments, per
	// store id, override it.
	Fulfilment  Fulfilment
	Fulfilments map[string]Fulfilment
	// Origin is the request's Origin header: an order through a store's
	// verified custom domain is attributed to that store.
	Origin string
}

// Buyer is who orders: the caller's id and home store.
type Buyer struct{ ID, HomeStoreID string }

// validate checks what a request says on its own (400 naming each bad
// field); the address is checked once the fulfilments are known.
func (r *Request) validate() error {
	var f apperr.Fields
	switch n := len(r.Lines); {
	case n == 0:
		f.Add("items", "must list at least one item")
	case n > MaxOrderItems:
		f.Add("items", "at most "+strconv.Itoa(MaxOrderItems)+" items per order")
	}
	seen := map[string]bool{}
	for i, l := range r.Lines {
		at := "items[" + strconv.Itoa(i) + "]"
		id, ok := ids.Parse(l.InventoryID)
		switch {
		case strings.TrimSpace(l.InventoryID) == "":
			f.Add(at+".inventoryId", "is required")
		case !ok:
			f.Add(at+".inventoryId", "is not an inventory item id")
		case seen[id]:
			f.Add(at+".inventoryId", "is listed twice: one line per item")
		}
		seen[id] = true
		r.Lines[i].InventoryID = id
		if l.Quantity < 1 || l.Quantity > MaxQuantity {
			f.Add(at+".quantity", "must be an integer from 1 to "+strconv.Itoa(MaxQuantity))
		}
	}
	if strings.TrimSpace(r.PaymentMethodID) == "" {
		f.Add("paymentMethodId", "is required")
	}
	if r.Fulfilment != "" && !r.Fulfilment.Valid() {
		f.Add("fulfilment", "must be ship or pickup")
	}
	for storeID, ff := range r.Fulfilments {
		if !ff.Valid() {
			f.Add("fulfilments."+storeID, "must be ship or pickup")
		}
	}
	return f.Err()
}

// checkAddress requires the address's fields when a part ships.
func checkAddress(a *Address, ships bool) error {
	if !ships && a == nil {
		return nil
	}
	if a == nil {
		return apperr.Validation("Invalid request", map[string]string{"shippingAddress": "is required when any part ships"})
	}
	var f apperr.Fields
	for _, c := range []struct{ field, v string }{
		{"name", a.Name}, {"addressLine1", a.AddressLine1}, {"city", a.City}, {"state", a.State},
		{"postalCode", a.PostalCode}, {"country", a.Country},
	} {
		switch v := strings.TrimSpace(c.v); {
		case v == "" && ships:
			f.Add("shippingAddress."+c.field, "is required")
		case utf8.RuneCountInString(v) > 200:
			f.Add("shippingAddress."+c.field, "at most 200 characters")
		}
	}
	for _, c := range []struct{ field, v string }{{"addressLine2", a.AddressLine2}, {"phone", a.Phone}} {
		if utf8.RuneCountInString(c.v) > 200 {
			f.Add("shippingAddress."+c.field, "at most 200 characters")
		}
	}
	return f.Err()
}

// placeAttempts bounds the order numbers drawn for one order.
const placeAttempts = 5

// Create places an order: it reads the items (404 naming unknown
// inventoryIds; 400 Items unavailable naming those short of stock),
// their stores and books, prices one shipment per store, authorises the
// total with the provider (402 declined: nothing is written) and writes
// the order with the stock it takes in one transaction. Any failure
// after the authorisation voids it.
func (s *Service) Create(ctx context.Context, buyer Buyer, req Request) (*Order, error) {
	if s.d.Payments == nil {
		return nil, ErrPaymentsOff
	}
	if err := req.validate(); err != nil {
		return nil, err
	}
	invIDs := make([]string, len(req.Lines))
	for i, l := range req.Lines {
		invIDs[i] = l.InventoryID
	}
	refs, err := s.d.Store.Refs(ctx, invIDs)
	if err != nil {
		return nil, err
	}
	var unknown []string
	for _, id := range invIDs {
		if _, ok := refs[id]; !ok {
			unknown = append(unknown, id)
		}
	}
	if len(unknown) > 0 {
		return nil, NotFoundItems(unknown)
	}
	var storeIDs, bookIDs []string
	for _, id := range invIDs {
		storeIDs, bookIDs = append(storeIDs, refs[id].StoreID), append(bookIDs, refs[id].BookID)
	}
	if err := CheckStoreCount(storeIDs); err != nil {
		return nil, err
	}
	for storeID := range req.Fulfilments {
		if !slices.Contains(storeIDs, storeID) {
			return nil, apperr.Validation("Invalid request", map[string]string{"fulfilments." + storeID: "names no store of the order's items"})
		}
	}
	// The items, their stores and their books, read side by side (each
	// needs the refs alone).
	var (
		read       StockRead
		storesByID map[string]*stores.Store
		bs         []*books.Book
		g          errgroup.Group
	)
	g.Go(func() (err error) { read, err = s.d.Store.Stock(ctx, refs); return err })
	g.Go(func() (err error) { storesByID, err = s.d.Stores.GetStores(ctx, storeIDs); return err })
	g.Go(func() (err error) { bs, err = s.d.Books.GetBooks(ctx, bookIDs); return err })
	if err := g.Wait(); err != nil {
		return nil, err
	}
	stock := read.Items
	var gone, short []string
	for _, l := range req.Lines {
		it := stock[l.InventoryID]
		switch {
		case it == nil:
			gone = append(gone, l.InventoryID)
		case it.Quantity < l.Quantity || storesByID[it.StoreID] == nil:
			short = append(short, l.InventoryID)
		}
	}
	if len(gone) > 0 {
		return nil, NotFoundItems(gone)
	}
	if len(short) > 0 {
		return nil, Unavailable(short)
	}
	booksByID := make(map[string]*books.Book, len(bs))
	for _, b := range bs {
		booksByID[b.ID] = b
	}

	now := s.d.Now().UTC()
	o := &Order{ID: ids.New(), UserID: buyer.ID, Status: Pending, Version: 1, CreatedAt: now, UpdatedAt: now}
	shipments := []Shipment{}
	ships := false
	for i, l := range req.Lines {
		it := stock[l.InventoryID]
		st := storesByID[it.StoreID]
		oi := Item{ID: o.ID + "-" + strconv.Itoa(i+1), InventoryID: it.ID, BookID: it.BookID, StoreID: it.StoreID,
			Quantity: l.Quantity, PriceCents: int64(it.PriceCents), Condition: string(it.Condition)}
		if b := booksByID[it.BookID]; b != nil {
			oi.Title, oi.Authors, oi.ISBN, oi.CoverURL = b.Title, b.Authors, b.ISBN13, b.CoverURL()
		}
		o.Items = append(o.Items, oi)
		if o.Part(st.ID) == nil {
			ff := req.Fulfilment
			if f, ok := req.Fulfilments[st.ID]; ok {
				ff = f
			}
			if ff == "" {
				ff = Ship
			}
			ships = ships || ff == Ship
			o.Parts = append(o.Parts, Part{StoreID: st.ID, StoreName: st.Name, StoreSlug: st.Slug, Fulfilment: ff, Status: Pending})
			shipments = append(shipments, Shipment{Fulfilment: ff, TaxRateMicros: int64(st.TaxRateMicros)})
		}
		for k := range o.Parts {
			if o.Parts[k].StoreID == st.ID {
				shipments[k].Lines = append(shipments[k].Lines, Line{Quantity: int64(l.Quantity), PriceCents: int64(it.PriceCents)})
			}
		}
	}
	if err := checkAddress(req.Address, ships); err != nil {
		return nil, err
	}
	if req.Address != nil {
		a := *req.Address
		o.Address = &a
	}
	var each []Totals
	o.Totals, each = s.d.Settings.Pricing.PriceAll(shipments)
	for k := range o.Parts {
		o.Parts[k].Totals = each[k]
	}
	o.AttributedStoreID = s.attribute(ctx, req.Origin, buyer.HomeStoreID)
	if o.AttributedStoreID != "" {
		o.CommissionCents = o.SubtotalCents * s.d.Settings.CommissionBPS / 10_000
	} else {
		o.PoolCents = o.SubtotalCents * s.d.Settings.PoolBPS / 10_000
	}

	sess, err := s.d.Payments.Authorize(ctx, payments.Authorization{
		OrderID: o.ID, AmountCents: o.TotalCents, Currency: "usd", PaymentMethodID: req.PaymentMethodID,
		IdempotencyKey: o.ID, Description: "Order " + o.ID,
	})
	if err != nil {
		return nil, err
	}
	o.CheckoutSessionID = sess.ID
	o.PaymentStatus = PayAuthorized
	if sess.Status == payments.ActionRequired {
		o.PaymentStatus = PayActionRequired
	}
	for attempt := 1; ; attempt++ {
		o.Number = NewNumber(now)
		err = s.d.Store.Place(ctx, o, read)
		if !errors.Is(err, ErrNumberTaken) || attempt == placeAttempts {
			break
		}
	}
	if err != nil {
		s.void(o.CheckoutSessionID)
		var ue *UnavailableError
		if errors.As(err, &ue) {
			return nil, Unavailable(ue.InventoryIDs)
		}
		return nil, err
	}
	return o, nil
}

// void releases a session whose order was not written (a refused
// transaction), with a context of its own: the request's may be gone.
func (s *Service) void(sessionID string) {
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	if _, err := s.d.Payments.Void(ctx, sessionID); err != nil {
		s.d.Logger.Error("void the payment of an order not written", "session", sessionID, "err", err)
	}
}

// attribute is the store an order's commission accrues to: the store
// whose verified (or active) custom domain is the request's Origin,
// else the buyer's home store, else none ("").
func (s *Service) attribute(ctx context.Context, origin, homeStoreID string) string {
	if u, err := url.Parse(origin); err == nil && u.Hostname() != "" {
		if domain, msg := stores.NormalizeDomain(u.Hostname()); msg == "" {
			c, err := s.d.Stores.GetDomainClaim(ctx, domain)
			if err == nil && c.StoreID != "" && (c.Status == stores.DomainVerified || c.Status == stores.DomainActive) {
				return c.StoreID
			}
		}
	}
	return homeStoreID
}

// Get reads userID's order id. Errors: ErrNotFound, ErrForbidden.
func (s *Service) Get(ctx context.Context, userID, id string) (*Order, error) {
	o, err := s.d.Store.Get(ctx, id)
	if err != nil {
		return nil, err
	}
	if o.UserID != userID {
		return nil, ErrForbidden
	}
	return o, nil
}

// List reads a page of userID's orders, newest first, with their exact
// total. status "" lists all.
func (s *Service) List(ctx context.Context, userID string, status Status, p page.Offset) ([]Summary, int, error) {
	if status != "" && !status.Filterable() {
		return nil, 0, apperr.Validation("Invalid status", map[string]string{"status": "must be one of pending, confirmed, shipped, delivered, cancelled"})
	}
	return s.d.Store.List(ctx, userID, status, p)
}

// moveAttempts bounds the re-reads of an order another change moved.
const moveAttempts = 5

// Confirm moves the order of a checkout session from pending to
// confirmed, capturing its payment: 400 for a malformed session id, an
// expired or unpaid session or a cancelled order; 404 for a session no
// order has. An order confirmed already is answered as it is, nothing
// written.
func (s *Service) Confirm(ctx context.Context, sessionID string) (*Order, error) {
	if s.d.Payments == nil {
		return nil, ErrPaymentsOff
	}
	if !payments.ValidSessionID(sessionID) {
		return nil, payments.ErrMalformedSession
	}
	id, err := s.d.Store.SessionOrder(ctx, sessionID)
	if errors.Is(err, ErrNotFound) {
		return nil, payments.ErrNoSession
	}
	if err != nil {
		return nil, err
	}
	for attempt := 1; ; attempt++ {
		o, err := s.d.Store.Get(ctx, id)
		if err != nil {
			return nil, err
		}
		switch o.Status {
		case Pending:
		case Cancelled, Refunded:
			return nil, ErrOrderCancelled
		default:
			return o, nil
		}
		sess, err := s.d.Payments.Get(ctx, sessionID)
		if err != nil {
			return nil, err
		}
		switch sess.Status {
		case payments.Canceled:
			// The payment can no longer be made: the order goes as the
			// provider's payment_intent.canceled webhook would take it
			// (cancelled, its stock back), so its copies are not held
			// until a webhook that may be lost arrives.
			if err := s.PaymentFailed(ctx, sessionID); err != nil {
				s.d.Logger.Error("cancel the order of an expired payment", "order", id, "err", err)
			}
			return nil, ErrExpired
		case payments.ActionRequired:
			return nil, ErrNotPaid
		case payments.Authorized:
			if _, err := s.d.Payments.Capture(ctx, sessionID); err != nil {
				if errors.Is(err, payments.ErrNotCapturable) {
					return nil, ErrExpired
				}
				return nil, err
			}
		}
		next := *o
		now := s.d.Now().UTC()
		next.Status, next.PaymentStatus, next.ConfirmedAt = Confirmed, PayCaptured, &now
		next.UpdatedAt, next.Version = now, o.Version+1
		next.Parts = slices.Clone(o.Parts)
		for k := range next.Parts {
			if next.Parts[k].Status == Pending {
				next.Parts[k].Status = Confirmed
			}
		}
		err = s.d.Store.Confirm(ctx, o, &next)
		if err == nil {
			return &next, nil
		}
		if !errors.Is(err, ErrMoved) || attempt == moveAttempts {
			return nil, err
		}
	}
}

// Cancel cancels userID's order id (pending or confirmed; 400 with the
// status unchanged otherwise) with the reason given: the stock goes
// back and the commission or pool share is reversed in one transaction;
// then the payment is voided (not captured yet) or refunded (captured).
// A provider failure after the commit is logged and leaves
// paymentStatus as it was (an operator retries it).
func (s *Service) Cancel(ctx context.Context, userID, id, reason string) (*Order, error) {
	if s.d.Payments == nil {
		return nil, ErrPaymentsOff
	}
	reason = strings.TrimSpace(reason)
	if utf8.RuneCountInString(reason) > MaxReasonRunes {
		return nil, apperr.Validation("Invalid request", map[string]string{"reason": "at most " + strconv.Itoa(MaxReasonRunes) + " characters"})
	}
	if reason == "" {
		reason = "Cancelled by the customer"
	}
	return s.cancel(ctx, id, reason, func(o *Order) error {
		if o.UserID != userID {
			return ErrForbidden
		}
		return nil
	})
}

// cancel is Cancel for whoever check allows.
func (s *Service) cancel(ctx context.Context, id, reason string, check func(*Order) error) (*Order, error) {
	for attempt := 1; ; attempt++ {
		o, err := s.d.Store.Get(ctx, id)
		if err != nil {
			return nil, err
		}
		if err := check(o); err != nil {
			return nil, err
		}
		if err := o.CancelRefusal(); err != nil {
			return nil, err
		}
		next := *o
		now := s.d.Now().UTC()
		next.Status, next.CancelledAt, next.CancellationReason = Cancelled, &now, reason
		next.UpdatedAt, next.Version = now, o.Version+1
		next.Parts = slices.Clone(o.Parts)
		for k := range next.Parts {
			next.Parts[k].Status = Cancelled
		}
		skipped, err := s.d.Store.Cancel(ctx, o, &next)
		if errors.Is(err, ErrMoved) && attempt < moveAttempts {
			continue
		}
		if err != nil {
			return nil, err
		}
		if len(skipped) > 0 {
			s.d.Logger.Warn("cancelled order's items gone: their stock was not given back", "order", id, "inventoryIds", skipped)
		}
		s.release(ctx, &next)
		return &next, nil
	}
}

// release voids or refunds a cancelled order's payment and records
// where it stands.
func (s *Service) release(ctx context.Context, o *Order) {
	var (
		ps  PaymentStatus
		err error
	)
	switch o.PaymentStatus {
	case PayCaptured:
		ps = PayRefunded
		_, err = s.d.Payments.Refund(ctx, o.CheckoutSessionID, o.TotalCents, "refund-"+o.ID)
	case PayAuthorized, PayActionRequired:
		ps = PayVoided
		_, err = s.d.Payments.Void(ctx, o.CheckoutSessionID)
		if errors.Is(err, payments.ErrNotCapturable) {
			// A confirmation captured the session between this
			// cancellation's read and its void (its own transaction then
			// finds the order cancelled): the money taken goes back.
			var sess payments.Session
			if sess, err = s.d.Payments.Get(ctx, o.CheckoutSessionID); err == nil && sess.Status == payments.Captured {
				ps = PayRefunded
				if sess.RefundedCents < sess.AmountCents {
					_, err = s.d.Payments.Refund(ctx, o.CheckoutSessionID, sess.AmountCents-sess.RefundedCents, "refund-"+o.ID)
				}
			} else if err == nil {
				err = fmt.Errorf("void session %s in state %s: %w", o.CheckoutSessionID, sess.Status, payments.ErrNotCapturable)
			}
		}
	default:
		return
	}
	if err != nil {
		s.d.Logger.Error("release the payment of a cancelled order", "order", o.ID, "session", o.CheckoutSessionID, "err", err)
		return
	}
	now := s.d.Now().UTC()
	if err := s.d.Store.SetPayment(ctx, o.ID, ps, now); err != nil {
		s.d.Logger.Error("record the released payment of a cancelled order", "order", o.ID, "err", err)
		return
	}
	o.PaymentStatus = ps
	if ps == PayRefunded {
		o.RefundedAt = &now
	}
}

// PaymentFailed cancels the pending order of a session the provider
// reports failed or canceled (the webhook), reason "payment failed";
// an order in another state, or no order, is left alone.
func (s *Service) PaymentFailed(ctx context.Context, sessionID string) error {
	id, err := s.d.Store.SessionOrder(ctx, sessionID)
	if errors.Is(err, ErrNotFound) {
		return nil
	}
	if err != nil {
		return err
	}
	_, err = s.cancel(ctx, id, "payment failed", func(o *Order) error {
		if o.Status != Pending {
			return errSkip
		}
		return nil
	})
	if errors.Is(err, errSkip) || errors.Is(err, ErrNotFound) {
		return nil
	}
	return err
}

// PaymentSucceeded confirms the order of a session the provider reports
// paid (the webhook): Confirm, with the states that make confirming
// pointless (no order, cancelled, not paid yet) answered as done.
func (s *Service) PaymentSucceeded(ctx context.Context, sessionID string) error {
	_, err := s.Confirm(ctx, sessionID)
	for _, done := range []error{payments.ErrNoSession, payments.ErrMalformedSession, ErrOrderCancelled, ErrExpired, ErrNotPaid} {
		if errors.Is(err, done) {
			return nil
		}
	}
	return err
}

var errSkip = fmt.Errorf("orders: left alone")
