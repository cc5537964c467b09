package adminapi_test

import (
	"net/http"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/bookplatform/backend/local/stripelocal"
	"github.com/bookplatform/backend/local/testenv"
	"github.com/bookplatform/backend/shared/dynamo"
)

// subscribed makes a free reader premium through a paid checkout on the
// payment stand-in and answers its subscription there.
func subscribed(t *testing.T, env *testenv.Env, name string) (testenv.Account, stripelocal.Subscription) {
	t.Helper()
	a := env.Signup(t, name)
	res := env.Do("POST", "/v1/billing/premium/checkout", nil, a.Token)
	require.Equal(t, http.StatusCreated, res.Status, "%s", res)
	cs := res.JSON["checkoutSessionId"].(string)
	_, err := env.Payments.PayCheckout(t.Context(), cs, "pm_card_visa")
	require.NoError(t, err)
	require.Equal(t, "premium", env.Do("GET", "/v1/users/me", nil, a.Token).JSON["tier"])
	c, _ := env.Payments.Checkout(cs)
	return a, stripeSub(t, env, c.SubscriptionID)
}

func stripeSub(t *testing.T, env *testenv.Env, id string) stripelocal.Subscription {
	t.Helper()
	for _, s := range env.Payments.Subscriptions() {
		if s.ID == id {
			return s
		}
	}
	t.Fatalf("no subscription %s", id)
	return stripelocal.Subscription{}
}

// An operator setting a subscriber's tier to free or bookstore stops the
// subscription renewing at the provider (nothing more is charged), the
// audit entry names it, and its end at the period's close leaves the
// tier the operator set. A repeat stops nothing more.
func TestTier_stopsTheSubscription(t *testing.T) {
	env := testenv.New(t)
	op := operator(t, env, "optier")
	for _, to := range []string{"free", "bookstore"} {
		t.Run(to, func(t *testing.T) {
			a, sub := subscribed(t, env, "sub_"+to)
			require.False(t, sub.CancelAtPeriodEnd)
			res := env.Do("PUT", "/v1/admin/users/"+a.ID+"/tier", map[string]any{"tier": to, "reason": "refund agreed"}, op.Token)
			require.Equal(t, http.StatusOK, res.Status, "%s", res)
			assert.Equal(t, to, res.JSON["tier"])
			assert.True(t, stripeSub(t, env, sub.ID).CancelAtPeriodEnd, "the subscription no longer renews")
			assert.Equal(t, "canceling", env.Item(t, dynamo.PremiumKey(a.ID))["status"])

			es := auditEntries(t, env, "user", a.ID)
			require.Len(t, es, 1)
			detail := es[0]["detail"].(map[string]any)
			assert.Equal(t, sub.ID, detail["subscription"])
			assert.Equal(t, "premium", detail["from"])
			assert.Nil(t, es[0]["apart"], "written in the tier's transaction")

			res = env.Do("PUT", "/v1/admin/users/"+a.ID+"/tier", map[string]any{"tier": to}, op.Token)
			require.Equal(t, http.StatusOK, res.Status, "%s", res)
			es = auditEntries(t, env, "user", a.ID)
			require.Len(t, es, 2)
			assert.Nil(t, es[1]["detail"].(map[string]any)["subscription"], "nothing more to stop")

			d, err := env.Payments.EndPeriod(t.Context(), sub.ID)
			require.NoError(t, err)
			assert.Equal(t, "customer.subscription.deleted", d.Type)
			assert.Equal(t, to, env.Do("GET", "/v1/users/me", nil, a.Token).JSON["tier"])
			assert.Equal(t, 1, stripeSub(t, env, sub.ID).Invoices, "charged for the first period alone")
		})
	}
}

// A bookstore application approved for a subscriber stops the
// subscription too.
func TestApprove_stopsTheSubscription(t *testing.T) {
	env := testenv.New(t)
	op := operator(t, env, "opappr")
	a, sub := subscribed(t, env, "sub_appl")
	res := env.Do("POST", "/v1/users/me/bookstore-application", map[string]any{"storeName": "Corner Books",
		"address": map[string]any{"addressLine1": "1005 W Burnside St", "city": "Portland", "state": "or", "postalCode": "97209", "country": "us"},
		"website": "corner-books.example.com", "note": "Used and new books since 1998."}, a.Token)
	require.Equal(t, http.StatusCreated, res.Status, "%s", res)
	res = env.Do("POST", "/v1/admin/bookstore-applications/"+res.JSON["id"].(string)+"/approve", nil, op.Token)
	require.Equal(t, http.StatusOK, res.Status, "%s", res)
	assert.Equal(t, "bookstore", env.Do("GET", "/v1/users/me", nil, a.Token).JSON["tier"])
	assert.True(t, stripeSub(t, env, sub.ID).CancelAtPeriodEnd)
	assert.Equal(t, "canceling", env.Item(t, dynamo.PremiumKey(a.ID))["status"])
}
