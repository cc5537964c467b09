// Package stripelocal is the local stand-in of Stripe (shared/payments'
// provider): an http.Handler speaking, on Stripe's wire protocol
// (form-encoded requests, Stripe's JSON objects and error bodies, the
// Idempotency-Key header, a bearer secret key), exactly the subset
// stripe-go sends for the provider: PaymentIntents created and confirmed
// with manual capture, read, captured and cancelled, and Refunds. So the
// Stripe code itself (stripe-go and payments.Stripe) is what the local
// run and the tests run; only the address differs.
//
// It honours Stripe's test payment-method ids: the succeeding cards
// (pm_card_visa, pm_card_mastercard, pm_card_amex, ...) authorise
// (requires_capture); the declining ones (pm_card_chargeDeclined,
// pm_card_visa_chargeDeclinedInsufficientFunds, ...) answer 402
// card_error with their decline code; pm_card_authenticationRequired
// (3-D Secure) leaves the intent requires_action; any other id is
// Stripe's 400 resource_missing on payment_method.
//
// What the buyer and Stripe would do on their own is a local endpoint
// (and a method) here: /_local/complete/{id} completes a 3-D Secure
// intent and sends the signed payment_intent.amount_capturable_updated
// webhook to the configured URL, /_local/expire/{id} cancels an intent as
// Stripe does an authorisation left uncaptured, /_local/events/{id} sends
// any event about an intent. `make run` serves one; each test environment
// (local/testenv) its own.
//
// The premium tier's subscriptions (subscriptions.go): Checkout Sessions
// in subscription mode, created, read, and paid on the stand-in's hosted
// page (GET /_local/checkout/{id}?pm=pm_card_visa, its url), which makes
// the subscription and sends checkout.session.completed and invoice.paid;
// subscriptions read, cancelled at period end and cancelled at once;
// /_local/subscriptions/{id}/end, the end of the current period: a
// subscription cancelled at period end is deleted
// (customer.subscription.deleted), another renews (invoice.paid,
// customer.subscription.updated); and /_local/subscriptions/{id}/status
// ?status=past_due|unpaid|paused|active|canceled, a status Stripe moves
// a subscription to on its own (a renewal's failed payment, its failed
// retries), with its customer.subscription.updated (.deleted).
package stripelocal

import (
	"bytes"
	"context"
	"crypto/hmac"
	"crypto/rand"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"maps"
	"math/big"
	"net/http"
	"net/url"
	"slices"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/stripe/stripe-go/v84"
)

// Fixed secrets of the stand-in's account (not secrets: it listens on
// loopback and in tests only).
const (
	// APIKey is the secret key the stand-in accepts by default.
	APIKey = "sk_test_local_stand_in"
	// WebhookSecret is the signing secret of the webhooks it sends by
	// default.
	WebhookSecret = "whsec_local_stand_in_signing_secret"
)

// MinimumAmount is Stripe's smallest charge in US cents ($0.50).
const MinimumAmount = 50

// Outcomes of Stripe's test payment methods.
var (
	// Succeeding are the test cards that authorise.
	Succeeding = []string{
		"pm_card_visa", "pm_card_visa_debit", "pm_card_mastercard", "pm_card_mastercard_debit", "pm_card_mastercard_prepaid",
		"pm_card_amex", "pm_card_discover", "pm_card_diners", "pm_card_jcb", "pm_card_unionpay", "pm_card_us",
	}
	// Declining are the test cards that decline, each with Stripe's
	// error code and decline code.
	Declining = map[string]Decline{
		"pm_card_chargeDeclined":                           {"card_declined", "generic_decline"},
		"pm_card_visa_chargeDeclined":                      {"card_declined", "generic_decline"},
		"pm_card_chargeDeclinedInsufficientFunds":          {"card_declined", "insufficient_funds"},
		"pm_card_visa_chargeDeclinedInsufficientFunds":     {"card_declined", "insufficient_funds"},
		"pm_card_chargeDeclinedLostCard":                   {"card_declined", "lost_card"},
		"pm_card_visa_chargeDeclinedLostCard":              {"card_declined", "lost_card"},
		"pm_card_chargeDeclinedStolenCard":                 {"card_declined", "stolen_card"},
		"pm_card_visa_chargeDeclinedStolenCard":            {"card_declined", "stolen_card"},
		"pm_card_chargeDeclinedFraudulent":                 {"card_declined", "fraudulent"},
		"pm_card_visa_chargeDeclinedFraudulent":            {"card_declined", "fraudulent"},
		"pm_card_visa_chargeDeclinedVelocityLimitExceeded": {"card_declined", "card_velocity_exceeded"},
		"pm_card_chargeDeclinedExpiredCard":                {"expired_card", "expired_card"},
		"pm_card_chargeDeclinedIncorrectCvc":               {"incorrect_cvc", "incorrect_cvc"},
		"pm_card_chargeDeclinedProcessingError":            {"processing_error", "processing_error"},
	}
	// Authenticating are the test cards that need 3-D Secure: the intent
	// waits in requires_action until completed (Complete).
	Authenticating = []string{"pm_card_authenticationRequired", "pm_card_threeDSecure2Required", "pm_card_threeDSecureRequired"}
)

