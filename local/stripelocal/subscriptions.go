package stripelocal

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"maps"
	"net/http"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/stripe/stripe-go/v84"
)

// CheckoutSession is a Checkout Session as tests read it.
type CheckoutSession struct {
	ID, URL           string
	Status            string // open, complete, expired
	PaymentStatus     string // unpaid, paid
	ClientReferenceID string
	AmountCents       int64
	SubscriptionID    string
	SuccessURL        string
	Metadata          map[string]string
}

// Subscription is a subscription as tests read it.
type Subscription struct {
	ID                 string
	Status             string // Stripe's: active, past_due, unpaid, paused, canceled, ...
	CancelAtPeriodEnd  bool
	CurrentPeriodStart time.Time
	CurrentPeriodEnd   time.Time
	AmountCents        int64
	Metadata           map[string]string
	// Invoices is how many periods were paid (the first and renewals).
	Invoices int
}

type checkoutSession struct {
	CheckoutSession
	currency, cancelURL, product string
	created, expires             time.Time
}

type subscription struct {
	Subscription
	currency string
	created  time.Time
	canceled time.Time
	ended    time.Time
}

// ErrNoCheckout is an id of no checkout session; ErrNoSubscription of no
// subscription.
var (
	ErrNoCheckout     = errors.New("stripelocal: no such checkout session")
	ErrNoSubscription = errors.New("stripelocal: no such subscription")
)

// ErrDeclined is a payment on the hosted page with a declining test card:
// the session stays open, nothing is charged.
var ErrDeclined = errors.New("stripelocal: the card was declined")

func (s *Server) routeSubscriptions(m *http.ServeMux) {
	s.checkouts, s.subscriptions = map[string]*checkoutSession{}, map[string]*subscription{}
	m.HandleFunc("POST /v1/checkout/sessions", s.api(s.createCheckout))
	m.HandleFunc("GET /v1/checkout/sessions/{id}", s.api(s.retrieveCheckout))
	m.HandleFunc("GET /v1/subscriptions/{id}", s.api(s.retrieveSubscription))
	m.HandleFunc("POST /v1/subscriptions/{id}", s.api(s.updateSubscription))
	m.HandleFunc("DELETE /v1/subscriptions/{id}", s.api(s.cancelSubscription))
	m.HandleFunc("GET /_local/checkout/{id}", s.localCheckoutPage)
	m.HandleFunc("POST /_local/subscriptions/{id}/end", s.localEndPeriod)
	m.HandleFunc("POST /_local/subscriptions/{id}/status", s.localSetStatus)
}

// Checkout is the checkout session id, and whether there is one.
func (s *Server) Checkout(id string) (CheckoutSession, bool) {
	s.mu.Lock()
	defer s.mu.Unlock()
	cs, ok := s.checkouts[id]
	if !ok {
		return CheckoutSession{}, false
	}
	out := cs.CheckoutSession
	out.Metadata = maps.Clone(cs.Metadata)
	return out, true
}

// Checkouts is how many checkout sessions were really created.
func (s *Server) Checkouts() int {
	s.mu.Lock()
	defer s.mu.Unlock()
	return len(s.checkouts)
}

// Subscriptions are every subscription (its id order): "charged once" is
// one subscription with Invoices 1.
func (s *Server) Subscriptions() []Subscription {
	s.mu.Lock()
	defer s.mu.Unlock()
	out := make([]Subscription, 0, len(s.subscriptions))
	for _, sub := range s.subscriptions {
		c := sub.Subscription
		c.Metadata = maps.Clone(sub.Metadata)
		out = append(out, c)
	}
	slices.SortFunc(out, func(a, b Subscription) int { return strings.Compare(a.ID, b.ID) })
	return out
}

// Invoices is how many invoices were paid, over every subscription.
func (s *Server) Invoices() int {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.invoices
}

