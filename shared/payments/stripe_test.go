package payments_test

import (
	"context"
	"encoding/json"
	"errors"
	"net"
	"net/http"
	"net/http/httptest"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/secretsmanager"

	"github.com/bookplatform/backend/local/stripelocal"
	"github.com/bookplatform/backend/shared/apperr"
	"github.com/bookplatform/backend/shared/config"
	"github.com/bookplatform/backend/shared/payments"
	"github.com/bookplatform/backend/shared/secretsmgr"
)

// newStripe is the provider built from settings naming a fresh stand-in,
// as a group builds it.
func newStripe(t *testing.T, opts ...stripelocal.Option) (payments.Provider, *stripelocal.Server) {
	t.Helper()
	sl := stripelocal.New(opts...)
	srv := httptest.NewServer(sl)
	t.Cleanup(srv.Close)
	env := config.NewEnv(func(n string) string {
		return map[string]string{payments.EnvStripeAPIBase: srv.URL, payments.EnvStripeAPIKey: stripelocal.APIKey,
			payments.EnvStripeWebhookSecret: stripelocal.WebhookSecret}[n]
	})
	p, err := payments.FromEnv(env, payments.Runtime{Webhooks: true})
	if err != nil || env.Err() != nil {
		t.Fatal(err, env.Err())
	}
	return p, sl
}

func authorization(pm, order string) payments.Authorization {
	return payments.Authorization{OrderID: order, AmountCents: 2599, Currency: "usd", PaymentMethodID: pm, IdempotencyKey: order,
		Description: "Order " + order}
}

var ctx = context.Background()

// A succeeding test card holds the amount: the session is authorised,
// carries the order id, and the stand-in holds exactly that.
func TestStripe_authorize(t *testing.T) {
	p, sl := newStripe(t)
	for _, pm := range []string{"pm_card_visa", "pm_card_mastercard", "pm_card_amex"} {
		s, err := p.Authorize(ctx, authorization(pm, "ord-"+pm))
		if err != nil {
			t.Fatalf("%s: %v", pm, err)
		}
		if !payments.ValidSessionID(s.ID) || s.Status != payments.Authorized || s.AmountCents != 2599 || s.OrderID != "ord-"+pm {
			t.Fatalf("%s: session %+v", pm, s)
		}
		in, _ := sl.Intent(s.ID)
		if in.Status != "requires_capture" || in.AmountCents != 2599 || in.Metadata["orderId"] != "ord-"+pm || in.Currency != "usd" {
			t.Fatalf("%s: intent %+v", pm, in)
		}
	}
	if sl.HeldCents() != 3*2599 || sl.Created() != 3 {
		t.Fatalf("held %d, created %d", sl.HeldCents(), sl.Created())
	}
}

// The same idempotency key is the same PaymentIntent: a retried
// authorisation charges once.
func TestStripe_authorizeIdempotent(t *testing.T) {
	p, sl := newStripe(t)
	a, err := p.Authorize(ctx, authorization("pm_card_visa", "ord-1"))
	if err != nil {
		t.Fatal(err)
	}
	b, err := p.Authorize(ctx, authorization("pm_card_visa", "ord-1"))
	if err != nil || a.ID != b.ID {
		t.Fatalf("retry: %v, %s then %s", err, a.ID, b.ID)
	}
	if sl.Created() != 1 || sl.HeldCents() != 2599 {
		t.Fatalf("created %d, held %d: want one intent", sl.Created(), sl.HeldCents())
	}
	// The same key with another amount is refused, never a second charge.
	other := authorization("pm_card_visa", "ord-1")
	other.AmountCents = 100
	if _, err := p.Authorize(ctx, other); err == nil || sl.Created() != 1 {
		t.Fatalf("another amount under the same key: %v, created %d", err, sl.Created())
	}
}

// Declining test cards are ErrDeclined (402) and hold nothing.
func TestStripe_authorizeDeclined(t *testing.T) {
	p, sl := newStripe(t)
	for _, pm := range []string{"pm_card_chargeDeclined", "pm_card_chargeDeclinedInsufficientFunds", "pm_card_visa_chargeDeclined",
		"pm_card_visa_chargeDeclinedLostCard", "pm_card_chargeDeclinedExpiredCard", "pm_card_chargeDeclinedIncorrectCvc"} {
		_, err := p.Authorize(ctx, authorization(pm, "ord-"+pm))
		if !errors.Is(err, payments.ErrDeclined) || apperr.CodeOf(err) != apperr.CodePaymentRequired {
			t.Fatalf("%s: %v, want ErrDeclined", pm, err)
		}
	}
	if sl.HeldCents() != 0 {
		t.Fatalf("%d cents held after declines", sl.HeldCents())
	}
}