// Decline is how a declining card fails: Stripe's error code and decline code.
type Decline struct{ Code, DeclineCode string }

// Intent is a PaymentIntent as tests read it.
type Intent struct {
	ID            string
	Status        string // Stripe's: requires_capture, requires_action, succeeded, canceled, requires_payment_method
	AmountCents   int64
	CapturedCents int64
	RefundedCents int64
	Currency      string
	PaymentMethod string // the test id it was created with (pm_card_visa)
	Metadata      map[string]string
	// CancellationReason is Stripe's (requested_by_customer, abandoned,
	// automatic for an expired authorisation, ...).
	CancellationReason string
}

// Delivery is one webhook the stand-in sent.
type Delivery struct {
	EventID, Type, IntentID string
	// Status is the receiver's HTTP status (0: not delivered, Err says why).
	Status int
	Err    string
}

// Server is the stand-in. Its state is in memory, guarded by mu.
type Server struct {
	mu            sync.Mutex
	mux           *http.ServeMux
	key           string
	webhookURL    string
	webhookSecret string
	client        *http.Client
	now           func() time.Time

	intents    map[string]*intent
	charges    map[string]string // charge id → intent id
	refunds    map[string]*refund
	idem       map[string]*idemEntry
	created    int // PaymentIntents really created (not replays)
	failNext   int // API calls still to answer failStatus
	failStatus int
	deliveries []Delivery

	checkouts     map[string]*checkoutSession
	subscriptions map[string]*subscription
	invoices      int // invoices paid (first periods and renewals)
}

type intent struct {
	Intent
	pmID      string // the payment method object's id (pm_ + random)
	chargeID  string
	secret    string
	created   time.Time
	canceled  time.Time
	lastError map[string]any
	refunds   []string
	// extra holds capture_method and description (Metadata is the caller's).
	extra map[string]string
}

type refund struct {
	ID, IntentID, ChargeID, Currency string
	Amount                           int64
	Created                          time.Time
	Metadata                         map[string]string
}

// idemEntry is a request's answer kept under its Idempotency-Key: a
// retry with the same parameters gets it again; other parameters are
// Stripe's idempotency_error.
type idemEntry struct {
	fingerprint string
	status      int
	body        []byte
}

// Option configures a Server.
type Option func(*Server)

// WithAPIKey makes the stand-in accept key instead of APIKey.
func WithAPIKey(key string) Option { return func(s *Server) { s.key = key } }

// WithWebhook sends the webhooks to url, signed with secret (""
// WebhookSecret).
func WithWebhook(url, secret string) Option {
	return func(s *Server) {
		s.webhookURL = url
		if secret != "" {
			s.webhookSecret = secret
		}
	}
}

// WithClock makes the stand-in read object times from now (the webhooks'
// signatures use the wall clock, as the receiver's check does).
func WithClock(now func() time.Time) Option { return func(s *Server) { s.now = now } }

// WithHTTPClient sends the webhooks through c.
func WithHTTPClient(c *http.Client) Option { return func(s *Server) { s.client = c } }

// New returns a stand-in with no payments.
func New(opts ...Option) *Server {
	s := &Server{key: APIKey, webhookSecret: WebhookSecret, client: &http.Client{Timeout: 30 * time.Second}, now: time.Now,
		intents: map[string]*intent{}, charges: map[string]string{}, refunds: map[string]*refund{}, idem: map[string]*idemEntry{}}
	for _, o := range opts {
		o(s)
	}
	m := http.NewServeMux()
	m.HandleFunc("POST /v1/payment_intents", s.api(s.createIntent))
	m.HandleFunc("GET /v1/payment_intents/{id}", s.api(s.retrieveIntent))
	m.HandleFunc("POST /v1/payment_intents/{id}/capture", s.api(s.captureIntent))
	m.HandleFunc("POST /v1/payment_intents/{id}/cancel", s.api(s.cancelIntent))
	m.HandleFunc("POST /v1/refunds", s.api(s.createRefund))
	m.HandleFunc("POST /_local/complete/{id}", s.localComplete)
	m.HandleFunc("POST /_local/expire/{id}", s.localExpire)
	m.HandleFunc("POST /_local/events/{id}", s.localEvent)
	s.routeSubscriptions(m)
	m.HandleFunc("/", func(w http.ResponseWriter, r *http.Request) {
		fail(w, http.StatusNotFound, apiError{Type: "invalid_request_error", Message: "Unrecognized request URL (" + r.Method + ": " + r.URL.Path + "). The local Stripe stand-in serves payment_intents, refunds, checkout sessions (subscription mode) and subscriptions only."})
	})
	s.mux = m
	return s
}

// ServeHTTP implements http.Handler.
func (s *Server) ServeHTTP(w http.ResponseWriter, r *http.Request) { s.mux.ServeHTTP(w, r) }

// SetWebhook sends the webhooks to url from now on.
func (s *Server) SetWebhook(url string) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.webhookURL = url
}

