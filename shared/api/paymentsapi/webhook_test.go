package paymentsapi_test

import (
	"bytes"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/bookplatform/backend/local/stripelocal"
	"github.com/bookplatform/backend/local/testenv"
	"github.com/bookplatform/backend/shared/books"
	"github.com/bookplatform/backend/shared/dynamo"
	"github.com/bookplatform/backend/shared/users"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func TestMain(m *testing.M) { testenv.Main(m) }

// setup opens a store with one book of 2 copies and signs up a reader.
func setup(t *testing.T) (env *testenv.Env, storeID, ownerToken, itemID string, reader testenv.Account) {
	env = testenv.New(t)
	owner := env.Signup(t, "hook_owner")
	env.SetTier(t, owner, users.TierBookstore)
	res := env.Do("POST", "/v1/stores", map[string]any{"name": "Hook Books", "slug": "hook-books", "addressLine1": "1 Main St",
		"city": "Portland", "state": "OR", "postalCode": "97209", "country": "US"}, owner.Token)
	require.Equal(t, http.StatusCreated, res.Status, "%s", res)
	storeID = res.JSON["id"].(string)
	bk := env.ImportBooks(t, books.Record{Title: "Dune", Authors: []string{"Frank Herbert"}, ISBN: "9780441172719"})
	res = env.Do("POST", "/v1/inventory", map[string]any{"storeId": storeID, "bookId": bk[0], "quantity": 2, "priceCents": 1500, "condition": "new"}, owner.Token)
	require.Equal(t, http.StatusCreated, res.Status, "%s", res)
	return env, storeID, owner.Token, res.JSON["id"].(string), env.Signup(t, "hook_reader")
}

func place(t *testing.T, env *testenv.Env, token, itemID, pm string) (id, session string) {
	t.Helper()
	res := env.Do("POST", "/v1/orders", map[string]any{"items": []any{map[string]any{"inventoryId": itemID, "quantity": 1}},
		"paymentMethodId": pm, "fulfilment": "pickup"}, token)
	require.Equal(t, http.StatusCreated, res.Status, "%s", res)
	return res.JSON["id"].(string), res.JSON["checkoutSessionId"].(string)
}

func quantity(t *testing.T, env *testenv.Env, storeID, ownerToken, itemID string) int {
	t.Helper()
	res := env.Do("GET", "/v1/inventory/"+itemID+"?storeId="+storeID, nil, ownerToken)
	require.Equal(t, http.StatusOK, res.Status, "%s", res)
	return int(res.JSON["quantity"].(float64))
}

// A payment completed on the web (3-D Secure) confirms its order through
// the signed webhook, without the client calling confirm; a replay
// changes nothing.
func TestWebhook_completedPaymentConfirms(t *testing.T) {
	env, _, _, itemID, reader := setup(t)
	id, sess := place(t, env, reader.Token, itemID, "pm_card_authenticationRequired")
	assert.Equal(t, "pending", env.Item(t, dynamo.OrderKey(id))["status"])

	d, err := env.Payments.Complete(t.Context(), sess)
	require.NoError(t, err)
	assert.Equal(t, http.StatusOK, d.Status, "%+v", d)
	o := env.Item(t, dynamo.OrderKey(id))
	assert.Equal(t, "confirmed", o["status"])
	assert.Equal(t, "captured", o["paymentStatus"])
	in, _ := env.Payments.Intent(sess)
	assert.Equal(t, "succeeded", in.Status)

	d, err = env.Payments.Send(t.Context(), "payment_intent.amount_capturable_updated", sess)
	require.NoError(t, err)
	assert.Equal(t, http.StatusOK, d.Status, "a replay is acknowledged")
	assert.Equal(t, o, env.Item(t, dynamo.OrderKey(id)), "and changes nothing")

	// The client's own confirm after the webhook answers the same.
	res := env.Do("POST", "/v1/orders/confirm", map[string]any{"sessionId": sess}, "")
	require.Equal(t, http.StatusOK, res.Status, "%s", res)
	assert.Equal(t, "confirmed", res.JSON["order"].(map[string]any)["status"])
}

// A payment that failed cancels its pending order (stock back); other
// events and sessions of no order are acknowledged and ignored.
func TestWebhook_failedPaymentCancels(t *testing.T) {
	env, storeID, ownerToken, itemID, reader := setup(t)
	id, sess := place(t, env, reader.Token, itemID, "pm_card_authenticationRequired")
	assert.Equal(t, 1, quantity(t, env, storeID, ownerToken, itemID))

	d, err := env.Payments.FailAuthentication(t.Context(), sess)
	require.NoError(t, err)
	assert.Equal(t, http.StatusOK, d.Status, "%+v", d)
	o := env.Item(t, dynamo.OrderKey(id))
	assert.Equal(t, "cancelled", o["status"])
	assert.Equal(t, "payment failed", o["cancellationReason"])
	assert.Equal(t, 2, quantity(t, env, storeID, ownerToken, itemID), "stock back")

	// A confirmed order is not cancelled by a late failure event.
	id2, sess2 := place(t, env, reader.Token, itemID, "pm_card_visa")
	require.Equal(t, http.StatusOK, env.Do("POST", "/v1/orders/confirm", map[string]any{"sessionId": sess2}, "").Status)
	d, err = env.Payments.Send(t.Context(), "payment_intent.payment_failed", sess2)
	require.NoError(t, err)
	assert.Equal(t, http.StatusOK, d.Status)
	assert.Equal(t, "confirmed", env.Item(t, dynamo.OrderKey(id2))["status"])
	d, err = env.Payments.Send(t.Context(), "charge.refunded", sess2)
	require.NoError(t, err)
	assert.Equal(t, http.StatusOK, d.Status, "an event not handled is acknowledged")
}

// A delivery whose signature does not verify is 400 and changes
// nothing; a stale one too.
func TestWebhook_badSignature(t *testing.T) {
	env, _, _, itemID, reader := setup(t)
	id, sess := place(t, env, reader.Token, itemID, "pm_card_authenticationRequired")
	body, err := env.Payments.Event("payment_intent.succeeded", sess)
	require.NoError(t, err)
	for name, sig := range map[string]string{
		"none":         "",
		"other secret": stripelocal.Sign(body, "whsec_other", time.Now()),
		"stale":        stripelocal.Sign(body, stripelocal.WebhookSecret, time.Now().Add(-time.Hour)),
	} {
		res := env.DoRaw("POST", "/v1/payments/webhook", "application/json", bytes.NewReader(body), "")
		if sig != "" {
			req, _ := http.NewRequest("POST", env.URL("/v1/payments/webhook"), bytes.NewReader(body))
			req.Header.Set("Content-Type", "application/json")
			req.Header.Set("Stripe-Signature", sig)
			r, err := http.DefaultClient.Do(req)
			require.NoError(t, err)
			r.Body.Close()
			res.Status = r.StatusCode
		}
		assert.Equal(t, http.StatusBadRequest, res.Status, "%s", name)
	}
	assert.Equal(t, "pending", env.Item(t, dynamo.OrderKey(id))["status"])
	assert.True(t, strings.HasPrefix(sess, "pi_"))
}

// Cancelling a confirmed (captured) order refunds it.
func TestCancel_confirmedIsRefunded(t *testing.T) {
	env, storeID, ownerToken, itemID, reader := setup(t)
	id, sess := place(t, env, reader.Token, itemID, "pm_card_visa")
	require.Equal(t, http.StatusOK, env.Do("POST", "/v1/orders/confirm", map[string]any{"sessionId": sess}, "").Status)
	res := env.Do("POST", "/v1/orders/"+id+"/cancel", map[string]any{"reason": "late"}, reader.Token)
	require.Equal(t, http.StatusOK, res.Status, "%s", res)
	assert.Equal(t, "refunded", res.JSON["paymentStatus"])
	in, _ := env.Payments.Intent(sess)
	assert.EqualValues(t, in.AmountCents, in.RefundedCents)
	assert.NotNil(t, env.Item(t, dynamo.OrderKey(id))["refundedAt"])
	assert.Equal(t, 2, quantity(t, env, storeID, ownerToken, itemID))
	res = env.Do("GET", "/v1/orders/"+id, nil, reader.Token)
	assert.Equal(t, "cancelled", res.JSON["status"])
	assert.NotNil(t, res.JSON["refundedAt"])
}
