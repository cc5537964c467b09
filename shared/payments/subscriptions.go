package payments

import (
	"context"
	"errors"
	"net/http"
	"time"

	"github.com/stripe/stripe-go/v84"

	"github.com/bookplatform/backend/shared/apperr"
	"github.com/bookplatform/backend/shared/config"
)

// Subscriptions is the provider's recurring side, beside Provider: the
// premium tier is a monthly subscription bought through the provider's
// hosted checkout (Stripe Checkout in subscription mode), so the card
// never reaches the service and the provider charges each period. Its
// implementation is Stripe's too (the same client, keys and stand-in).
type Subscriptions interface {
	// StartCheckout creates a checkout session in subscription mode for
	// one user; the same IdempotencyKey answers the same session (two
	// concurrent starts make one).
	StartCheckout(ctx context.Context, c SubscriptionCheckout) (Checkout, error)
	// GetCheckout reads a session with its subscription. Errors:
	// ErrMalformedCheckout, ErrNoCheckout.
	GetCheckout(ctx context.Context, id string) (Checkout, error)
	// GetSubscription reads a subscription. Errors: ErrNoSubscription.
	GetSubscription(ctx context.Context, id string) (Subscription, error)
	// CancelAtPeriodEnd stops the subscription renewing: it stays active
	// until its current period ends, then the provider deletes it (and
	// says so with customer.subscription.deleted). Errors:
	// ErrNoSubscription.
	CancelAtPeriodEnd(ctx context.Context, id string) (Subscription, error)
	// Cancel ends the subscription now (no proration, no refund): it
	// charges nothing more. A subscription ended already is answered as
	// it is. Errors: ErrNoSubscription.
	Cancel(ctx context.Context, id string) (Subscription, error)
}

// SubscriptionCheckout asks for a checkout session of one subscription.
type SubscriptionCheckout struct {
	UserID, Email string
	// Product names the plan on the provider's page; AmountCents is the
	// price of one period (monthly), in Currency.
	Product     string
	AmountCents int64
	Currency    string
	// SuccessURL and CancelURL are where the provider's page sends the
	// buyer back; SuccessURL may hold {CHECKOUT_SESSION_ID}.
	SuccessURL, CancelURL string
	IdempotencyKey        string
}

// CheckoutStatus is where a checkout session stands (Stripe's).
type CheckoutStatus string

// The statuses of a checkout session.
const (
	CheckoutOpen     CheckoutStatus = "open"
	CheckoutComplete CheckoutStatus = "complete"
	CheckoutExpired  CheckoutStatus = "expired"
)

// Checkout is a checkout session as the provider holds it.
type Checkout struct {
	ID, URL string
	Status  CheckoutStatus
	// Paid: the first period is paid (Stripe's payment_status paid).
	Paid bool
	// UserID is the user the session was created for (its
	// client_reference_id).
	UserID    string
	ExpiresAt time.Time
	// Subscription is the subscription the completed session made (nil
	// before).
	Subscription *Subscription
}

// Subscription is a subscription as the provider holds it.
type Subscription struct {
	ID     string
	UserID string // its metadata userId
	// Status is Stripe's: active, trialing, past_due, canceled, unpaid,
	// incomplete, incomplete_expired, paused.
	Status            string
	CancelAtPeriodEnd bool
	CurrentPeriodEnd  time.Time
}

// Ended reports whether the subscription is over (nothing more is owed
// to the subscriber).
func (s Subscription) Ended() bool {
	return s.Status == string(stripe.SubscriptionStatusCanceled) || s.Status == string(stripe.SubscriptionStatusIncompleteExpired)
}

// Premium reports whether the subscription makes its user premium:
// active or trialing, or past_due (a renewal's payment failed and the
// provider is retrying it: premium through the retry window). Unpaid
// (the retries failed), paused and incomplete are not, nor an ended one
// (docs/decisions.md, "What a subscription's status means for the
// tier").
func (s Subscription) Premium() bool {
	switch stripe.SubscriptionStatus(s.Status) {
	case stripe.SubscriptionStatusActive, stripe.SubscriptionStatusTrialing, stripe.SubscriptionStatusPastDue:
		return true
	}
	return false
}