// Created is how many PaymentIntents were really created (a replay of an
// Idempotency-Key creates none): "charged once" is Created() == 1.
func (s *Server) Created() int {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.created
}

// Intent is the PaymentIntent id, and whether there is one.
func (s *Server) Intent(id string) (Intent, bool) {
	s.mu.Lock()
	defer s.mu.Unlock()
	in, ok := s.intents[id]
	if !ok {
		return Intent{}, false
	}
	return in.snapshot(), true
}

// Intents are every PaymentIntent, oldest first.
func (s *Server) Intents() []Intent {
	s.mu.Lock()
	defer s.mu.Unlock()
	out := make([]Intent, 0, len(s.intents))
	for _, in := range s.intents {
		out = append(out, in.snapshot())
	}
	slices.SortFunc(out, func(a, b Intent) int {
		if c := s.intents[a.ID].created.Compare(s.intents[b.ID].created); c != 0 {
			return c
		}
		return strings.Compare(a.ID, b.ID)
	})
	return out
}

// HeldCents is the sum held (authorised, not captured) on every intent:
// a declined or voided payment holds nothing.
func (s *Server) HeldCents() int64 {
	s.mu.Lock()
	defer s.mu.Unlock()
	var n int64
	for _, in := range s.intents {
		if in.Status == "requires_capture" {
			n += in.AmountCents
		}
	}
	return n
}

// Deliveries are the webhooks sent so far, in order.
func (s *Server) Deliveries() []Delivery {
	s.mu.Lock()
	defer s.mu.Unlock()
	return slices.Clone(s.deliveries)
}

// FailNext makes the next n API calls answer status (a 5xx: Stripe's
// api_error; 429: rate_limit) without doing anything, as Stripe down
// would. (stripe-go retries no such answer, only calls that got none.)
func (s *Server) FailNext(n, status int) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.failNext, s.failStatus = n, status
}

func (in *intent) snapshot() Intent {
	out := in.Intent
	out.Metadata = maps.Clone(in.Metadata)
	return out
}

// ErrNoIntent is an id of no PaymentIntent.
var ErrNoIntent = errors.New("stripelocal: no such payment_intent")

// ErrState is an intent in a state the local action does not apply to.
var ErrState = errors.New("stripelocal: the payment_intent is not in a state this applies to")

// Complete does what the buyer completing 3-D Secure on the web does: a
// requires_action intent becomes requires_capture (succeeded when it
// captures automatically), and the webhook that says so is sent:
// payment_intent.amount_capturable_updated (payment_intent.succeeded).
func (s *Server) Complete(ctx context.Context, id string) (Delivery, error) {
	s.mu.Lock()
	in, ok := s.intents[id]
	switch {
	case !ok:
		s.mu.Unlock()
		return Delivery{}, ErrNoIntent
	case in.Status != "requires_action":
		s.mu.Unlock()
		return Delivery{}, fmt.Errorf("%w: %s is %s", ErrState, id, in.Status)
	}
	s.authorise(in, in.captureMethod())
	event := "payment_intent.amount_capturable_updated"
	if in.Status == "succeeded" {
		event = "payment_intent.succeeded"
	}
	s.mu.Unlock()
	return s.Send(ctx, event, id)
}

// FailAuthentication does what a buyer failing 3-D Secure does: the
// intent goes back to requires_payment_method with its last error, and
// payment_intent.payment_failed is sent.
func (s *Server) FailAuthentication(ctx context.Context, id string) (Delivery, error) {
	s.mu.Lock()
	in, ok := s.intents[id]
	switch {
	case !ok:
		s.mu.Unlock()
		return Delivery{}, ErrNoIntent
	case in.Status != "requires_action":
		s.mu.Unlock()
		return Delivery{}, fmt.Errorf("%w: %s is %s", ErrState, id, in.Status)
	}
	in.Status = "requires_payment_method"
	in.lastError = map[string]any{"type": "card_error", "code": "payment_intent_authentication_failure",
		"message": "The provided PaymentMethod has failed authentication."}
	s.mu.Unlock()
	return s.Send(ctx, "payment_intent.payment_failed", id)
}

// Expire cancels an intent that is not captured, as Stripe does an
// authorisation left uncaptured for seven days (cancellation_reason
// automatic), or one left waiting for the buyer (abandoned). It sends no
// webhook (Send sends payment_intent.canceled when a test wants it).
func (s *Server) Expire(id string) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	in, ok := s.intents[id]
	if !ok {
		return ErrNoIntent
	}
	switch in.Status {
	case "requires_capture":
		in.CancellationReason = "automatic"
	case "requires_action", "requires_payment_method", "requires_confirmation":
		in.CancellationReason = "abandoned"
	default:
		return fmt.Errorf("%w: %s is %s", ErrState, id, in.Status)
	}
	in.Status, in.canceled = "canceled", s.now()
	return nil
}