// PayCheckout does what the buyer paying on the hosted page does: with a
// succeeding test card the session completes (payment_status paid), its
// subscription starts with one month's period and its first invoice
// paid, and checkout.session.completed is sent (then invoice.paid); a
// declining card is ErrDeclined and changes nothing. A session complete
// already is answered as it is (no second charge, no webhook).
func (s *Server) PayCheckout(ctx context.Context, id, pm string) (Delivery, error) {
	s.mu.Lock()
	cs, ok := s.checkouts[id]
	switch {
	case !ok:
		s.mu.Unlock()
		return Delivery{}, ErrNoCheckout
	case cs.Status == "complete":
		s.mu.Unlock()
		return Delivery{}, nil
	case cs.Status != "open":
		s.mu.Unlock()
		return Delivery{}, fmt.Errorf("%w: %s is %s", ErrState, id, cs.Status)
	case !known(pm):
		s.mu.Unlock()
		return Delivery{}, fmt.Errorf("stripelocal: no such PaymentMethod %q", pm)
	}
	if _, declined := Declining[pm]; declined || slices.Contains(Authenticating, pm) {
		s.mu.Unlock()
		return Delivery{}, fmt.Errorf("%w (%s)", ErrDeclined, pm)
	}
	now := s.now()
	sub := &subscription{Subscription: Subscription{ID: "sub_" + randomID(24), Status: "active", CurrentPeriodStart: now,
		CurrentPeriodEnd: now.AddDate(0, 1, 0), AmountCents: cs.AmountCents, Metadata: maps.Clone(cs.Metadata), Invoices: 1},
		currency: cs.currency, created: now}
	if uid := cs.ClientReferenceID; uid != "" && sub.Metadata["userId"] == "" {
		sub.Metadata["userId"] = uid
	}
	s.subscriptions[sub.ID] = sub
	s.invoices++
	cs.Status, cs.PaymentStatus, cs.SubscriptionID = "complete", "paid", sub.ID
	completed, invoice := s.checkoutJSON(cs, nil), s.invoiceJSON(sub)
	s.mu.Unlock()
	d := s.sendObject(ctx, "checkout.session.completed", id, completed)
	s.sendObject(ctx, "invoice.paid", sub.ID, invoice)
	return d, nil
}

// EndPeriod is the end of a subscription's current period as Stripe
// reaches it: one cancelled at period end is deleted (status canceled,
// customer.subscription.deleted sent); another renews for a month (a new
// invoice paid; invoice.paid and customer.subscription.updated sent).
// It returns the subscription's event's delivery.
func (s *Server) EndPeriod(ctx context.Context, id string) (Delivery, error) {
	s.mu.Lock()
	sub, ok := s.subscriptions[id]
	switch {
	case !ok:
		s.mu.Unlock()
		return Delivery{}, ErrNoSubscription
	case sub.Status != "active":
		s.mu.Unlock()
		return Delivery{}, fmt.Errorf("%w: %s is %s", ErrState, id, sub.Status)
	}
	now := s.now()
	if sub.CancelAtPeriodEnd {
		sub.Status, sub.ended = "canceled", now
		if sub.canceled.IsZero() {
			sub.canceled = now
		}
		body := s.subscriptionJSON(sub)
		s.mu.Unlock()
		return s.sendObject(ctx, "customer.subscription.deleted", id, body), nil
	}
	sub.CurrentPeriodStart, sub.CurrentPeriodEnd = sub.CurrentPeriodEnd, sub.CurrentPeriodEnd.AddDate(0, 1, 0)
	sub.Invoices++
	s.invoices++
	invoice, body := s.invoiceJSON(sub), s.subscriptionJSON(sub)
	s.mu.Unlock()
	s.sendObject(ctx, "invoice.paid", id, invoice)
	return s.sendObject(ctx, "customer.subscription.updated", id, body), nil
}