// PastDue reports whether a renewal's payment failed and the provider
// is retrying it.
func (s Subscription) PastDue() bool { return s.Status == string(stripe.SubscriptionStatusPastDue) }

// Errors of the subscriptions.
var (
	ErrMalformedCheckout = apperr.Validation("Invalid checkout session",
		map[string]string{"checkoutSessionId": "is not a checkout session id"})
	ErrNoCheckout     = apperr.NotFound("Checkout session not found")
	ErrNoSubscription = apperr.NotFound("Subscription not found")
)

// ValidCheckoutID reports whether id has the form of a Checkout Session
// id (cs_test_..., cs_live_...: "cs_" and 8 to 96 letters, digits and
// '_').
func ValidCheckoutID(id string) bool { return providerID(id, "cs_", 8, 96, true) }

// SubscriptionsFromEnv is the subscriptions the settings in env
// configure (Stripe's, as FromEnv), else nil and ErrNotConfigured.
func SubscriptionsFromEnv(env *config.Env, rt Runtime) (Subscriptions, error) {
	s := readSettings(env, rt.Webhooks)
	if !s.Configured() {
		return nil, ErrNotConfigured
	}
	return NewStripe(s, rt), nil
}

// StartCheckout creates a Checkout Session in subscription mode with an
// inline monthly price (no product to keep in step in the dashboard),
// the user id as client_reference_id and as the subscription's metadata
// userId, so its webhooks name the user.
func (p *Stripe) StartCheckout(ctx context.Context, in SubscriptionCheckout) (Checkout, error) {
	c, err := p.stripeClient(ctx)
	if err != nil {
		return Checkout{}, err
	}
	currency := in.Currency
	if currency == "" {
		currency = "usd"
	}
	params := &stripe.CheckoutSessionCreateParams{
		Mode:              stripe.String(string(stripe.CheckoutSessionModeSubscription)),
		ClientReferenceID: stripe.String(in.UserID),
		SuccessURL:        stripe.String(in.SuccessURL),
		CancelURL:         stripe.String(in.CancelURL),
		LineItems: []*stripe.CheckoutSessionCreateLineItemParams{{
			Quantity: stripe.Int64(1),
			PriceData: &stripe.CheckoutSessionCreateLineItemPriceDataParams{
				Currency:    stripe.String(currency),
				UnitAmount:  stripe.Int64(in.AmountCents),
				Recurring:   &stripe.CheckoutSessionCreateLineItemPriceDataRecurringParams{Interval: stripe.String("month")},
				ProductData: &stripe.CheckoutSessionCreateLineItemPriceDataProductDataParams{Name: stripe.String(in.Product)},
			},
		}},
		SubscriptionData: &stripe.CheckoutSessionCreateSubscriptionDataParams{Metadata: map[string]string{"userId": in.UserID}},
	}
	if in.Email != "" {
		params.CustomerEmail = stripe.String(in.Email)
	}
	params.AddMetadata("userId", in.UserID)
	if in.IdempotencyKey != "" {
		params.SetIdempotencyKey(in.IdempotencyKey)
	}
	cs, err := c.V1CheckoutSessions.Create(ctx, params)
	if err != nil {
		return Checkout{}, commonError(err)
	}
	return checkout(cs), nil
}

// GetCheckout reads a session with its subscription expanded.
func (p *Stripe) GetCheckout(ctx context.Context, id string) (Checkout, error) {
	if !ValidCheckoutID(id) {
		return Checkout{}, ErrMalformedCheckout
	}
	c, err := p.stripeClient(ctx)
	if err != nil {
		return Checkout{}, err
	}
	params := &stripe.CheckoutSessionRetrieveParams{}
	params.AddExpand("subscription")
	cs, err := c.V1CheckoutSessions.Retrieve(ctx, id, params)
	if err != nil {
		if missing(err) {
			return Checkout{}, ErrNoCheckout
		}
		return Checkout{}, commonError(err)
	}
	return checkout(cs), nil
}