// Send sends the event type about intent id (its object as it stands) to
// the webhook URL, signed as Stripe signs (Stripe-Signature: t=<unix>,
// v1=<hex HMAC-SHA256 of "<t>.<body>" under the signing secret>), and
// returns the delivery. Any type may be sent, known to the receiver or not.
func (s *Server) Send(ctx context.Context, eventType, id string) (Delivery, error) {
	return s.send(ctx, eventType, id, time.Now())
}

// SendSignedAt is Send with the signature's timestamp at (a stale or
// future signature).
func (s *Server) SendSignedAt(ctx context.Context, eventType, id string, at time.Time) (Delivery, error) {
	return s.send(ctx, eventType, id, at)
}

// Event is the event type about intent id as Stripe would send it: its
// JSON body (the receiver's tests sign it with Sign).
func (s *Server) Event(eventType, id string) ([]byte, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	in, ok := s.intents[id]
	if !ok {
		return nil, ErrNoIntent
	}
	return s.eventBody(eventType, in), nil
}

func (s *Server) eventBody(eventType string, in *intent) []byte {
	body, _ := json.Marshal(map[string]any{
		"id": "evt_" + randomID(24), "object": "event", "api_version": stripe.APIVersion, "created": s.now().Unix(),
		"livemode": false, "pending_webhooks": 1, "type": eventType,
		"request": map[string]any{"id": nil, "idempotency_key": nil},
		"data":    map[string]any{"object": s.intentJSON(in, nil)},
	})
	return body
}

// Sign is the Stripe-Signature header of payload signed with secret at t.
func Sign(payload []byte, secret string, t time.Time) string {
	mac := hmac.New(sha256.New, []byte(secret))
	fmt.Fprintf(mac, "%d.", t.Unix())
	mac.Write(payload)
	return fmt.Sprintf("t=%d,v1=%s", t.Unix(), hex.EncodeToString(mac.Sum(nil)))
}

func (s *Server) send(ctx context.Context, eventType, id string, at time.Time) (Delivery, error) {
	s.mu.Lock()
	in, ok := s.intents[id]
	if !ok {
		s.mu.Unlock()
		return Delivery{}, ErrNoIntent
	}
	body := s.eventBody(eventType, in)
	target, secret := s.webhookURL, s.webhookSecret
	s.mu.Unlock()
	var ev struct{ ID string }
	_ = json.Unmarshal(body, &ev)
	d := Delivery{EventID: ev.ID, Type: eventType, IntentID: id}
	if target == "" {
		d.Err = "no webhook URL configured"
	} else {
		d.Status, d.Err = s.post(ctx, target, body, Sign(body, secret, at))
	}
	s.mu.Lock()
	s.deliveries = append(s.deliveries, d)
	s.mu.Unlock()
	return d, nil
}

func (s *Server) post(ctx context.Context, target string, body []byte, signature string) (int, string) {
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, target, bytes.NewReader(body))
	if err != nil {
		return 0, err.Error()
	}
	req.Header.Set("Content-Type", "application/json; charset=utf-8")
	req.Header.Set("User-Agent", "Stripe/1.0 (+https://stripe.com/docs/webhooks)")
	req.Header.Set("Stripe-Signature", signature)
	res, err := s.client.Do(req)
	if err != nil {
		return 0, err.Error()
	}
	defer res.Body.Close()
	_, _ = io.Copy(io.Discard, res.Body)
	return res.StatusCode, ""
}

// The local endpoints: what the buyer or Stripe does on its own.

func (s *Server) localComplete(w http.ResponseWriter, r *http.Request) {
	do := s.Complete
	if r.URL.Query().Get("outcome") == "fail" {
		do = s.FailAuthentication
	}
	d, err := do(r.Context(), r.PathValue("id"))
	s.localAnswer(w, r.PathValue("id"), d, err)
}

func (s *Server) localExpire(w http.ResponseWriter, r *http.Request) {
	id := r.PathValue("id")
	err := s.Expire(id)
	var d Delivery
	if err == nil && r.URL.Query().Get("notify") != "" {
		d, err = s.Send(r.Context(), "payment_intent.canceled", id)
	}
	s.localAnswer(w, id, d, err)
}

func (s *Server) localEvent(w http.ResponseWriter, r *http.Request) {
	t := r.URL.Query().Get("type")
	if t == "" {
		http.Error(w, "the type query parameter names the event type", http.StatusBadRequest)
		return
	}
	d, err := s.Send(r.Context(), t, r.PathValue("id"))
	s.localAnswer(w, r.PathValue("id"), d, err)
}

func (s *Server) localAnswer(w http.ResponseWriter, id string, d Delivery, err error) {
	switch {
	case errors.Is(err, ErrNoIntent):
		http.Error(w, err.Error(), http.StatusNotFound)
		return
	case err != nil:
		http.Error(w, err.Error(), http.StatusConflict)
		return
	}
	s.mu.Lock()
	out := map[string]any{"payment_intent": s.intentJSON(s.intents[id], nil)}
	s.mu.Unlock()
	if d.Type != "" {
		out["delivery"] = d
	}
	writeJSON(w, http.StatusOK, out)
}

// The API.