// A card needing 3-D Secure leaves the session waiting for the buyer;
// completed on the stand-in, it is authorised.
func TestStripe_authorizeActionRequired(t *testing.T) {
	p, sl := newStripe(t)
	s, err := p.Authorize(ctx, authorization("pm_card_authenticationRequired", "ord-3ds"))
	if err != nil || s.Status != payments.ActionRequired {
		t.Fatalf("%+v, %v: want ActionRequired", s, err)
	}
	if _, err := p.Capture(ctx, s.ID); !errors.Is(err, payments.ErrNotCapturable) {
		t.Fatalf("capture before completion: %v, want ErrNotCapturable", err)
	}
	if _, err := sl.Complete(ctx, s.ID); err != nil {
		t.Fatal(err)
	}
	if s, err = p.Get(ctx, s.ID); err != nil || s.Status != payments.Authorized {
		t.Fatalf("after completion: %+v, %v", s, err)
	}
}

// An id no test card has is Stripe's resource_missing on payment_method:
// a 400 on paymentMethodId (so is none); an amount under Stripe's minimum
// is a 400 too.
func TestStripe_authorizeUnknownMethod(t *testing.T) {
	p, sl := newStripe(t)
	for _, pm := range []string{"pm_nonsense", "card_123", ""} {
		_, err := p.Authorize(ctx, authorization(pm, "ord-x"+pm))
		e, ok := apperr.As(err)
		if !ok || e.Code != apperr.CodeValidation {
			t.Fatalf("%q: %v, want a ValidationError", pm, err)
		}
		if f, _ := e.Details["fields"].(map[string]string); f["paymentMethodId"] == "" {
			t.Fatalf("%q: details %v, want the field paymentMethodId", pm, e.Details)
		}
	}
	if _, err := p.Authorize(ctx, payments.Authorization{OrderID: "o", AmountCents: 49, PaymentMethodID: "pm_card_visa"}); apperr.CodeOf(err) != apperr.CodeValidation {
		t.Fatalf("49 cents: %v, want a ValidationError", err)
	}
	if sl.Created() != 0 {
		t.Fatalf("%d intents created", sl.Created())
	}
}

// Get reads a session; malformed and unknown ids are their errors.
func TestStripe_get(t *testing.T) {
	p, _ := newStripe(t)
	s, err := p.Authorize(ctx, authorization("pm_card_visa", "ord-g"))
	if err != nil {
		t.Fatal(err)
	}
	got, err := p.Get(ctx, s.ID)
	if err != nil || got != s {
		t.Fatalf("%+v, %v, want %+v", got, err, s)
	}
	for _, id := range []string{"", "pi_", "ch_123456789012345678901234", "pi_abc-def", "pi_" + string(make([]byte, 10))} {
		if _, err := p.Get(ctx, id); !errors.Is(err, payments.ErrMalformedSession) {
			t.Fatalf("%q: %v, want ErrMalformedSession", id, err)
		}
	}
	if _, err := p.Get(ctx, "pi_000000000000000000000000"); !errors.Is(err, payments.ErrNoSession) {
		t.Fatalf("unknown: %v, want ErrNoSession", err)
	}
}

// Capture takes the amount; capturing again answers the captured session
// (a retried confirm); an unknown session is ErrNoSession.
func TestStripe_capture(t *testing.T) {
	p, sl := newStripe(t)
	s, err := p.Authorize(ctx, authorization("pm_card_visa", "ord-c"))
	if err != nil {
		t.Fatal(err)
	}
	for i := range 2 {
		c, err := p.Capture(ctx, s.ID)
		if err != nil || c.Status != payments.Captured || c.ID != s.ID || c.AmountCents != 2599 {
			t.Fatalf("capture %d: %+v, %v", i+1, c, err)
		}
	}
	if in, _ := sl.Intent(s.ID); in.CapturedCents != 2599 || in.Status != "succeeded" {
		t.Fatalf("intent %+v", in)
	}
	if _, err := p.Void(ctx, s.ID); !errors.Is(err, payments.ErrNotCapturable) {
		t.Fatalf("void after capture: %v, want ErrNotCapturable", err)
	}
	if _, err := p.Capture(ctx, "pi_000000000000000000000000"); !errors.Is(err, payments.ErrNoSession) {
		t.Fatalf("unknown: %v", err)
	}
	if _, err := p.Capture(ctx, "nope"); !errors.Is(err, payments.ErrMalformedSession) {
		t.Fatalf("malformed: %v", err)
	}
}

