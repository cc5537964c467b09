package payments

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
	"net/http"
	"strings"
	"sync"
	"time"

	"github.com/stripe/stripe-go/v84"
	"github.com/stripe/stripe-go/v84/webhook"

	"github.com/bookplatform/backend/shared/apperr"
	"github.com/bookplatform/backend/shared/callstats"
)

// Stripe is the Provider on Stripe's API (stripe-go): a session is a
// PaymentIntent created and confirmed at once with manual capture on the
// buyer's payment method, card only (no redirect-based method, so no
// return_url), with the order id as metadata orderId and as the
// idempotency key.
//
// Each Stripe holds its own stripe-go client, built on its own backends
// (STRIPE_API_BASE, the service's outbound transport, one network retry)
// and never on stripe-go's package-level key or backends, so two
// providers in one process (the tests') do not share a key or an address.
type Stripe struct {
	backends      *stripe.Backends
	apiKey        func(context.Context) (string, error)
	webhookSecret func(context.Context) (string, error) // nil: not configured

	mu     sync.Mutex
	key    string // the key client was built with
	client *stripe.Client
}

// StripeTimeout bounds one call to Stripe (each attempt): well within the
// API's 29 s, with its one retry.
const StripeTimeout = 10 * time.Second

// stripeRetries is how many times stripe-go retries a call that never got
// an answer (a network error; it retries no answer of Stripe's but a lock
// timeout): the writes carry an idempotency key, so a retry never charges
// twice. One, so that an outage answers 503 within the request's time.
const stripeRetries = 1

// WebhookTolerance is how old a webhook's signature may be (Stripe's
// default, as stripe-go's): a replayed old delivery is refused.
const WebhookTolerance = 5 * time.Minute

// NewStripe returns the provider on s (which must be Configured).
func NewStripe(s Settings, rt Runtime) *Stripe {
	logger := rt.Logger
	if logger == nil {
		logger = slog.Default()
	}
	cfg := &stripe.BackendConfig{
		HTTPClient:        &http.Client{Transport: callstats.Transport(nil), Timeout: StripeTimeout},
		MaxNetworkRetries: stripe.Int64(stripeRetries),
		LeveledLogger:     stripeLogger{logger},
		EnableTelemetry:   stripe.Bool(false),
	}
	if s.APIBase != "" {
		cfg.URL = stripe.String(s.APIBase)
	}
	return &Stripe{
		backends:      stripe.NewBackendsWithConfig(cfg),
		apiKey:        secretSource(s.APIKey, s.APIKeySecretARN, EnvStripeAPIKeySecretARN, rt),
		webhookSecret: secretSource(s.WebhookSecret, s.WebhookSecretSecretARN, EnvStripeWebhookSecretARN, rt),
	}
}

// stripeClient is the client on the current API key: built again when a
// key read from Secrets Manager changed (a rolled key).
func (p *Stripe) stripeClient(ctx context.Context) (*stripe.Client, error) {
	key, err := p.apiKey(ctx)
	if err != nil {
		return nil, fmt.Errorf("payments: the Stripe API key: %w", err)
	}
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.client == nil || key != p.key {
		p.client, p.key = stripe.NewClient(key, stripe.WithBackends(p.backends)), key
	}
	return p.client, nil
}

// Authorize creates and confirms the order's PaymentIntent.
func (p *Stripe) Authorize(ctx context.Context, a Authorization) (Session, error) {
	c, err := p.stripeClient(ctx)
	if err != nil {
		return Session{}, err
	}
	currency := a.Currency
	if currency == "" {
		currency = "usd"
	}
	params := &stripe.PaymentIntentCreateParams{
		Amount:             stripe.Int64(a.AmountCents),
		Currency:           stripe.String(currency),
		Confirm:            stripe.Bool(true),
		CaptureMethod:      stripe.String(string(stripe.PaymentIntentCaptureMethodManual)),
		PaymentMethod:      stripe.String(a.PaymentMethodID),
		PaymentMethodTypes: []*string{stripe.String("card")},
	}
	if a.Description != "" {
		params.Description = stripe.String(a.Description)
	}
	if a.OrderID != "" {
		params.AddMetadata("orderId", a.OrderID)
	}
	if a.IdempotencyKey != "" {
		params.SetIdempotencyKey(a.IdempotencyKey)
	}
	pi, err := c.V1PaymentIntents.Create(ctx, params)
	if err != nil {
		return Session{}, authorizeError(err)
	}
	return session(pi), nil
}