// apiError is Stripe's error object.
type apiError struct {
	Type          string         `json:"type"`
	Code          string         `json:"code,omitempty"`
	DeclineCode   string         `json:"decline_code,omitempty"`
	Param         string         `json:"param,omitempty"`
	Message       string         `json:"message"`
	PaymentIntent map[string]any `json:"payment_intent,omitempty"`
}

func (e apiError) body() map[string]any { return map[string]any{"error": e} }

func fail(w http.ResponseWriter, status int, e apiError) { writeJSON(w, status, e.body()) }

func writeJSON(w http.ResponseWriter, status int, v any) {
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(status)
	_ = json.NewEncoder(w).Encode(v)
}

// call is one API request as a handler sees it: the form, the path's id.
type call struct {
	form url.Values
	id   string
	host string // the request's Host: the hosted checkout page's address
}

// answer is what a handler answers: status and a JSON body.
type answer struct {
	status int
	body   any
}

func ok(v any) answer { return answer{http.StatusOK, v} }

func failed(status int, e apiError) answer { return answer{status, e.body()} }

// api checks the secret key, applies FailNext, parses the form, holds mu
// for the handler and keeps a write's answer under its Idempotency-Key
// (Stripe's: the same key with the same parameters answers the first
// answer again; with others, 400 idempotency_error).
func (s *Server) api(h func(c call) answer) http.HandlerFunc {
	return func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Request-Id", "req_"+randomID(14))
		key, bearer := strings.CutPrefix(r.Header.Get("Authorization"), "Bearer ")
		if !bearer || key == "" {
			fail(w, http.StatusUnauthorized, apiError{Type: "invalid_request_error",
				Message: "You did not provide an API key. You need to provide your API key in the Authorization header, using Bearer auth."})
			return
		}
		s.mu.Lock()
		defer s.mu.Unlock()
		if key != s.key {
			fail(w, http.StatusUnauthorized, apiError{Type: "invalid_request_error", Message: "Invalid API Key provided: " + redact(key)})
			return
		}
		if s.failNext > 0 {
			s.failNext--
			if s.failStatus == http.StatusTooManyRequests {
				fail(w, s.failStatus, apiError{Type: "invalid_request_error", Code: "rate_limit", Message: "Too many requests hit the API too quickly."})
			} else {
				fail(w, s.failStatus, apiError{Type: "api_error", Message: "Something went wrong on Stripe's end (the local stand-in was told to fail)."})
			}
			return
		}
		if err := r.ParseForm(); err != nil {
			fail(w, http.StatusBadRequest, apiError{Type: "invalid_request_error", Message: "Invalid request body: " + err.Error()})
			return
		}
		c := call{form: r.Form, id: r.PathValue("id"), host: r.Host}
		idemKey := r.Header.Get("Idempotency-Key")
		fingerprint := r.Method + " " + r.URL.Path + "?" + r.Form.Encode()
		if r.Method == http.MethodPost && idemKey != "" {
			if prev, seen := s.idem[idemKey]; seen {
				if prev.fingerprint != fingerprint {
					fail(w, http.StatusBadRequest, apiError{Type: "idempotency_error",
						Message: "Keys for idempotent requests can only be used with the same parameters they were first used with. Try using a key other than '" + idemKey + "' if you meant to execute a different request."})
					return
				}
				w.Header().Set("Idempotent-Replayed", "true")
				w.Header().Set("Idempotency-Key", idemKey)
				w.Header().Set("Content-Type", "application/json")
				w.WriteHeader(prev.status)
				_, _ = w.Write(prev.body)
				return
			}
		}
		a := h(c)
		body, _ := json.Marshal(a.body)
		if r.Method == http.MethodPost && idemKey != "" {
			s.idem[idemKey] = &idemEntry{fingerprint: fingerprint, status: a.status, body: body}
			w.Header().Set("Idempotency-Key", idemKey)
		}
		w.Header().Set("Content-Type", "application/json")
		w.WriteHeader(a.status)
		_, _ = w.Write(body)
	}
}

func redact(key string) string {
	if len(key) <= 8 {
		return strings.Repeat("*", len(key))
	}
	return key[:8] + strings.Repeat("*", len(key)-12) + key[len(key)-4:]
}

// expands are the form's expand[] (expand[0], expand[1], ... as stripe-go
// sends them, or expand[]).
func expands(f url.Values) []string {
	var out []string
	for k, v := range f {
		if k == "expand[]" || (strings.HasPrefix(k, "expand[") && strings.HasSuffix(k, "]")) {
			out = append(out, v...)
		}
	}
	return out
}

// formMap reads the form's name[key]=value pairs (metadata).
func formMap(f url.Values, name string) map[string]string {
	out := map[string]string{}
	for k, v := range f {
		if key, ok := strings.CutPrefix(k, name+"["); ok && strings.HasSuffix(key, "]") && len(v) > 0 {
			out[strings.TrimSuffix(key, "]")] = v[0]
		}
	}
	return out
}

func formList(f url.Values, name string) []string {
	var out []string
	for k, v := range f {
		if k == name+"[]" || (strings.HasPrefix(k, name+"[") && strings.HasSuffix(k, "]")) {
			out = append(out, v...)
		}
	}
	return out
}

