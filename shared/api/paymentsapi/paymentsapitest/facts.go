// Package paymentsapitest declares what the central tests need about
// the payments group (shared/api/apitest): its steps of the call
// benchmark's scenario (local/bench) and the rate-limit actions of its
// route (shared/groups). Test support: no function links it.
package paymentsapitest

import (
	"bytes"
	"encoding/json"
	"io"
	"net/http"
	"time"

	"github.com/bookplatform/backend/local/stripelocal"
	"github.com/bookplatform/backend/shared/api/apitest"
	"github.com/bookplatform/backend/shared/api/ordersapi/ordersapitest"
	"github.com/stripe/stripe-go/v84"
)

// Event is a Stripe event about the payment intent of session, in the
// status given, as Stripe's webhooks carry it.
func Event(eventType, session, status string) []byte {
	body, _ := json.Marshal(map[string]any{
		"id": "evt_bench" + session[3:], "object": "event", "api_version": stripe.APIVersion, "created": time.Now().Unix(),
		"livemode": false, "pending_webhooks": 1, "type": eventType,
		"data": map[string]any{"object": map[string]any{"id": session, "object": "payment_intent", "status": status,
			"amount": 0, "currency": "usd", "capture_method": "manual"}},
	})
	return body
}

// Facts are the payments group's steps and its route's rate-limit
// actions.
func Facts() apitest.Facts {
	var session string
	return apitest.Facts{
		Steps: []apitest.Step{
			// A payment left for the buyer on the web (3-D Secure), which
			// then fails: the webhook cancels the pending order (stock
			// back, the home store's commission reversed).
			{Stage: apitest.Store, Route: "POST /v1/orders", Note: "3-D Secure, for the webhook", Want: 201, Do: func(c *apitest.Client, s *apitest.State) *apitest.Response {
				res := c.Do("POST", "/v1/orders", ordersapitest.Order(s, 1, "pm_card_authenticationRequired"), s.Token)
				session, _ = res.JSON["checkoutSessionId"].(string)
				return res
			}},
			{Stage: apitest.Store, Route: "POST /v1/payments/webhook", Note: "unsigned", Want: 400, Do: func(c *apitest.Client, _ *apitest.State) *apitest.Response {
				return c.Raw("POST", "/v1/payments/webhook", "application/json", bytes.NewReader(Event("payment_intent.payment_failed", session, "requires_payment_method")), "")
			}},
			{Stage: apitest.Store, Route: "POST /v1/payments/webhook", Note: "payment failed", Want: 200, Do: func(c *apitest.Client, _ *apitest.State) *apitest.Response {
				return signed(c, Event("payment_intent.payment_failed", session, "requires_payment_method"))
			}},
			{Stage: apitest.Store, Route: "POST /v1/payments/webhook", Note: "replayed", Want: 200, Do: func(c *apitest.Client, _ *apitest.State) *apitest.Response {
				return signed(c, Event("payment_intent.payment_failed", session, "requires_payment_method"))
			}},
		},
		Actions: map[string][]string{"POST /v1/payments/webhook": nil},
	}
}

// signed posts body with a valid Stripe-Signature under the stand-in's
// secret (the scenario's environment configures it).
func signed(c *apitest.Client, body []byte) *apitest.Response {
	req, err := http.NewRequest(http.MethodPost, c.Base+"/v1/payments/webhook", bytes.NewReader(body))
	if err != nil {
		return &apitest.Response{Header: http.Header{}, Body: []byte(err.Error())}
	}
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Stripe-Signature", stripelocal.Sign(body, stripelocal.WebhookSecret, time.Now()))
	resp, err := c.HTTP.Do(req)
	if err != nil {
		return &apitest.Response{Header: http.Header{}, Body: []byte(err.Error())}
	}
	defer resp.Body.Close()
	data, _ := io.ReadAll(resp.Body)
	r := &apitest.Response{Status: resp.StatusCode, Header: resp.Header, Body: data}
	_ = json.Unmarshal(data, &r.JSON)
	return r
}