// SubscriptionStatuses are the statuses SetStatus takes: Stripe's, of a
// subscription that exists (incomplete ones are checkout's, never here).
var SubscriptionStatuses = []string{"active", "trialing", "past_due", "unpaid", "paused", "canceled"}

// SetStatus moves a subscription to status as Stripe does on its own:
// past_due when a renewal's payment fails (Stripe retries it), unpaid
// when the retries failed, paused, active again when a retry or the
// customer pays, canceled (ended now) when the settings cancel after
// failed retries. It sends customer.subscription.updated
// (customer.subscription.deleted for canceled) and returns its delivery.
// A canceled subscription is ErrState.
func (s *Server) SetStatus(ctx context.Context, id, status string) (Delivery, error) {
	if !slices.Contains(SubscriptionStatuses, status) {
		return Delivery{}, fmt.Errorf("stripelocal: no such subscription status %q (one of %v)", status, SubscriptionStatuses)
	}
	s.mu.Lock()
	sub, ok := s.subscriptions[id]
	switch {
	case !ok:
		s.mu.Unlock()
		return Delivery{}, ErrNoSubscription
	case sub.Status == "canceled":
		s.mu.Unlock()
		return Delivery{}, fmt.Errorf("%w: %s is %s", ErrState, id, sub.Status)
	}
	event := "customer.subscription.updated"
	sub.Status = status
	if status == "canceled" {
		event, sub.ended = "customer.subscription.deleted", s.now()
		if sub.canceled.IsZero() {
			sub.canceled = sub.ended
		}
	}
	body := s.subscriptionJSON(sub)
	s.mu.Unlock()
	return s.sendObject(ctx, event, id, body), nil
}

// SendSubscription sends the event type about subscription id (its
// object as it stands): a replayed or a late delivery.
func (s *Server) SendSubscription(ctx context.Context, eventType, id string) (Delivery, error) {
	s.mu.Lock()
	sub, ok := s.subscriptions[id]
	if !ok {
		s.mu.Unlock()
		return Delivery{}, ErrNoSubscription
	}
	body := s.subscriptionJSON(sub)
	s.mu.Unlock()
	return s.sendObject(ctx, eventType, id, body), nil
}

// SendSubscriptionAs sends the event type about subscription id with
// its object as it stands but for its status: a late delivery of an
// event from before the subscription moved on (an unpaid event that
// arrives after a retry paid it).
func (s *Server) SendSubscriptionAs(ctx context.Context, eventType, id, status string) (Delivery, error) {
	s.mu.Lock()
	sub, ok := s.subscriptions[id]
	if !ok {
		s.mu.Unlock()
		return Delivery{}, ErrNoSubscription
	}
	body := s.subscriptionJSON(sub)
	body["status"] = status
	s.mu.Unlock()
	return s.sendObject(ctx, eventType, id, body), nil
}

// SendCheckout sends the event type about checkout session id.
func (s *Server) SendCheckout(ctx context.Context, eventType, id string) (Delivery, error) {
	s.mu.Lock()
	cs, ok := s.checkouts[id]
	if !ok {
		s.mu.Unlock()
		return Delivery{}, ErrNoCheckout
	}
	body := s.checkoutJSON(cs, nil)
	s.mu.Unlock()
	return s.sendObject(ctx, eventType, id, body), nil
}

// sendObject sends an event about object (its JSON as Stripe's) to the
// webhook URL, signed now, and records the delivery (IntentID is the
// object's id). mu not held.
func (s *Server) sendObject(ctx context.Context, eventType, id string, object map[string]any) Delivery {
	s.mu.Lock()
	body, _ := json.Marshal(map[string]any{
		"id": "evt_" + randomID(24), "object": "event", "api_version": stripe.APIVersion, "created": s.now().Unix(),
		"livemode": false, "pending_webhooks": 1, "type": eventType,
		"request": map[string]any{"id": nil, "idempotency_key": nil},
		"data":    map[string]any{"object": object},
	})
	target, secret := s.webhookURL, s.webhookSecret
	s.mu.Unlock()
	var ev struct{ ID string }
	_ = json.Unmarshal(body, &ev)
	d := Delivery{EventID: ev.ID, Type: eventType, IntentID: id}
	if target == "" {
		d.Err = "no webhook URL configured"
	} else {
		d.Status, d.Err = s.post(ctx, target, body, Sign(body, secret, time.Now()))
	}
	s.mu.Lock()
	s.deliveries = append(s.deliveries, d)
	s.mu.Unlock()
	return d
}