// Void releases the hold; voiding again answers the canceled session; a
// voided session cannot be captured; an expired one reads Canceled.
func TestStripe_void(t *testing.T) {
	p, sl := newStripe(t)
	s, err := p.Authorize(ctx, authorization("pm_card_visa", "ord-v"))
	if err != nil {
		t.Fatal(err)
	}
	for i := range 2 {
		v, err := p.Void(ctx, s.ID)
		if err != nil || v.Status != payments.Canceled {
			t.Fatalf("void %d: %+v, %v", i+1, v, err)
		}
	}
	if sl.HeldCents() != 0 {
		t.Fatalf("%d held after the void", sl.HeldCents())
	}
	if _, err := p.Capture(ctx, s.ID); !errors.Is(err, payments.ErrNotCapturable) {
		t.Fatalf("capture after void: %v", err)
	}
	if _, err := p.Void(ctx, "pi_000000000000000000000000"); !errors.Is(err, payments.ErrNoSession) {
		t.Fatalf("unknown: %v", err)
	}

	// Expired (Stripe cancels an authorisation left uncaptured).
	e, err := p.Authorize(ctx, authorization("pm_card_visa", "ord-e"))
	if err != nil {
		t.Fatal(err)
	}
	if err := sl.Expire(e.ID); err != nil {
		t.Fatal(err)
	}
	if got, err := p.Get(ctx, e.ID); err != nil || got.Status != payments.Canceled {
		t.Fatalf("expired: %+v, %v", got, err)
	}
}

// Stripe failing, limiting or out of reach is ErrUnavailable (503); the
// client's retry (same idempotency key) then charges once.
func TestStripe_unavailable(t *testing.T) {
	p, sl := newStripe(t)
	for _, status := range []int{http.StatusInternalServerError, http.StatusServiceUnavailable, http.StatusTooManyRequests} {
		sl.FailNext(1, status)
		if _, err := p.Authorize(ctx, authorization("pm_card_visa", "ord-u")); !errors.Is(err, payments.ErrUnavailable) || apperr.CodeOf(err) != apperr.CodeUnavailable {
			t.Fatalf("%d: %v, want ErrUnavailable", status, err)
		}
	}
	if sl.Created() != 0 {
		t.Fatal("an intent was created by a failed call")
	}
	for range 2 {
		if _, err := p.Authorize(ctx, authorization("pm_card_visa", "ord-u")); err != nil || sl.Created() != 1 {
			t.Fatalf("retried: %v, created %d", err, sl.Created())
		}
	}

	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	closed := "http://" + ln.Addr().String()
	ln.Close()
	env := config.NewEnv(func(n string) string {
		return map[string]string{payments.EnvStripeAPIBase: closed, payments.EnvStripeAPIKey: stripelocal.APIKey}[n]
	})
	down, _ := payments.FromEnv(env, payments.Runtime{Webhooks: true})
	if _, err := down.Get(ctx, "pi_000000000000000000000000"); !errors.Is(err, payments.ErrUnavailable) {
		t.Fatalf("unreachable: %v, want ErrUnavailable", err)
	}
}

// A wrong key is no outage: the call fails as the service's fault.
func TestStripe_wrongKey(t *testing.T) {
	_, sl := newStripe(t)
	srv := httptest.NewServer(sl)
	t.Cleanup(srv.Close)
	env := config.NewEnv(func(n string) string {
		return map[string]string{payments.EnvStripeAPIBase: srv.URL, payments.EnvStripeAPIKey: "sk_test_wrong"}[n]
	})
	p, _ := payments.FromEnv(env, payments.Runtime{Webhooks: true})
	_, err := p.Authorize(ctx, authorization("pm_card_visa", "ord-k"))
	if err == nil || errors.Is(err, payments.ErrUnavailable) || apperr.CodeOf(err) != apperr.CodeInternal {
		t.Fatalf("%v, want an internal error", err)
	}
}