// Get reads a session, with its charge's refunded amount.
func (p *Stripe) Get(ctx context.Context, sessionID string) (Session, error) {
	if !ValidSessionID(sessionID) {
		return Session{}, ErrMalformedSession
	}
	c, err := p.stripeClient(ctx)
	if err != nil {
		return Session{}, err
	}
	params := &stripe.PaymentIntentRetrieveParams{}
	params.AddExpand("latest_charge")
	pi, err := c.V1PaymentIntents.Retrieve(ctx, sessionID, params)
	if err != nil {
		return Session{}, sessionError(err)
	}
	return session(pi), nil
}

// Capture captures the whole amount held. A session captured already is
// answered as it is (a retried confirm); one canceled or waiting for the
// buyer is ErrNotCapturable.
func (p *Stripe) Capture(ctx context.Context, sessionID string) (Session, error) {
	if !ValidSessionID(sessionID) {
		return Session{}, ErrMalformedSession
	}
	c, err := p.stripeClient(ctx)
	if err != nil {
		return Session{}, err
	}
	pi, err := c.V1PaymentIntents.Capture(ctx, sessionID, &stripe.PaymentIntentCaptureParams{})
	if err != nil {
		return p.unexpectedState(ctx, sessionID, err, Captured)
	}
	return session(pi), nil
}

// Void cancels the PaymentIntent, releasing what it holds. A session
// canceled already is answered as it is; a captured one is
// ErrNotCapturable (refund it).
func (p *Stripe) Void(ctx context.Context, sessionID string) (Session, error) {
	if !ValidSessionID(sessionID) {
		return Session{}, ErrMalformedSession
	}
	c, err := p.stripeClient(ctx)
	if err != nil {
		return Session{}, err
	}
	pi, err := c.V1PaymentIntents.Cancel(ctx, sessionID, &stripe.PaymentIntentCancelParams{})
	if err != nil {
		return p.unexpectedState(ctx, sessionID, err, Canceled)
	}
	return session(pi), nil
}

// unexpectedState answers a capture or cancel Stripe refused because of
// the intent's status (payment_intent_unexpected_state, which carries the
// intent): the session as it is when it is already where the call would
// have taken it (done), ErrNotCapturable otherwise. Other errors are
// mapped as any session's.
func (p *Stripe) unexpectedState(ctx context.Context, sessionID string, err error, done Status) (Session, error) {
	var se *stripe.Error
	if !errors.As(err, &se) || se.Code != stripe.ErrorCodePaymentIntentUnexpectedState {
		return Session{}, sessionError(err)
	}
	var s Session
	if se.PaymentIntent != nil && se.PaymentIntent.ID == sessionID {
		s = session(se.PaymentIntent)
	} else if s, err = p.Get(ctx, sessionID); err != nil {
		return Session{}, err
	}
	if s.Status == done {
		return s, nil
	}
	return s, fmt.Errorf("%w: %s is %s", ErrNotCapturable, sessionID, s.Status)
}