// The API.

func (s *Server) createCheckout(c call) answer {
	f := c.form
	switch {
	case f.Get("mode") != "subscription":
		return failed(http.StatusBadRequest, apiError{Type: "invalid_request_error", Param: "mode",
			Message: "The local Stripe stand-in makes checkout sessions in subscription mode only."})
	case f.Get("success_url") == "":
		return failed(http.StatusBadRequest, apiError{Type: "invalid_request_error", Code: "parameter_missing", Param: "success_url",
			Message: "Missing required param: success_url."})
	case f.Get("line_items[0][price_data][recurring][interval]") == "":
		return failed(http.StatusBadRequest, apiError{Type: "invalid_request_error", Param: "line_items",
			Message: "You must provide at least one recurring price in `subscription` mode when using prices."})
	}
	amount, err := strconv.ParseInt(f.Get("line_items[0][price_data][unit_amount]"), 10, 64)
	if err != nil || amount < MinimumAmount {
		return invalid("line_items[0][price_data][unit_amount]", "Invalid unit_amount: "+f.Get("line_items[0][price_data][unit_amount]"))
	}
	now := s.now()
	cs := &checkoutSession{CheckoutSession: CheckoutSession{ID: "cs_test_" + randomID(32), Status: "open", PaymentStatus: "unpaid",
		ClientReferenceID: f.Get("client_reference_id"), AmountCents: amount, SuccessURL: f.Get("success_url"),
		Metadata: formMap(f, "subscription_data[metadata]")},
		currency: strings.ToLower(f.Get("line_items[0][price_data][currency]")), cancelURL: f.Get("cancel_url"),
		product: f.Get("line_items[0][price_data][product_data][name]"), created: now, expires: now.Add(24 * time.Hour)}
	maps.Copy(cs.Metadata, formMap(f, "metadata"))
	cs.URL = "http://" + c.host + "/_local/checkout/" + cs.ID
	s.checkouts[cs.ID] = cs
	return ok(s.checkoutJSON(cs, nil))
}

func (s *Server) retrieveCheckout(c call) answer {
	cs, found := s.checkouts[c.id]
	if !found {
		return failed(http.StatusNotFound, apiError{Type: "invalid_request_error", Code: "resource_missing", Param: "session",
			Message: "No such checkout.session: '" + c.id + "'"})
	}
	return ok(s.checkoutJSON(cs, expands(c.form)))
}

func (s *Server) subscriptionByID(id string) (*subscription, *answer) {
	sub, found := s.subscriptions[id]
	if !found {
		a := failed(http.StatusNotFound, apiError{Type: "invalid_request_error", Code: "resource_missing", Param: "id",
			Message: "No such subscription: '" + id + "'"})
		return nil, &a
	}
	return sub, nil
}

func (s *Server) retrieveSubscription(c call) answer {
	sub, nf := s.subscriptionByID(c.id)
	if nf != nil {
		return *nf
	}
	return ok(s.subscriptionJSON(sub))
}