// Without a key there is no provider: ErrNotConfigured (503); a key and
// its ARN together, or a bad base URL, are bad settings.
func TestFromEnv(t *testing.T) {
	p, err := payments.FromEnv(config.NewEnv(nil), payments.Runtime{})
	if p != nil || !errors.Is(err, payments.ErrNotConfigured) || apperr.CodeOf(err) != apperr.CodeUnavailable {
		t.Fatalf("%v, %v: want nil and ErrNotConfigured", p, err)
	}
	for name, vars := range map[string]map[string]string{
		"key and ARN":  {payments.EnvStripeAPIKey: "sk_test_x", payments.EnvStripeAPIKeySecretARN: "arn:aws:secretsmanager:us-east-1:1:secret:x"},
		"hook and ARN": {payments.EnvStripeAPIKey: "sk_test_x", payments.EnvStripeWebhookSecret: "whsec_x", payments.EnvStripeWebhookSecretARN: "arn:x"},
		"base":         {payments.EnvStripeAPIKey: "sk_test_x", payments.EnvStripeAPIBase: "localhost:12111"},
	} {
		env := config.NewEnv(func(n string) string { return vars[n] })
		_, _ = payments.FromEnv(env, payments.Runtime{Webhooks: true})
		if env.Err() == nil {
			t.Errorf("%s: accepted", name)
		}
	}
	// A provider that verifies no webhooks leaves their settings unread:
	// the stack then neither tells its function the secret's ARN nor
	// lets it read the secret.
	env := config.NewEnv(func(n string) string { return map[string]string{payments.EnvStripeAPIKey: "sk_test_x"}[n] })
	p, err = payments.FromEnv(env, payments.Runtime{})
	if err != nil || slices.Contains(env.Names(), payments.EnvStripeWebhookSecretARN) {
		t.Errorf("%v; read %v: want no webhook setting read", err, env.Names())
	}
	if _, err := p.ParseWebhook([]byte("{}"), http.Header{}); !errors.Is(err, payments.ErrNotConfigured) {
		t.Errorf("ParseWebhook without webhooks: %v, want ErrNotConfigured", err)
	}
}

// captured is a session authorised and captured for 2599 cents.
func captured(t *testing.T, p payments.Provider, order string) payments.Session {
	t.Helper()
	s, err := p.Authorize(ctx, authorization("pm_card_visa", order))
	if err == nil {
		s, err = p.Capture(ctx, s.ID)
	}
	if err != nil {
		t.Fatal(err)
	}
	return s
}

// A refund gives money back once per idempotency key; the session reads
// what was refunded; 0 refunds the rest.
func TestStripe_refund(t *testing.T) {
	p, sl := newStripe(t)
	s := captured(t, p, "ord-r")
	for i := range 2 {
		r, err := p.Refund(ctx, s.ID, 1000, "refund-1")
		if err != nil || r.RefundedCents != 1000 || r.Status != payments.Captured || r.ID != s.ID {
			t.Fatalf("refund %d: %+v, %v", i+1, r, err)
		}
	}
	if in, _ := sl.Intent(s.ID); in.RefundedCents != 1000 {
		t.Fatalf("refunded %d at the provider, want 1000 (once)", in.RefundedCents)
	}
	if got, _ := p.Get(ctx, s.ID); got.RefundedCents != 1000 {
		t.Fatalf("get after refund: %+v", got)
	}
	r, err := p.Refund(ctx, s.ID, 0, "refund-rest")
	if err != nil || r.RefundedCents != 2599 {
		t.Fatalf("the rest: %+v, %v", r, err)
	}
	// Nothing left: answered as it is, whatever the key.
	if r, err := p.Refund(ctx, s.ID, 0, "refund-again"); err != nil || r.RefundedCents != 2599 {
		t.Fatalf("refunded in full already: %+v, %v", r, err)
	}
	if in, _ := sl.Intent(s.ID); in.RefundedCents != 2599 {
		t.Fatalf("refunded %d", in.RefundedCents)
	}

	held, err := p.Authorize(ctx, authorization("pm_card_visa", "ord-held"))
	if err != nil {
		t.Fatal(err)
	}
	if _, err := p.Refund(ctx, held.ID, 0, "k"); !errors.Is(err, payments.ErrNotCapturable) {
		t.Fatalf("not captured: %v, want ErrNotCapturable", err)
	}
	if _, err := p.Refund(ctx, "pi_000000000000000000000000", 0, "k2"); !errors.Is(err, payments.ErrNoSession) {
		t.Fatalf("unknown: %v", err)
	}
	if _, err := p.Refund(ctx, "x", 0, "k3"); !errors.Is(err, payments.ErrMalformedSession) {
		t.Fatalf("malformed: %v", err)
	}
}

