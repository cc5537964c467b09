package stripelocal

import (
	"context"
	"encoding/json"
	"io"
	"net/http"
	"net/http/httptest"
	"net/url"
	"regexp"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/stripe/stripe-go/v84/webhook"
)

// send sends a form-encoded request as stripe-go does and decodes the
// JSON answer.
func send(t *testing.T, srv *httptest.Server, method, path, key, idem string, form url.Values) (int, map[string]any) {
	t.Helper()
	var body io.Reader
	if form != nil {
		body = strings.NewReader(form.Encode())
	}
	req, _ := http.NewRequest(method, srv.URL+path, body)
	req.Header.Set("Content-Type", "application/x-www-form-urlencoded")
	if key != "" {
		req.Header.Set("Authorization", "Bearer "+key)
	}
	if idem != "" {
		req.Header.Set("Idempotency-Key", idem)
	}
	res, err := srv.Client().Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer res.Body.Close()
	var out map[string]any
	if err := json.NewDecoder(res.Body).Decode(&out); err != nil {
		t.Fatal(err)
	}
	return res.StatusCode, out
}

func intentForm(pm string) url.Values {
	return url.Values{"amount": {"1500"}, "currency": {"usd"}, "confirm": {"true"}, "capture_method": {"manual"},
		"payment_method": {pm}, "payment_method_types[0]": {"card"}, "metadata[orderId]": {"o1"}}
}

func errOf(body map[string]any) map[string]any { e, _ := body["error"].(map[string]any); return e }

var intentID = regexp.MustCompile(`^pi_[A-Za-z0-9]{24}$`)

// The secret key is checked as Stripe checks it.
func TestAPI_key(t *testing.T) {
	srv := httptest.NewServer(New())
	defer srv.Close()
	for _, key := range []string{"", "sk_test_other"} {
		status, body := send(t, srv, "POST", "/v1/payment_intents", key, "", intentForm("pm_card_visa"))
		if status != http.StatusUnauthorized || errOf(body)["type"] != "invalid_request_error" {
			t.Fatalf("key %q: %d %v", key, status, body)
		}
	}
	srv2 := httptest.NewServer(New(WithAPIKey("sk_test_mine")))
	defer srv2.Close()
	if status, _ := send(t, srv2, "POST", "/v1/payment_intents", "sk_test_mine", "", intentForm("pm_card_visa")); status != http.StatusOK {
		t.Fatalf("own key: %d", status)
	}
}

// The test payment methods' outcomes, in Stripe's shapes.
func TestAPI_createOutcomes(t *testing.T) {
	s := New()
	srv := httptest.NewServer(s)
	defer srv.Close()
	status, body := send(t, srv, "POST", "/v1/payment_intents", APIKey, "", intentForm("pm_card_visa"))
	if status != 200 || body["status"] != "requires_capture" || !intentID.MatchString(body["id"].(string)) ||
		body["amount_capturable"].(float64) != 1500 || body["metadata"].(map[string]any)["orderId"] != "o1" {
		t.Fatalf("visa: %d %v", status, body)
	}
	status, body = send(t, srv, "POST", "/v1/payment_intents", APIKey, "", intentForm("pm_card_chargeDeclinedInsufficientFunds"))
	e := errOf(body)
	if status != http.StatusPaymentRequired || e["type"] != "card_error" || e["code"] != "card_declined" || e["decline_code"] != "insufficient_funds" {
		t.Fatalf("declined: %d %v", status, body)
	}
	if pi := e["payment_intent"].(map[string]any); pi["status"] != "requires_payment_method" || pi["amount_capturable"].(float64) != 0 {
		t.Fatalf("declined intent: %v", pi)
	}
	status, body = send(t, srv, "POST", "/v1/payment_intents", APIKey, "", intentForm("pm_card_authenticationRequired"))
	if status != 200 || body["status"] != "requires_action" || body["next_action"] == nil {
		t.Fatalf("3DS: %d %v", status, body)
	}
	status, body = send(t, srv, "POST", "/v1/payment_intents", APIKey, "", intentForm("pm_card_bogus"))
	if e := errOf(body); status != 400 || e["code"] != "resource_missing" || e["param"] != "payment_method" {
		t.Fatalf("unknown: %d %v", status, body)
	}
	// Confirming without limiting to cards needs a return_url, as at Stripe.
	f := intentForm("pm_card_visa")
	f.Del("payment_method_types[0]")
	if status, _ = send(t, srv, "POST", "/v1/payment_intents", APIKey, "", f); status != 400 {
		t.Fatalf("no payment_method_types: %d", status)
	}
	f.Set("amount", "49")
	f.Set("payment_method_types[0]", "card")
	if status, body = send(t, srv, "POST", "/v1/payment_intents", APIKey, "", f); status != 400 || errOf(body)["code"] != "amount_too_small" {
		t.Fatalf("49 cents: %d %v", status, body)
	}
	if s.Created() != 3 { // visa, the declined one (Stripe keeps it), 3DS
		t.Fatalf("created %d", s.Created())
	}
}