// updateSubscription takes cancel_at_period_end alone; a canceled
// subscription cannot be updated (Stripe's 400).
func (s *Server) updateSubscription(c call) answer {
	sub, nf := s.subscriptionByID(c.id)
	if nf != nil {
		return *nf
	}
	if sub.Status == "canceled" {
		return failed(http.StatusBadRequest, apiError{Type: "invalid_request_error",
			Message: "A canceled subscription can only update its cancellation_details and metadata."})
	}
	if v := c.form.Get("cancel_at_period_end"); v != "" {
		sub.CancelAtPeriodEnd = v == "true"
		if sub.CancelAtPeriodEnd {
			sub.canceled = s.now()
		} else {
			sub.canceled = time.Time{}
		}
	}
	return ok(s.subscriptionJSON(sub))
}

// cancelSubscription cancels at once (DELETE /v1/subscriptions/{id}):
// status canceled, ended now. Like Stripe, a canceled subscription
// cannot be canceled again (400). The API's changes send no event, as
// updateSubscription's: a test sends customer.subscription.deleted with
// SendSubscription.
func (s *Server) cancelSubscription(c call) answer {
	sub, nf := s.subscriptionByID(c.id)
	if nf != nil {
		return *nf
	}
	if sub.Status == "canceled" {
		return failed(http.StatusBadRequest, apiError{Type: "invalid_request_error",
			Message: "A canceled subscription can only update its cancellation_details and metadata."})
	}
	now := s.now()
	sub.Status, sub.ended = "canceled", now
	if sub.canceled.IsZero() {
		sub.canceled = now
	}
	return ok(s.subscriptionJSON(sub))
}

// checkoutJSON is cs as Stripe's checkout.session object; expand may name
// subscription. mu held.
func (s *Server) checkoutJSON(cs *checkoutSession, expand []string) map[string]any {
	out := map[string]any{
		"id": cs.ID, "object": "checkout.session", "mode": "subscription", "status": cs.Status, "payment_status": cs.PaymentStatus,
		"url": cs.URL, "client_reference_id": nilIfEmpty(cs.ClientReferenceID), "metadata": orEmpty(cs.Metadata),
		"amount_total": cs.AmountCents, "amount_subtotal": cs.AmountCents, "currency": cs.currency, "created": cs.created.Unix(),
		"expires_at": cs.expires.Unix(), "success_url": cs.SuccessURL, "cancel_url": nilIfEmpty(cs.cancelURL),
		"livemode": false, "subscription": nilIfEmpty(cs.SubscriptionID),
	}
	if cs.Status != "open" {
		out["url"] = nil // Stripe's: the page is gone once complete or expired
	}
	if sub := s.subscriptions[cs.SubscriptionID]; sub != nil && slices.Contains(expand, "subscription") {
		out["subscription"] = s.subscriptionJSON(sub)
	}
	return out
}

// subscriptionJSON is sub as Stripe's subscription object: since API
// version 2025-03-31 its period is on its item. mu held.
func (s *Server) subscriptionJSON(sub *subscription) map[string]any {
	item := map[string]any{"id": "si_" + sub.ID[4:], "object": "subscription_item", "quantity": 1,
		"current_period_start": sub.CurrentPeriodStart.Unix(), "current_period_end": sub.CurrentPeriodEnd.Unix(),
		"price": map[string]any{"object": "price", "currency": sub.currency, "unit_amount": sub.AmountCents,
			"recurring": map[string]any{"interval": "month", "interval_count": 1}}}
	out := map[string]any{
		"id": sub.ID, "object": "subscription", "status": sub.Status, "cancel_at_period_end": sub.CancelAtPeriodEnd,
		"metadata": orEmpty(sub.Metadata), "created": sub.created.Unix(), "start_date": sub.created.Unix(), "livemode": false,
		"currency": sub.currency, "canceled_at": nil, "ended_at": nil, "cancel_at": nil,
		"items": map[string]any{"object": "list", "data": []any{item}, "has_more": false, "url": "/v1/subscription_items?subscription=" + sub.ID},
	}
	if !sub.canceled.IsZero() {
		out["canceled_at"] = sub.canceled.Unix()
	}
	if sub.CancelAtPeriodEnd && sub.Status == "active" {
		out["cancel_at"] = sub.CurrentPeriodEnd.Unix()
	}
	if !sub.ended.IsZero() {
		out["ended_at"] = sub.ended.Unix()
	}
	return out
}

