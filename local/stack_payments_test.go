package main

import (
	"context"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"testing"

	"github.com/bookplatform/backend/shared/config"
	"github.com/bookplatform/backend/shared/payments"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// The local run's payments: with no payments settings, the stand-in it
// starts is the provider (a payment authorised through the settings
// lands there), and its webhooks, signed, reach the API's receiver.
func TestStartPayments_standIn(t *testing.T) {
	for _, n := range []string{payments.EnvStripeAPIBase, payments.EnvStripeAPIKey, payments.EnvStripeAPIKeySecretARN,
		payments.EnvStripeWebhookSecret, payments.EnvStripeWebhookSecretARN} {
		t.Setenv(n, "") // restored after the test
	}
	var hooks []string
	api := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		body, _ := io.ReadAll(r.Body)
		p, err := payments.FromEnv(config.OSEnv(), payments.Runtime{Webhooks: true})
		if err == nil {
			var ev payments.WebhookEvent
			if ev, err = p.ParseWebhook(body, r.Header); err == nil {
				hooks = append(hooks, r.URL.Path+" "+ev.Type+" "+string(ev.Session.Status))
			}
		}
		if err != nil {
			http.Error(w, err.Error(), http.StatusBadRequest)
		}
	}))
	t.Cleanup(api.Close)

	url, stop, err := startPayments(api.URL)
	require.NoError(t, err)
	t.Cleanup(func() { _ = stop(context.Background()) })
	assert.Equal(t, url, os.Getenv(payments.EnvStripeAPIBase))

	p, err := payments.FromEnv(config.OSEnv(), payments.Runtime{})
	require.NoError(t, err)
	s, err := p.Authorize(context.Background(), payments.Authorization{OrderID: "o1", AmountCents: 1200, Currency: "usd",
		PaymentMethodID: "pm_card_authenticationRequired", IdempotencyKey: "o1"})
	require.NoError(t, err)
	require.Equal(t, payments.ActionRequired, s.Status)

	// What the README tells a developer to do to complete 3-D Secure.
	res, err := http.Post(url+"/_local/complete/"+s.ID, "", nil)
	require.NoError(t, err)
	res.Body.Close()
	assert.Equal(t, http.StatusOK, res.StatusCode)
	assert.Equal(t, []string{"/v1/payments/webhook payment_intent.amount_capturable_updated authorized"}, hooks)
}

// A Stripe test-mode key alone is Stripe: the stand-in runs, but the
// settings are left as they are.
func TestStartPayments_keepsAnotherProvider(t *testing.T) {
	t.Setenv(payments.EnvStripeAPIBase, "")
	t.Setenv(payments.EnvStripeAPIKey, "sk_test_mine")
	_, stop, err := startPayments("http://127.0.0.1:1")
	require.NoError(t, err)
	t.Cleanup(func() { _ = stop(context.Background()) })
	assert.Empty(t, os.Getenv(payments.EnvStripeAPIBase))
	assert.Equal(t, "sk_test_mine", os.Getenv(payments.EnvStripeAPIKey))
}