// The same Idempotency-Key answers the first answer again and creates
// nothing; with other parameters it is Stripe's idempotency_error.
func TestAPI_idempotency(t *testing.T) {
	s := New()
	srv := httptest.NewServer(s)
	defer srv.Close()
	_, a := send(t, srv, "POST", "/v1/payment_intents", APIKey, "k1", intentForm("pm_card_visa"))
	_, b := send(t, srv, "POST", "/v1/payment_intents", APIKey, "k1", intentForm("pm_card_visa"))
	if a["id"] != b["id"] || s.Created() != 1 {
		t.Fatalf("%v then %v, created %d", a["id"], b["id"], s.Created())
	}
	status, body := send(t, srv, "POST", "/v1/payment_intents", APIKey, "k1", intentForm("pm_card_mastercard"))
	if status != 400 || errOf(body)["type"] != "idempotency_error" || s.Created() != 1 {
		t.Fatalf("other params: %d %v", status, body)
	}
	// A decline replays as a decline.
	send(t, srv, "POST", "/v1/payment_intents", APIKey, "k2", intentForm("pm_card_chargeDeclined"))
	if status, _ := send(t, srv, "POST", "/v1/payment_intents", APIKey, "k2", intentForm("pm_card_chargeDeclined")); status != 402 || s.Created() != 2 {
		t.Fatalf("replayed decline: %d, created %d", status, s.Created())
	}
}

// Retrieve, capture and cancel, with Stripe's answers to a state that
// does not allow them and to an unknown id.
func TestAPI_lifecycle(t *testing.T) {
	s := New()
	srv := httptest.NewServer(s)
	defer srv.Close()
	_, pi := send(t, srv, "POST", "/v1/payment_intents", APIKey, "", intentForm("pm_card_visa"))
	id := pi["id"].(string)
	status, got := send(t, srv, "GET", "/v1/payment_intents/"+id+"?expand[0]=latest_charge", APIKey, "", nil)
	if status != 200 || got["latest_charge"].(map[string]any)["object"] != "charge" {
		t.Fatalf("retrieve: %d %v", status, got)
	}
	if status, got = send(t, srv, "POST", "/v1/payment_intents/"+id+"/capture", APIKey, "", url.Values{}); status != 200 || got["status"] != "succeeded" || got["amount_received"].(float64) != 1500 {
		t.Fatalf("capture: %d %v", status, got)
	}
	status, got = send(t, srv, "POST", "/v1/payment_intents/"+id+"/capture", APIKey, "", url.Values{})
	if e := errOf(got); status != 400 || e["code"] != "payment_intent_unexpected_state" || e["payment_intent"].(map[string]any)["status"] != "succeeded" {
		t.Fatalf("capture again: %d %v", status, got)
	}
	if status, got = send(t, srv, "POST", "/v1/payment_intents/"+id+"/cancel", APIKey, "", url.Values{}); status != 400 {
		t.Fatalf("cancel captured: %d %v", status, got)
	}
	_, pi = send(t, srv, "POST", "/v1/payment_intents", APIKey, "", intentForm("pm_card_visa"))
	id2 := pi["id"].(string)
	if status, got = send(t, srv, "POST", "/v1/payment_intents/"+id2+"/cancel", APIKey, "", url.Values{"cancellation_reason": {"abandoned"}}); status != 200 || got["status"] != "canceled" {
		t.Fatalf("cancel: %d %v", status, got)
	}
	if in, _ := s.Intent(id2); in.CancellationReason != "abandoned" || s.HeldCents() != 0 {
		t.Fatalf("canceled intent %+v, held %d", in, s.HeldCents())
	}
	for _, p := range []string{"GET /v1/payment_intents/pi_nope", "POST /v1/payment_intents/pi_nope/capture", "POST /v1/payment_intents/pi_nope/cancel"} {
		m, path, _ := strings.Cut(p, " ")
		status, got := send(t, srv, m, path, APIKey, "", url.Values{})
		if e := errOf(got); status != 404 || e["code"] != "resource_missing" {
			t.Fatalf("%s: %d %v", p, status, got)
		}
	}
}