// signed is a delivery of the event type about intent id, signed with
// secret at t, as its header.
func signed(t *testing.T, sl *stripelocal.Server, eventType, id, secret string, at time.Time) ([]byte, http.Header) {
	t.Helper()
	body, err := sl.Event(eventType, id)
	if err != nil {
		t.Fatal(err)
	}
	return body, http.Header{"Stripe-Signature": {stripelocal.Sign(body, secret, at)}}
}

// A delivery signed with the endpoint's secret within the tolerance is
// read, with its session; a wrong secret, a stale signature, a
// missing or garbled header or an altered body is ErrBadSignature.
func TestStripe_parseWebhook(t *testing.T) {
	p, sl := newStripe(t)
	s, err := p.Authorize(ctx, authorization("pm_card_authenticationRequired", "ord-w"))
	if err != nil {
		t.Fatal(err)
	}
	if _, err := sl.Complete(ctx, s.ID); err != nil {
		t.Fatal(err)
	}
	body, h := signed(t, sl, "payment_intent.amount_capturable_updated", s.ID, stripelocal.WebhookSecret, time.Now())
	ev, err := p.ParseWebhook(body, h)
	if err != nil {
		t.Fatal(err)
	}
	want := payments.Session{ID: s.ID, Status: payments.Authorized, AmountCents: 2599, OrderID: "ord-w"}
	if ev.Type != "payment_intent.amount_capturable_updated" || !strings.HasPrefix(ev.ID, "evt_") || ev.Session != want {
		t.Fatalf("event %+v, want session %+v", ev, want)
	}

	bad := map[string]func() ([]byte, http.Header){
		"other secret": func() ([]byte, http.Header) {
			return signed(t, sl, "payment_intent.succeeded", s.ID, "whsec_other", time.Now())
		},
		"stale": func() ([]byte, http.Header) {
			return signed(t, sl, "payment_intent.succeeded", s.ID, stripelocal.WebhookSecret, time.Now().Add(-payments.WebhookTolerance-time.Minute))
		},
		"no header": func() ([]byte, http.Header) { return body, http.Header{} },
		"garbled":   func() ([]byte, http.Header) { return body, http.Header{"Stripe-Signature": {"t=abc,v1"}} },
		"altered body": func() ([]byte, http.Header) {
			return []byte(strings.Replace(string(body), "2599", "1", 1)), h
		},
	}
	for name, delivery := range bad {
		b, hh := delivery()
		if _, err := p.ParseWebhook(b, hh); !errors.Is(err, payments.ErrBadSignature) || apperr.CodeOf(err) != apperr.CodeUnauthorized {
			t.Errorf("%s: %v, want ErrBadSignature", name, err)
		}
	}

	// An event about something else is read without a session.
	other := []byte(`{"id":"evt_1","object":"event","api_version":"` + stripeAPIVersion(t, body) + `","type":"customer.created","data":{"object":{"id":"cus_1","object":"customer"}}}`)
	ev, err = p.ParseWebhook(other, http.Header{"Stripe-Signature": {stripelocal.Sign(other, stripelocal.WebhookSecret, time.Now())}})
	if err != nil || ev.Type != "customer.created" || ev.Session != (payments.Session{}) {
		t.Fatalf("other event: %+v, %v", ev, err)
	}
}

func stripeAPIVersion(t *testing.T, event []byte) string {
	t.Helper()
	var e struct {
		APIVersion string `json:"api_version"`
	}
	if err := json.Unmarshal(event, &e); err != nil || e.APIVersion == "" {
		t.Fatalf("api_version of %s: %v", event, err)
	}
	return e.APIVersion
}

// Without a webhook signing secret, no delivery is read: 503, Stripe
// delivers again once it is configured.
func TestStripe_parseWebhookNotConfigured(t *testing.T) {
	env := config.NewEnv(func(n string) string { return map[string]string{payments.EnvStripeAPIKey: "sk_test_x"}[n] })
	p, err := payments.FromEnv(env, payments.Runtime{Webhooks: true})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := p.ParseWebhook([]byte(`{}`), http.Header{"Stripe-Signature": {"t=1,v1=00"}}); !errors.Is(err, payments.ErrNotConfigured) {
		t.Fatalf("%v, want ErrNotConfigured", err)
	}
}