// invoiceJSON is the paid invoice of sub's current period. mu held.
func (s *Server) invoiceJSON(sub *subscription) map[string]any {
	return map[string]any{"id": "in_" + randomID(24), "object": "invoice", "status": "paid", "amount_paid": sub.AmountCents,
		"currency": sub.currency, "period_start": sub.CurrentPeriodStart.Unix(), "period_end": sub.CurrentPeriodEnd.Unix(),
		"billing_reason": map[bool]string{true: "subscription_create", false: "subscription_cycle"}[sub.Invoices == 1],
		"parent":         map[string]any{"type": "subscription_details", "subscription_details": map[string]any{"subscription": sub.ID}}}
}

// The local endpoints.

// localCheckoutPage is the hosted checkout page (the session's url): it
// pays at once with the test card ?pm= (pm_card_visa by default) and
// sends the browser back to the success URL with {CHECKOUT_SESSION_ID}
// filled in (303); a declined card answers 402 and leaves the session
// open. A GET that pays, as a link must: the stand-in's page has no form.
func (s *Server) localCheckoutPage(w http.ResponseWriter, r *http.Request) {
	id, pm := r.PathValue("id"), r.URL.Query().Get("pm")
	if pm == "" {
		pm = "pm_card_visa"
	}
	_, err := s.PayCheckout(r.Context(), id, pm)
	switch {
	case errors.Is(err, ErrNoCheckout):
		http.Error(w, err.Error(), http.StatusNotFound)
		return
	case errors.Is(err, ErrDeclined):
		http.Error(w, err.Error(), http.StatusPaymentRequired)
		return
	case err != nil:
		http.Error(w, err.Error(), http.StatusConflict)
		return
	}
	cs, _ := s.Checkout(id)
	if r.URL.Query().Get("redirect") == "false" || cs.SuccessURL == "" {
		writeJSON(w, http.StatusOK, map[string]any{"id": cs.ID, "status": cs.Status, "payment_status": cs.PaymentStatus, "subscription": cs.SubscriptionID})
		return
	}
	http.Redirect(w, r, strings.ReplaceAll(cs.SuccessURL, "{CHECKOUT_SESSION_ID}", id), http.StatusSeeOther)
}

// localSetStatus is SetStatus over HTTP: ?status= (or a form field).
func (s *Server) localSetStatus(w http.ResponseWriter, r *http.Request) {
	id := r.PathValue("id")
	d, err := s.SetStatus(r.Context(), id, r.FormValue("status"))
	switch {
	case errors.Is(err, ErrNoSubscription):
		http.Error(w, err.Error(), http.StatusNotFound)
		return
	case errors.Is(err, ErrState):
		http.Error(w, err.Error(), http.StatusConflict)
		return
	case err != nil:
		http.Error(w, err.Error(), http.StatusBadRequest)
		return
	}
	s.mu.Lock()
	out := map[string]any{"subscription": s.subscriptionJSON(s.subscriptions[id]), "delivery": d}
	s.mu.Unlock()
	writeJSON(w, http.StatusOK, out)
}

func (s *Server) localEndPeriod(w http.ResponseWriter, r *http.Request) {
	d, err := s.EndPeriod(r.Context(), r.PathValue("id"))
	switch {
	case errors.Is(err, ErrNoSubscription):
		http.Error(w, err.Error(), http.StatusNotFound)
		return
	case err != nil:
		http.Error(w, err.Error(), http.StatusConflict)
		return
	}
	s.mu.Lock()
	out := map[string]any{"subscription": s.subscriptionJSON(s.subscriptions[r.PathValue("id")]), "delivery": d}
	s.mu.Unlock()
	writeJSON(w, http.StatusOK, out)
}
