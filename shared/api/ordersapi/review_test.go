package ordersapi_test

import (
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/bookplatform/backend/local/testenv"
	"github.com/bookplatform/backend/shared/dynamo"
	"github.com/bookplatform/backend/shared/orders"
	"github.com/bookplatform/backend/shared/payments"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// A cancellation that lands between confirm's capture and its
// transaction: the capture has taken the money, the cancellation's void
// finds the session captured. The buyer must not end with a cancelled
// order and a charged card: the money is refunded.
func TestReview_CancelDuringConfirmCaptureRefunds(t *testing.T) {
	var (
		env     *testenv.Env
		orderID string
		reader  testenv.Account
		cancel  *testenv.Response
	)
	proxy := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.Method == "POST" && strings.HasSuffix(r.URL.Path, "/capture") && cancel == nil {
			rec := httptest.NewRecorder()
			env.Payments.ServeHTTP(rec, r)
			// The owner cancels while confirm waits for the capture's answer.
			cancel = env.Do("POST", "/v1/orders/"+orderID+"/cancel", map[string]any{"reason": "changed my mind"}, reader.Token)
			for k, v := range rec.Header() {
				w.Header()[k] = v
			}
			w.WriteHeader(rec.Code)
			_, _ = w.Write(rec.Body.Bytes())
			return
		}
		env.Payments.ServeHTTP(w, r)
	}))
	t.Cleanup(proxy.Close)
	env = testenv.New(t, testenv.WithEnv(payments.EnvStripeAPIBase, proxy.URL))
	a := openShop(t, env, "north-books", 0.0825)
	bk := catalog(t, env)
	item := stock(t, env, a, bk[0], 3, 1299)
	reader = env.Signup(t, "ann_reader")

	res := env.Do("POST", "/v1/orders", orderBody("pm_card_visa", line(item, 1)), reader.Token)
	require.Equal(t, http.StatusCreated, res.Status, "%s", res)
	orderID = res.JSON["id"].(string)
	sess := res.JSON["checkoutSessionId"].(string)

	res = env.Do("POST", "/v1/orders/confirm", map[string]any{"sessionId": sess}, "")
	require.NotNil(t, cancel)
	t.Logf("confirm: %d %s; cancel: %d", res.Status, res, cancel.Status)

	res = env.Do("GET", "/v1/orders/"+orderID, nil, reader.Token)
	require.Equal(t, http.StatusOK, res.Status, "%s", res)
	in, ok := env.Payments.Intent(sess)
	require.True(t, ok)
	if res.JSON["status"] == "cancelled" {
		assert.Equal(t, in.CapturedCents, in.RefundedCents, "a cancelled order's captured payment is refunded (intent %+v)", in)
		assert.Equal(t, 3, quantityOf(t, env, a, item), "the cancellation gave the stock back")
	} else {
		assert.Equal(t, "confirmed", res.JSON["status"])
	}
}

// A confirmed order cancelled while the provider is down stays
// cancelled with its payment captured ("an operator retries it", as
// decisions.md says): the operator's refund command must then refund it.
func TestReview_OperatorRetriesACancelledOrdersRefund(t *testing.T) {
	w := newWorld(t)
	env := w.env
	res := env.Do("POST", "/v1/orders", orderBody("pm_card_visa", line(w.items[0], 1)), w.reader.Token)
	require.Equal(t, http.StatusCreated, res.Status, "%s", res)
	id, sess := res.JSON["id"].(string), res.JSON["checkoutSessionId"].(string)
	require.Equal(t, http.StatusOK, env.Do("POST", "/v1/orders/confirm", map[string]any{"sessionId": sess}, "").Status)

	env.Payments.FailNext(10, http.StatusInternalServerError)
	res = env.Do("POST", "/v1/orders/"+id+"/cancel", map[string]any{}, w.reader.Token)
	env.Payments.FailNext(0, 0)
	require.Equal(t, http.StatusOK, res.Status, "%s", res)
	require.Equal(t, "captured", res.JSON["paymentStatus"], "the refund failed")

	p, err := payments.FromEnv(env.Config.Env(), payments.Runtime{})
	require.NoError(t, err)
	svc := orders.NewFulfilService(orders.FulfilDeps{Store: dynamo.NewOrders(env.App.Table), Payments: p, Now: env.App.Now})
	o, err := svc.RefundOrder(t.Context(), id, "retry the cancellation's refund")
	require.NoError(t, err, "the operator's retry of the refund")
	assert.Equal(t, orders.Cancelled, o.Status)
	assert.Equal(t, orders.PayRefunded, o.PaymentStatus)
	in, _ := env.Payments.Intent(sess)
	assert.Equal(t, in.CapturedCents, in.RefundedCents, "%+v", in)
	again, err := svc.RefundOrder(t.Context(), id, "retry the cancellation's refund")
	require.NoError(t, err)
	assert.Equal(t, orders.PayRefunded, again.PaymentStatus)
	in, _ = env.Payments.Intent(sess)
	assert.Equal(t, in.CapturedCents, in.RefundedCents, "refunded once %+v", in)
}