func invalid(param, message string) answer {
	return failed(http.StatusBadRequest, apiError{Type: "invalid_request_error", Code: "parameter_invalid_integer", Param: param, Message: message})
}

func (s *Server) createIntent(c call) answer {
	f := c.form
	amount, err := strconv.ParseInt(f.Get("amount"), 10, 64)
	switch {
	case f.Get("amount") == "":
		return failed(http.StatusBadRequest, apiError{Type: "invalid_request_error", Code: "parameter_missing", Param: "amount", Message: "Missing required param: amount."})
	case err != nil:
		return invalid("amount", "Invalid integer: "+f.Get("amount"))
	case amount < MinimumAmount:
		return failed(http.StatusBadRequest, apiError{Type: "invalid_request_error", Code: "amount_too_small", Param: "amount",
			Message: "Amount must be at least $0.50 usd"})
	case len(f.Get("currency")) != 3:
		return failed(http.StatusBadRequest, apiError{Type: "invalid_request_error", Code: "parameter_missing", Param: "currency", Message: "Missing required param: currency."})
	}
	captureMethod := f.Get("capture_method")
	if captureMethod == "" {
		captureMethod = "automatic_async"
	}
	if !slices.Contains([]string{"manual", "automatic", "automatic_async"}, captureMethod) {
		return failed(http.StatusBadRequest, apiError{Type: "invalid_request_error", Code: "parameter_invalid_empty", Param: "capture_method", Message: "Invalid capture_method: " + captureMethod})
	}
	confirm := f.Get("confirm") == "true"
	pm := f.Get("payment_method")
	// Since API version 2023-08-16 a PaymentIntent takes the methods
	// enabled in the dashboard, some of which redirect: confirming one at
	// creation needs a return_url unless it is limited to cards (or to
	// methods that never redirect). Stripe refuses it; so does the stand-in.
	types := formList(f, "payment_method_types")
	if confirm && len(types) == 0 && f.Get("return_url") == "" && f.Get("automatic_payment_methods[allow_redirects]") != "never" {
		return failed(http.StatusBadRequest, apiError{Type: "invalid_request_error",
			Message: "This PaymentIntent is configured to accept payment methods enabled in your Dashboard. Because some of these payment methods might redirect your customer off of your page, you must provide a `return_url`. If you don't want to accept redirect-based payment methods, set `automatic_payment_methods[enabled]` to `true` and `automatic_payment_methods[allow_redirects]` to `never` when creating Setup Intents and Payment Intents."})
	}
	if len(types) > 0 && !slices.Equal(types, []string{"card"}) {
		return failed(http.StatusBadRequest, apiError{Type: "invalid_request_error", Param: "payment_method_types",
			Message: "The local Stripe stand-in takes card payments only."})
	}
	if pm != "" && !known(pm) {
		return failed(http.StatusBadRequest, apiError{Type: "invalid_request_error", Code: "resource_missing", Param: "payment_method",
			Message: "No such PaymentMethod: '" + pm + "'"})
	}
	if confirm && pm == "" {
		return failed(http.StatusBadRequest, apiError{Type: "invalid_request_error", Code: "payment_intent_unexpected_state", Param: "payment_method",
			Message: "You cannot confirm this PaymentIntent because it's missing a payment method."})
	}
	now := s.now()
	in := &intent{Intent: Intent{ID: "pi_" + randomID(24), AmountCents: amount, Currency: strings.ToLower(f.Get("currency")),
		PaymentMethod: pm, Metadata: formMap(f, "metadata")}, created: now}
	in.secret = in.ID + "_secret_" + randomID(25)
	in.meta("capture_method", captureMethod)
	in.meta("description", f.Get("description"))
	if pm != "" {
		in.pmID = "pm_" + randomID(24)
	}
	s.intents[in.ID] = in
	s.created++
	switch {
	case !confirm && pm == "":
		in.Status = "requires_payment_method"
	case !confirm:
		in.Status = "requires_confirmation"
	case slices.Contains(Authenticating, pm):
		in.Status = "requires_action"
	default:
		if d, declined := Declining[pm]; declined {
			in.Status = "requires_payment_method"
			in.chargeID = s.newCharge(in)
			e := apiError{Type: "card_error", Code: d.Code, DeclineCode: d.DeclineCode, Message: declineMessage(d)}
			in.lastError = map[string]any{"type": e.Type, "code": e.Code, "decline_code": e.DeclineCode, "message": e.Message}
			e.PaymentIntent = s.intentJSON(in, nil)
			return failed(http.StatusPaymentRequired, e)
		}
		s.authorise(in, captureMethod)
	}
	return ok(s.intentJSON(in, expands(f)))
}

func (in *intent) meta(k, v string) {
	if in.extra == nil {
		in.extra = map[string]string{}
	}
	in.extra[k] = v
}

func (in *intent) captureMethod() string { return in.extra["capture_method"] }