// GetSubscription reads a subscription.
func (p *Stripe) GetSubscription(ctx context.Context, id string) (Subscription, error) {
	c, err := p.stripeClient(ctx)
	if err != nil {
		return Subscription{}, err
	}
	sub, err := c.V1Subscriptions.Retrieve(ctx, id, &stripe.SubscriptionRetrieveParams{})
	if err != nil {
		if missing(err) {
			return Subscription{}, ErrNoSubscription
		}
		return Subscription{}, commonError(err)
	}
	return subscription(sub), nil
}

// CancelAtPeriodEnd sets cancel_at_period_end (idempotent by itself: a
// repeat sets it again).
func (p *Stripe) CancelAtPeriodEnd(ctx context.Context, id string) (Subscription, error) {
	c, err := p.stripeClient(ctx)
	if err != nil {
		return Subscription{}, err
	}
	sub, err := c.V1Subscriptions.Update(ctx, id, &stripe.SubscriptionUpdateParams{CancelAtPeriodEnd: stripe.Bool(true)})
	if err != nil {
		if missing(err) {
			return Subscription{}, ErrNoSubscription
		}
		return Subscription{}, commonError(err)
	}
	return subscription(sub), nil
}

// Cancel cancels the subscription at once. Stripe refuses to cancel a
// canceled subscription, so a refusal is answered by the subscription
// as it stands when it has ended (a repeat, or the provider's own end
// first).
func (p *Stripe) Cancel(ctx context.Context, id string) (Subscription, error) {
	c, err := p.stripeClient(ctx)
	if err != nil {
		return Subscription{}, err
	}
	sub, err := c.V1Subscriptions.Cancel(ctx, id, &stripe.SubscriptionCancelParams{})
	if err == nil {
		return subscription(sub), nil
	}
	if missing(err) {
		return Subscription{}, ErrNoSubscription
	}
	if cur, gerr := p.GetSubscription(ctx, id); gerr == nil && cur.Ended() {
		return cur, nil
	}
	return Subscription{}, commonError(err)
}

// missing reports Stripe's 404 resource_missing.
func missing(err error) bool {
	var se *stripe.Error
	return errors.As(err, &se) && (se.Code == stripe.ErrorCodeResourceMissing || se.HTTPStatusCode == http.StatusNotFound)
}

func checkout(cs *stripe.CheckoutSession) Checkout {
	out := Checkout{ID: cs.ID, URL: cs.URL, Status: CheckoutStatus(cs.Status), UserID: cs.ClientReferenceID,
		Paid: cs.PaymentStatus == stripe.CheckoutSessionPaymentStatusPaid}
	if cs.ExpiresAt > 0 {
		out.ExpiresAt = time.Unix(cs.ExpiresAt, 0).UTC()
	}
	if cs.Subscription != nil && cs.Subscription.ID != "" {
		s := subscription(cs.Subscription)
		out.Subscription = &s
	}
	return out
}

// subscription is sub as a Subscription. Since API version 2025-03-31
// (stripe-go v82 on) the period is its items': the first item's end is
// the subscription's (one price, one item). An unexpanded subscription
// (an id alone) has no status.
func subscription(sub *stripe.Subscription) Subscription {
	out := Subscription{ID: sub.ID, UserID: sub.Metadata["userId"], Status: string(sub.Status), CancelAtPeriodEnd: sub.CancelAtPeriodEnd}
	if sub.Items != nil && len(sub.Items.Data) > 0 && sub.Items.Data[0].CurrentPeriodEnd > 0 {
		out.CurrentPeriodEnd = time.Unix(sub.Items.Data[0].CurrentPeriodEnd, 0).UTC()
	}
	return out
}