// Refund refunds amountCents of a captured session (0: all that is not
// refunded yet) under idempotencyKey, so a retried refund refunds once.
// A session not captured is ErrNotCapturable (void it); one refunded in
// full already is answered as it is.
func (p *Stripe) Refund(ctx context.Context, sessionID string, amountCents int64, idempotencyKey string) (Session, error) {
	if !ValidSessionID(sessionID) {
		return Session{}, ErrMalformedSession
	}
	if amountCents < 0 {
		return Session{}, fmt.Errorf("payments: refund of %d cents", amountCents)
	}
	c, err := p.stripeClient(ctx)
	if err != nil {
		return Session{}, err
	}
	params := &stripe.RefundCreateParams{PaymentIntent: stripe.String(sessionID)}
	if amountCents > 0 {
		params.Amount = stripe.Int64(amountCents)
	}
	if idempotencyKey != "" {
		params.SetIdempotencyKey(idempotencyKey)
	}
	params.AddExpand("payment_intent.latest_charge")
	re, err := c.V1Refunds.Create(ctx, params)
	var se *stripe.Error
	switch {
	case err == nil && re.PaymentIntent != nil && re.PaymentIntent.Status != "":
		return session(re.PaymentIntent), nil
	case err == nil:
		return p.Get(ctx, sessionID)
	case errors.As(err, &se) && se.Code == stripe.ErrorCodeChargeAlreadyRefunded:
		return p.Get(ctx, sessionID)
	case errors.As(err, &se) && se.Code == stripe.ErrorCodePaymentIntentUnexpectedState:
		return Session{}, fmt.Errorf("%w: %s is not captured", ErrNotCapturable, sessionID)
	}
	return Session{}, sessionError(err)
}

// ParseWebhook verifies a delivery with stripe-go's webhook package
// (the Stripe-Signature header's v1 HMAC-SHA256 under the endpoint's
// signing secret, within WebhookTolerance, and an event of the release
// train stripe-go reads) and reads its event; a payment_intent.* event
// carries its session, a checkout.session.* one its checkout and a
// customer.subscription.* one its subscription. Without a signing secret configured it is
// ErrNotConfigured (503: Stripe delivers again later).
func (p *Stripe) ParseWebhook(payload []byte, header http.Header) (WebhookEvent, error) {
	if p.webhookSecret == nil {
		return WebhookEvent{}, ErrNotConfigured
	}
	// The interface gives no context: a secret read from Secrets
	// Manager (once in ManagedRefresh) is bounded on its own.
	ctx, cancel := context.WithTimeout(context.Background(), StripeTimeout)
	defer cancel()
	secret, err := p.webhookSecret(ctx)
	if err != nil {
		return WebhookEvent{}, fmt.Errorf("payments: the Stripe webhook secret: %w", err)
	}
	ev, err := webhook.ConstructEventWithOptions(payload, header.Get("Stripe-Signature"), secret,
		webhook.ConstructEventOptions{Tolerance: WebhookTolerance})
	switch {
	case errors.Is(err, webhook.ErrNotSigned), errors.Is(err, webhook.ErrInvalidHeader), errors.Is(err, webhook.ErrNoValidSignature),
		errors.Is(err, webhook.ErrTooOld):
		return WebhookEvent{}, ErrBadSignature
	case err != nil:
		// Signed by Stripe, yet unreadable (another API release train
		// than stripe-go's: the endpoint's version must be set to it).
		return WebhookEvent{}, fmt.Errorf("payments: webhook %s: %w", ev.ID, err)
	}
	out := WebhookEvent{ID: ev.ID, Type: string(ev.Type)}
	if strings.HasPrefix(out.Type, "payment_intent.") && ev.Data != nil {
		var pi stripe.PaymentIntent
		if err := json.Unmarshal(ev.Data.Raw, &pi); err != nil {
			return WebhookEvent{}, fmt.Errorf("payments: webhook %s: its payment intent: %w", ev.ID, err)
		}
		out.Session = session(&pi)
	}
	if strings.HasPrefix(out.Type, "checkout.session.") && ev.Data != nil {
		var cs stripe.CheckoutSession
		if err := json.Unmarshal(ev.Data.Raw, &cs); err != nil {
			return WebhookEvent{}, fmt.Errorf("payments: webhook %s: its checkout session: %w", ev.ID, err)
		}
		c := checkout(&cs)
		out.Checkout = &c
	}
	if strings.HasPrefix(out.Type, "customer.subscription.") && ev.Data != nil {
		var sub stripe.Subscription
		if err := json.Unmarshal(ev.Data.Raw, &sub); err != nil {
			return WebhookEvent{}, fmt.Errorf("payments: webhook %s: its subscription: %w", ev.ID, err)
		}
		c := subscription(&sub)
		out.Subscription = &c
	}
	return out, nil
}