// authorise makes a confirmed intent's charge: held (requires_capture)
// with manual capture, taken (succeeded) otherwise. mu held.
func (s *Server) authorise(in *intent, captureMethod string) {
	if in.chargeID == "" || s.charges[in.chargeID] == "" {
		in.chargeID = s.newCharge(in)
	}
	in.lastError = nil
	if captureMethod == "manual" {
		in.Status = "requires_capture"
		return
	}
	in.Status, in.CapturedCents = "succeeded", in.AmountCents
}

func (s *Server) newCharge(in *intent) string {
	id := "ch_" + randomID(24)
	s.charges[id] = in.ID
	return id
}

func known(pm string) bool {
	_, declines := Declining[pm]
	return declines || slices.Contains(Succeeding, pm) || slices.Contains(Authenticating, pm)
}

func declineMessage(d Decline) string {
	switch d.Code {
	case "expired_card":
		return "Your card has expired."
	case "incorrect_cvc":
		return "Your card's security code is incorrect."
	case "processing_error":
		return "An error occurred while processing your card. Try again in a little bit."
	}
	if d.DeclineCode == "insufficient_funds" {
		return "Your card has insufficient funds."
	}
	return "Your card was declined."
}

// intentByID finds the path's intent, or answers Stripe's 404.
func (s *Server) intentByID(id, param string) (*intent, *answer) {
	in, found := s.intents[id]
	if !found {
		a := failed(http.StatusNotFound, apiError{Type: "invalid_request_error", Code: "resource_missing", Param: param,
			Message: "No such payment_intent: '" + id + "'"})
		return nil, &a
	}
	return in, nil
}

func (s *Server) retrieveIntent(c call) answer {
	in, nf := s.intentByID(c.id, "intent")
	if nf != nil {
		return *nf
	}
	return ok(s.intentJSON(in, expands(c.form)))
}

// unexpectedState is Stripe's answer to an action the intent's status
// does not allow; it carries the intent.
func (s *Server) unexpectedState(in *intent, message string) answer {
	return failed(http.StatusBadRequest, apiError{Type: "invalid_request_error", Code: "payment_intent_unexpected_state",
		Message: message, PaymentIntent: s.intentJSON(in, nil)})
}

func (s *Server) captureIntent(c call) answer {
	in, nf := s.intentByID(c.id, "intent")
	if nf != nil {
		return *nf
	}
	if in.Status != "requires_capture" {
		return s.unexpectedState(in, "This PaymentIntent could not be captured because it has a status of "+in.Status+". Only a PaymentIntent with one of the following statuses may be captured: requires_capture.")
	}
	amount := in.AmountCents
	if v := c.form.Get("amount_to_capture"); v != "" {
		n, err := strconv.ParseInt(v, 10, 64)
		if err != nil || n <= 0 || n > in.AmountCents {
			return invalid("amount_to_capture", "The amount_to_capture must be a positive integer no greater than the amount capturable ("+strconv.FormatInt(in.AmountCents, 10)+").")
		}
		amount = n
	}
	in.Status, in.CapturedCents = "succeeded", amount
	return ok(s.intentJSON(in, expands(c.form)))
}

var cancellationReasons = []string{"duplicate", "fraudulent", "requested_by_customer", "abandoned"}

func (s *Server) cancelIntent(c call) answer {
	in, nf := s.intentByID(c.id, "intent")
	if nf != nil {
		return *nf
	}
	reason := c.form.Get("cancellation_reason")
	if reason != "" && !slices.Contains(cancellationReasons, reason) {
		return failed(http.StatusBadRequest, apiError{Type: "invalid_request_error", Code: "parameter_invalid_empty", Param: "cancellation_reason",
			Message: "Invalid cancellation_reason: must be one of " + strings.Join(cancellationReasons, ", ")})
	}
	switch in.Status {
	case "requires_payment_method", "requires_capture", "requires_confirmation", "requires_action", "processing":
	default:
		return s.unexpectedState(in, "You cannot cancel this PaymentIntent because it has a status of "+in.Status+". Only a PaymentIntent with one of the following statuses may be canceled: requires_payment_method, requires_capture, requires_confirmation, requires_action, processing.")
	}
	in.Status, in.CancellationReason, in.canceled = "canceled", reason, s.now()
	return ok(s.intentJSON(in, expands(c.form)))
}