// receiver is a webhook endpoint verifying with stripe-go's webhook
// package, as the service's receiver does.
type receiver struct {
	mu     sync.Mutex
	events []string
	bad    int
}

func (r *receiver) ServeHTTP(w http.ResponseWriter, req *http.Request) {
	body, _ := io.ReadAll(req.Body)
	ev, err := webhook.ConstructEvent(body, req.Header.Get("Stripe-Signature"), WebhookSecret)
	r.mu.Lock()
	defer r.mu.Unlock()
	if err != nil {
		r.bad++
		http.Error(w, err.Error(), http.StatusBadRequest)
		return
	}
	r.events = append(r.events, string(ev.Type)+" "+ev.Data.Object["id"].(string)+" "+ev.Data.Object["status"].(string))
}

// Completing 3-D Secure authorises the intent and sends the webhook,
// signed so that stripe-go verifies it; a stale signature it refuses.
func TestComplete_sendsSignedWebhook(t *testing.T) {
	rec := &receiver{}
	hook := httptest.NewServer(rec)
	defer hook.Close()
	s := New(WithWebhook(hook.URL, ""))
	srv := httptest.NewServer(s)
	defer srv.Close()
	_, pi := send(t, srv, "POST", "/v1/payment_intents", APIKey, "", intentForm("pm_card_authenticationRequired"))
	id := pi["id"].(string)

	res, err := http.Post(srv.URL+"/_local/complete/"+id, "", nil)
	if err != nil || res.StatusCode != 200 {
		t.Fatalf("complete: %v %v", res, err)
	}
	res.Body.Close()
	if in, _ := s.Intent(id); in.Status != "requires_capture" {
		t.Fatalf("after completion %+v", in)
	}
	if d := s.Deliveries(); len(d) != 1 || d[0].Status != 200 || d[0].Type != "payment_intent.amount_capturable_updated" {
		t.Fatalf("deliveries %+v", d)
	}
	if _, err := s.Complete(context.Background(), id); err == nil {
		t.Fatal("completed twice")
	}
	if d, _ := s.SendSignedAt(context.Background(), "payment_intent.succeeded", id, time.Now().Add(-10*time.Minute)); d.Status != 400 {
		t.Fatalf("stale signature delivered: %+v", d)
	}
	if rec.events[0] != "payment_intent.amount_capturable_updated "+id+" requires_capture" || rec.bad != 1 {
		t.Fatalf("received %v, %d refused", rec.events, rec.bad)
	}
	if res, _ := http.Post(srv.URL+"/_local/complete/pi_nope", "", nil); res.StatusCode != 404 {
		t.Fatalf("unknown: %d", res.StatusCode)
	}
}