// fakeSecrets answers GetSecretValue from values by ARN, counting reads.
type fakeSecrets struct {
	mu     sync.Mutex
	values map[string]string
	reads  int
}

func (f *fakeSecrets) GetSecretValue(_ context.Context, in *secretsmanager.GetSecretValueInput, _ ...func(*secretsmanager.Options)) (*secretsmanager.GetSecretValueOutput, error) {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.reads++
	v, ok := f.values[aws.ToString(in.SecretId)]
	if !ok {
		return nil, errors.New("no such secret")
	}
	return &secretsmanager.GetSecretValueOutput{SecretString: aws.String(v)}, nil
}

func (f *fakeSecrets) set(arn, v string) {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.values[arn] = v
}

const (
	keyARN  = "arn:aws:secretsmanager:us-east-1:123456789012:secret:stripe-key-AbCdEf"
	hookARN = "arn:aws:secretsmanager:us-east-1:123456789012:secret:stripe-webhook-AbCdEf"
)

// With the *_SECRET_ARN settings the key and the signing secret are read
// from Secrets Manager at run time, held, and read again after
// ManagedRefresh: a rolled key reaches the provider without a restart.
func TestStripe_secretsFromSecretsManager(t *testing.T) {
	sl := stripelocal.New(stripelocal.WithAPIKey("sk_test_first"))
	srv := httptest.NewServer(sl)
	t.Cleanup(srv.Close)
	fake := &fakeSecrets{values: map[string]string{keyARN: "sk_test_first", hookARN: stripelocal.WebhookSecret}}
	now := time.Now()
	env := config.NewEnv(func(n string) string {
		return map[string]string{payments.EnvStripeAPIBase: srv.URL, payments.EnvStripeAPIKeySecretARN: keyARN,
			payments.EnvStripeWebhookSecretARN: hookARN}[n]
	})
	p, err := payments.FromEnv(env, payments.Runtime{Secrets: fake, Now: func() time.Time { return now }, Webhooks: true})
	if err != nil || env.Err() != nil {
		t.Fatal(err, env.Err())
	}
	if fake.reads != 0 {
		t.Fatal("read at construction")
	}
	a, err := p.Authorize(ctx, authorization("pm_card_visa", "ord-1"))
	if err != nil {
		t.Fatal(err)
	}
	if _, err := p.Get(ctx, a.ID); err != nil || fake.reads != 1 {
		t.Fatalf("%v, %d reads: want the key held", err, fake.reads)
	}
	body, h := signed(t, sl, "payment_intent.canceled", a.ID, stripelocal.WebhookSecret, time.Now())
	if _, err := p.ParseWebhook(body, h); err != nil || fake.reads != 2 {
		t.Fatalf("webhook: %v, %d reads", err, fake.reads)
	}

	// The key is rolled: Stripe takes the new one only; the provider
	// reads it once ManagedRefresh has passed.
	sl2 := stripelocal.New(stripelocal.WithAPIKey("sk_test_second"))
	srv.Config.Handler = sl2
	fake.set(keyARN, "sk_test_second")
	if _, err := p.Authorize(ctx, authorization("pm_card_visa", "ord-2")); err == nil {
		t.Fatal("the stand-in took the old key")
	}
	now = now.Add(secretsmgr.ManagedRefresh)
	if _, err := p.Authorize(ctx, authorization("pm_card_visa", "ord-2")); err != nil || sl2.Created() != 1 {
		t.Fatalf("after the refresh: %v, created %d", err, sl2.Created())
	}

	// A secret that cannot be read (and none held) fails the call,
	// naming the variable.
	env = config.NewEnv(func(n string) string {
		return map[string]string{payments.EnvStripeAPIBase: srv.URL, payments.EnvStripeAPIKeySecretARN: keyARN + "x"}[n]
	})
	cold, _ := payments.FromEnv(env, payments.Runtime{Secrets: fake, Webhooks: true})
	if _, err := cold.Get(ctx, a.ID); err == nil || !strings.Contains(err.Error(), payments.EnvStripeAPIKeySecretARN) {
		t.Fatalf("%v, want an error naming %s", err, payments.EnvStripeAPIKeySecretARN)
	}
}
