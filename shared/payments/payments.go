// Package payments is the service's one seam to the payment provider:
// the Provider interface, which orders hold (authorise an order's total,
// read, capture, void or refund it, and read the provider's signed
// webhooks). Its implementation is Stripe's (stripe-go), pointed by
// configuration at Stripe in AWS and at the local stand-in
// (local/stripelocal, which honours Stripe's test payment-method ids) on
// the local run and in the tests, so the code that runs locally is the
// code that runs in AWS.
//
// A payment is a session: created by Authorize for one order's total,
// held (authorised, not captured) until the order is confirmed, captured
// then, voided when the order is cancelled before that and refunded when
// it is cancelled or refunded after. Its id is what the order calls its
// checkoutSessionId and what POST /orders/confirm takes.
//
// Money is integer cents (int64) everywhere; the package imports no
// floating point type into any amount.
package payments

import (
	"context"
	"errors"
	"net/http"
	"strings"

	"github.com/bookplatform/backend/shared/apperr"
)

// Status is where a payment session stands.
type Status string

// The statuses of a session.
const (
	// Authorized: the funds are held and not yet taken (Stripe's
	// requires_capture): the order may be confirmed.
	Authorized Status = "authorized"
	// ActionRequired: the buyer must complete the payment on the web
	// (Stripe's requires_action, e.g. 3-D Secure); the provider's webhook
	// reports when they have.
	ActionRequired Status = "action_required"
	// Captured: the funds are taken (Stripe's succeeded).
	Captured Status = "captured"
	// Canceled: voided, or expired unpaid: the session can no longer pay
	// (an order confirmed with it answers 400, expired).
	Canceled Status = "canceled"
)

// Authorization asks to hold an order's total.
type Authorization struct {
	OrderID     string
	AmountCents int64
	Currency    string // ISO 4217, lower case: "usd"
	// PaymentMethodID is the client's payment method (Stripe's test ids
	// on the local run: pm_card_visa, pm_card_chargeDeclined, ...).
	PaymentMethodID string
	// IdempotencyKey makes a retried authorisation of the same order the
	// same payment at the provider (the order id serves).
	IdempotencyKey string
	Description    string
}

// Session is a payment as the provider holds it.
type Session struct {
	// ID is the session's id: what the order calls checkoutSessionId.
	ID            string
	Status        Status
	AmountCents   int64
	RefundedCents int64
	// OrderID is the order the session was created for (its metadata).
	OrderID string
}

// WebhookEvent is one of the provider's webhook events, verified.
type WebhookEvent struct {
	ID      string // the provider's event id: deliveries repeat it
	Type    string // the provider's event type, e.g. payment_intent.succeeded
	Session Session
	// Checkout is a checkout.session.* event's session (its subscription
	// an id alone), Subscription a customer.subscription.* event's.
	Checkout     *Checkout
	Subscription *Subscription
}

// Provider is the payment provider.
type Provider interface {
	// Authorize holds a.AmountCents on a.PaymentMethodID. A declined
	// method is ErrDeclined (nothing is held); the session may come back
	// ActionRequired when the buyer must complete it on the web.
	Authorize(ctx context.Context, a Authorization) (Session, error)
	// Get reads a session. Errors: ErrMalformedSession (an id no session
	// can have), ErrNoSession.
	Get(ctx context.Context, sessionID string) (Session, error)
	// Capture takes the held funds; a session captured already is
	// answered as it is. Errors: ErrNoSession, ErrNotCapturable.
	Capture(ctx context.Context, sessionID string) (Session, error)
	// Void releases held funds; a session canceled already is answered
	// as it is. A captured session is ErrNotCapturable (refund it).
	Void(ctx context.Context, sessionID string) (Session, error)
	// Refund gives amountCents of a captured session back; the same
	// idempotencyKey refunds once.
	Refund(ctx context.Context, sessionID string, amountCents int64, idempotencyKey string) (Session, error)
	// ParseWebhook verifies a webhook delivery's signature (the header
	// the provider signs with) and reads its event. Errors:
	// ErrBadSignature.
	ParseWebhook(payload []byte, header http.Header) (WebhookEvent, error)
}

// Errors of a provider.
var (
	// ErrDeclined is a payment method the provider refused (402).
	ErrDeclined = apperr.New(apperr.CodePaymentRequired, "The payment was declined")
	// ErrMalformedSession is an id no session can have (400).
	ErrMalformedSession = apperr.Validation("Invalid checkout session",
		map[string]string{"sessionId": "is not a checkout session id"})
	// ErrNoSession is a well-formed id of no session (404).
	ErrNoSession = apperr.NotFound("Checkout session not found")
	// ErrNotCapturable is a session in a state that cannot be captured or
	// voided (canceled, or waiting for the buyer).
	ErrNotCapturable = errors.New("payments: the session cannot be captured or voided in its state")
	// ErrBadSignature is a webhook whose signature does not verify.
	ErrBadSignature = apperr.Unauthorized("Invalid webhook signature")
	// ErrUnavailable is the provider not answering (503: retry).
	ErrUnavailable = apperr.New(apperr.CodeUnavailable, "The payment provider is unavailable; retry shortly")
)

// ValidSessionID reports whether id has the form of a session id, so a
// malformed one is refused (400) before any call: Stripe's PaymentIntent
// ids ("pi_" and 8 to 64 letters and digits); the stand-in makes ids of
// the same form.
func ValidSessionID(id string) bool { return providerID(id, "pi_", 8, 64, false) }

// providerID reports whether id is prefix followed by min to max ASCII
// letters and digits (and '_' with underscore). A loop rather than a
// regular expression: a bounded repetition ({8,64}) compiles into as
// many copies, paid at every cold start of each function linking this
// package.
func providerID(id, prefix string, min, max int, underscore bool) bool {
	rest, ok := strings.CutPrefix(id, prefix)
	if !ok || len(rest) < min || len(rest) > max {
		return false
	}
	for _, c := range []byte(rest) {
		switch {
		case c >= 'a' && c <= 'z', c >= 'A' && c <= 'Z', c >= '0' && c <= '9':
		case c == '_' && underscore:
		default:
			return false
		}
	}
	return true
}