// Client mistakes are 4xx, never 500.
func TestReview_ClientMistakesAreNot500(t *testing.T) {
	w := newWorld(t)
	env := w.env
	raw := func(method, path, body, token string) *testenv.Response {
		return env.DoRaw(method, path, "application/json", strings.NewReader(body), token)
	}
	for _, c := range []struct{ method, path, body string }{
		{"POST", "/v1/orders", `{`},
		{"POST", "/v1/orders", `[]`},
		{"POST", "/v1/orders", `{"items":"x"}`},
		{"POST", "/v1/orders", `{"items":[{"inventoryId":"` + w.items[0] + `","quantity":1e30}],"paymentMethodId":"pm_card_visa"}`},
		{"POST", "/v1/orders", `{"items":[{"inventoryId":"` + w.items[0] + `","quantity":1.5}],"paymentMethodId":"pm_card_visa"}`},
		{"POST", "/v1/orders", `{"items":[{"inventoryId":"` + w.items[0] + `","quantity":"2"}],"paymentMethodId":"pm_card_visa"}`},
		{"POST", "/v1/orders", `{"items":[{"inventoryId":"` + w.items[0] + `","quantity":1}],"paymentMethodId":"pm_nope"}`},
		{"POST", "/v1/orders", `{"items":[{"inventoryId":"` + w.items[0] + `","quantity":1}],"paymentMethodId":"pm_card_visa","fulfilments":{"x":"teleport"}}`},
		{"POST", "/v1/orders", `{"items":[{"inventoryId":"` + w.items[0] + `","quantity":1}],"paymentMethodId":"pm_card_visa","fulfilment":"pickup","shippingAddress":null}`},
		{"POST", "/v1/orders", `{"items":[{"inventoryId":"12345","quantity":1}],"paymentMethodId":"pm_card_visa"}`},
		{"POST", "/v1/orders", `{"items":[{"inventoryId":"` + w.items[0] + `","quantity":1}],"paymentMethodId":"pm_card_visa","bogus":1}`},
		{"POST", "/v1/orders/confirm", `{"sessionId":5}`},
		{"POST", "/v1/orders/confirm", `{"sessionId":"pi_` + strings.Repeat("a", 70) + `"}`},
		{"POST", "/v1/orders/preview", `{"items":[{"bookId":"x","quantity":1e30}],"shippingAddress":{"postalCode":"97205","country":"US"}}`},
		{"POST", "/v1/orders/preview", `{"items":[{"bookId":"x","quantity":1}],"shippingAddress":{"postalCode":"97205","country":"US"},"fulfilment":"teleport"}`},
		{"GET", "/v1/orders?offset=-1", ``},
		{"GET", "/v1/orders?limit=100000", ``},
		{"GET", "/v1/orders?status=refunded", ``},
		{"GET", "/v1/stores/" + w.a.Slug + "/orders?status=nope", ``},
		{"GET", "/v1/stores/" + w.a.Slug + "/earnings", ``},
		{"GET", "/v1/stores/" + w.a.Slug + "/affiliate-commissions?cursor=garbage", ``},
		{"GET", "/v1/stores/" + w.a.Slug + "/affiliate-commissions?limit=0", ``},
		{"GET", "/v1/stores/" + w.a.Slug + "/pool-payouts?cursor=eyJ4IjoxfQ", ``},
	} {
		token := w.reader.Token
		if strings.Contains(c.path, "/stores/") {
			token = w.a.Owner.Token
		}
		res := raw(c.method, c.path, c.body, token)
		t.Logf("%s %s %s → %d", c.method, c.path, c.body, res.Status)
		assert.Less(t, res.Status, 500, "%s %s %s: %s", c.method, c.path, c.body, res)
	}
}

// The operator refunds an order one store shipped and the other has not:
// the unshipped store's copies never left its shelf, so its stock comes
// back (only the shipped part's copies are with the buyer).
func TestReview_RefundGivesBackUnshippedPartsStock(t *testing.T) {
	w := newWorld(t)
	env := w.env
	res := env.Do("POST", "/v1/orders", orderBody("pm_card_visa", line(w.items[0], 1), line(w.items[2], 1)), w.reader.Token)
	require.Equal(t, http.StatusCreated, res.Status, "%s", res)
	id, sess := res.JSON["id"].(string), res.JSON["checkoutSessionId"].(string)
	require.Equal(t, http.StatusOK, env.Do("POST", "/v1/orders/confirm", map[string]any{"sessionId": sess}, "").Status)
	res = env.Do("POST", "/v1/stores/"+w.a.Slug+"/orders/"+id+"/ship", map[string]any{"carrier": "USPS", "trackingNumber": "9400"}, w.a.Owner.Token)
	require.Equal(t, http.StatusOK, res.Status, "%s", res)
	require.Equal(t, 0, quantityOf(t, env, w.b, w.items[2]))

	p, err := payments.FromEnv(env.Config.Env(), payments.Runtime{})
	require.NoError(t, err)
	svc := orders.NewFulfilService(orders.FulfilDeps{Store: dynamo.NewOrders(env.App.Table), Payments: p, Now: env.App.Now})
	o, err := svc.RefundOrder(t.Context(), id, "lost in the post")
	require.NoError(t, err)
	assert.Equal(t, orders.Refunded, o.Status)
	assert.Equal(t, 2, quantityOf(t, env, w.a, w.items[0]), "the shipped copy stays sold")
	assert.Equal(t, 1, quantityOf(t, env, w.b, w.items[2]), "the unshipped copy is back in store b's stock")
}