// session is pi as a Session. Stripe's statuses map as the payment flow
// needs: requires_capture is Authorized, succeeded Captured, canceled
// Canceled; every status in which the intent waits for the buyer
// (requires_action, and requires_payment_method or
// requires_confirmation after a failed authentication, processing) is
// ActionRequired: the order stays pending and confirm answers "payment
// not completed".
func session(pi *stripe.PaymentIntent) Session {
	s := Session{ID: pi.ID, AmountCents: pi.Amount, OrderID: pi.Metadata["orderId"]}
	switch pi.Status {
	case stripe.PaymentIntentStatusRequiresCapture:
		s.Status = Authorized
	case stripe.PaymentIntentStatusSucceeded:
		s.Status = Captured
	case stripe.PaymentIntentStatusCanceled:
		s.Status = Canceled
	default:
		s.Status = ActionRequired
	}
	if pi.LatestCharge != nil {
		s.RefundedCents = pi.LatestCharge.AmountRefunded
	}
	return s
}

// authorizeError maps a failed creation: a card error is a decline
// (402); an unknown or missing payment method, the request's fault (400
// on paymentMethodId); an amount under Stripe's minimum, 400 as well.
func authorizeError(err error) error {
	var se *stripe.Error
	if errors.As(err, &se) {
		switch {
		case se.Type == stripe.ErrorTypeCard:
			return fmt.Errorf("%w (%s %s)", ErrDeclined, se.Code, se.DeclineCode)
		case se.Type == stripe.ErrorTypeInvalidRequest && se.Param == "payment_method":
			// resource_missing (an id Stripe does not know), or none given.
			return apperr.Validation("Invalid payment method", map[string]string{"paymentMethodId": "is not a payment method the provider knows"})
		case se.Code == stripe.ErrorCodeAmountTooSmall:
			return apperr.Validation("The order total is below the smallest amount the payment provider takes", nil)
		}
	}
	return commonError(err)
}

// sessionError maps a failed call on an existing session: an unknown
// intent is ErrNoSession.
func sessionError(err error) error {
	var se *stripe.Error
	if errors.As(err, &se) && se.Code == stripe.ErrorCodeResourceMissing && (se.Param == "intent" || se.Param == "payment_intent" || se.HTTPStatusCode == http.StatusNotFound) {
		return ErrNoSession
	}
	return commonError(err)
}

// commonError maps what any call may meet: Stripe unreachable, failing
// (5xx) or limiting the rate (429) is ErrUnavailable (503: retry); any
// other answer (a bad key, a request Stripe refuses) is the service's
// fault, reported as it is (500).
func commonError(err error) error {
	var se *stripe.Error
	if !errors.As(err, &se) {
		if errors.Is(err, context.Canceled) {
			return err
		}
		return fmt.Errorf("%w: %w", ErrUnavailable, err)
	}
	if se.HTTPStatusCode >= 500 || se.HTTPStatusCode == http.StatusTooManyRequests || se.Type == stripe.ErrorTypeAPI {
		return fmt.Errorf("%w: stripe %d %s", ErrUnavailable, se.HTTPStatusCode, se.Msg)
	}
	return fmt.Errorf("payments: stripe answered %d %s %s: %s", se.HTTPStatusCode, se.Type, se.Code, se.Msg)
}

// stripeLogger puts stripe-go's log lines in the service's log. stripe-go
// logs every error answer at its error level; the provider maps them and
// returns them to its caller, which reports what is an error of the
// service (a decline is none), so they are debug lines here, as are its
// informational ones; a retry is a warning.
type stripeLogger struct{ l *slog.Logger }

func (s stripeLogger) Debugf(ctx context.Context, format string, v ...any) {
	s.l.DebugContext(ctx, "stripe: "+fmt.Sprintf(format, v...))
}

func (s stripeLogger) Infof(ctx context.Context, format string, v ...any) {
	s.l.DebugContext(ctx, "stripe: "+fmt.Sprintf(format, v...))
}

func (s stripeLogger) Warnf(ctx context.Context, format string, v ...any) {
	s.l.WarnContext(ctx, "stripe: "+fmt.Sprintf(format, v...))
}

func (s stripeLogger) Errorf(ctx context.Context, format string, v ...any) {
	s.l.DebugContext(ctx, "stripe: "+fmt.Sprintf(format, v...))
}