func (s *Server) createRefund(c call) answer {
	f := c.form
	var in *intent
	switch {
	case f.Get("payment_intent") != "":
		var nf *answer
		if in, nf = s.intentByID(f.Get("payment_intent"), "payment_intent"); nf != nil {
			return *nf
		}
	case f.Get("charge") != "":
		id, found := s.charges[f.Get("charge")]
		if !found {
			return failed(http.StatusNotFound, apiError{Type: "invalid_request_error", Code: "resource_missing", Param: "charge", Message: "No such charge: '" + f.Get("charge") + "'"})
		}
		in = s.intents[id]
	default:
		return failed(http.StatusBadRequest, apiError{Type: "invalid_request_error", Code: "parameter_missing", Param: "payment_intent",
			Message: "One of the following params should be provided for this request: payment_intent or charge."})
	}
	if in.Status != "succeeded" {
		return s.unexpectedState(in, "This PaymentIntent does not have a successful charge to refund (its status is "+in.Status+").")
	}
	left := in.CapturedCents - in.RefundedCents
	amount := left
	if v := f.Get("amount"); v != "" {
		n, err := strconv.ParseInt(v, 10, 64)
		if err != nil || n <= 0 {
			return invalid("amount", "Invalid positive integer: "+v)
		}
		amount = n
	}
	if amount > left || left == 0 {
		code := "amount_too_large"
		if left == 0 {
			code = "charge_already_refunded"
		}
		return failed(http.StatusBadRequest, apiError{Type: "invalid_request_error", Code: code, Param: "amount",
			Message: fmt.Sprintf("Refund amount ($%s) is greater than unrefunded amount on charge ($%s)", dollars(amount), dollars(left))})
	}
	re := &refund{ID: "re_" + randomID(24), IntentID: in.ID, ChargeID: in.chargeID, Currency: in.Currency, Amount: amount, Created: s.now(),
		Metadata: formMap(f, "metadata")}
	s.refunds[re.ID] = re
	in.RefundedCents += amount
	in.refunds = append(in.refunds, re.ID)
	out := map[string]any{"id": re.ID, "object": "refund", "amount": re.Amount, "currency": re.Currency, "charge": re.ChargeID,
		"created": re.Created.Unix(), "metadata": re.Metadata, "payment_intent": re.IntentID, "status": "succeeded", "reason": nilIfEmpty(f.Get("reason"))}
	var nested []string
	for _, e := range expands(f) {
		if e == "payment_intent" {
			out["payment_intent"] = s.intentJSON(in, nil)
		} else if rest, ok := strings.CutPrefix(e, "payment_intent."); ok {
			nested = append(nested, rest)
		}
	}
	if len(nested) > 0 {
		out["payment_intent"] = s.intentJSON(in, nested)
	}
	return ok(out)
}

// dollars formats cents as Stripe's messages do, without floating point.
func dollars(c int64) string { return fmt.Sprintf("%d.%02d", c/100, c%100) }

func nilIfEmpty(s string) any {
	if s == "" {
		return nil
	}
	return s
}

// intentJSON is in as Stripe's PaymentIntent object; expand may name
// latest_charge. mu held.
func (s *Server) intentJSON(in *intent, expand []string) map[string]any {
	capturable := int64(0)
	if in.Status == "requires_capture" {
		capturable = in.AmountCents
	}
	out := map[string]any{
		"id": in.ID, "object": "payment_intent", "amount": in.AmountCents, "amount_capturable": capturable, "amount_received": in.CapturedCents,
		"capture_method": in.captureMethod(), "confirmation_method": "automatic", "currency": in.Currency, "created": in.created.Unix(),
		"client_secret": in.secret, "description": nilIfEmpty(in.extra["description"]), "livemode": false, "metadata": orEmpty(in.Metadata),
		"payment_method": nilIfEmpty(in.pmID), "payment_method_types": []string{"card"}, "status": in.Status,
		"latest_charge": nilIfEmpty(in.chargeID), "next_action": nil, "last_payment_error": nil, "canceled_at": nil, "cancellation_reason": nilIfEmpty(in.CancellationReason),
	}
	if in.Status == "requires_action" {
		out["next_action"] = map[string]any{"type": "use_stripe_sdk", "use_stripe_sdk": map[string]any{"type": "three_d_secure_redirect", "stripe_js": ""}}
	}
	if in.lastError != nil {
		out["last_payment_error"] = in.lastError
	}
	if !in.canceled.IsZero() {
		out["canceled_at"] = in.canceled.Unix()
	}
	if slices.Contains(expand, "latest_charge") && in.chargeID != "" {
		out["latest_charge"] = s.chargeJSON(in)
	}
	return out
}

func (s *Server) chargeJSON(in *intent) map[string]any {
	status, paid := "succeeded", true
	if in.lastError != nil && in.Status == "requires_payment_method" {
		status, paid = "failed", false
	}
	refunded := in.RefundedCents > 0 && in.RefundedCents == in.CapturedCents
	return map[string]any{"id": in.chargeID, "object": "charge", "amount": in.AmountCents, "amount_captured": in.CapturedCents,
		"amount_refunded": in.RefundedCents, "captured": in.CapturedCents > 0, "currency": in.Currency, "paid": paid,
		"payment_intent": in.ID, "refunded": refunded, "status": status, "livemode": false, "created": in.created.Unix()}
}

func orEmpty(m map[string]string) map[string]string {
	if m == nil {
		return map[string]string{}
	}
	return m
}

const alphanumerics = "0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz"

// randomID is n random letters and digits (Stripe's ids: pi_ and 24).
func randomID(n int) string {
	b := make([]byte, n)
	max := big.NewInt(int64(len(alphanumerics)))
	for i := range b {
		k, err := rand.Int(rand.Reader, max)
		if err != nil {
			panic(err)
		}
		b[i] = alphanumerics[k.Int64()]
	}
	return string(b)
}