// Expire cancels (canceled, automatic), optionally sending the event.
func TestExpire(t *testing.T) {
	rec := &receiver{}
	hook := httptest.NewServer(rec)
	defer hook.Close()
	s := New(WithWebhook(hook.URL, WebhookSecret))
	srv := httptest.NewServer(s)
	defer srv.Close()
	_, pi := send(t, srv, "POST", "/v1/payment_intents", APIKey, "", intentForm("pm_card_visa"))
	id := pi["id"].(string)
	res, err := http.Post(srv.URL+"/_local/expire/"+id+"?notify=1", "", nil)
	if err != nil || res.StatusCode != 200 {
		t.Fatalf("expire: %v %v", res, err)
	}
	if in, _ := s.Intent(id); in.Status != "canceled" || in.CancellationReason != "automatic" {
		t.Fatalf("%+v", in)
	}
	if len(rec.events) != 1 || rec.events[0] != "payment_intent.canceled "+id+" canceled" {
		t.Fatalf("received %v", rec.events)
	}
	if err := s.Expire(id); err == nil {
		t.Fatal("expired twice")
	}
}

// Refunds: of a captured intent only, never more than is left, once per
// Idempotency-Key; the intent (expanded) reads what was refunded.
func TestAPI_refunds(t *testing.T) {
	s := New()
	srv := httptest.NewServer(s)
	defer srv.Close()
	_, pi := send(t, srv, "POST", "/v1/payment_intents", APIKey, "", intentForm("pm_card_visa"))
	id := pi["id"].(string)
	status, got := send(t, srv, "POST", "/v1/refunds", APIKey, "", url.Values{"payment_intent": {id}})
	if e := errOf(got); status != 400 || e["code"] != "payment_intent_unexpected_state" {
		t.Fatalf("uncaptured: %d %v", status, got)
	}
	send(t, srv, "POST", "/v1/payment_intents/"+id+"/capture", APIKey, "", url.Values{})
	form := url.Values{"payment_intent": {id}, "amount": {"500"}, "expand[0]": {"payment_intent.latest_charge"}}
	for range 2 {
		status, got = send(t, srv, "POST", "/v1/refunds", APIKey, "r1", form)
		pi := got["payment_intent"].(map[string]any)
		if status != 200 || got["object"] != "refund" || got["amount"].(float64) != 500 ||
			pi["latest_charge"].(map[string]any)["amount_refunded"].(float64) != 500 {
			t.Fatalf("refund: %d %v", status, got)
		}
	}
	if in, _ := s.Intent(id); in.RefundedCents != 500 {
		t.Fatalf("refunded %d, want 500 once", in.RefundedCents)
	}
	status, got = send(t, srv, "POST", "/v1/refunds", APIKey, "", url.Values{"payment_intent": {id}, "amount": {"1001"}})
	if e := errOf(got); status != 400 || e["code"] != "amount_too_large" || e["message"] != "Refund amount ($10.01) is greater than unrefunded amount on charge ($10.00)" {
		t.Fatalf("too much: %d %v", status, got)
	}
	if status, got = send(t, srv, "POST", "/v1/refunds", APIKey, "", url.Values{"payment_intent": {id}}); status != 200 || got["amount"].(float64) != 1000 {
		t.Fatalf("the rest: %d %v", status, got)
	}
	if status, got = send(t, srv, "POST", "/v1/refunds", APIKey, "", url.Values{"payment_intent": {id}}); errOf(got)["code"] != "charge_already_refunded" {
		t.Fatalf("nothing left: %d %v", status, got)
	}
	if status, got = send(t, srv, "POST", "/v1/refunds", APIKey, "", url.Values{"payment_intent": {"pi_nope"}}); status != 404 || errOf(got)["param"] != "payment_intent" {
		t.Fatalf("unknown: %d %v", status, got)
	}
}
