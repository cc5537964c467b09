package ordersapi_test

import (
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/bookplatform/backend/local/testenv"
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
