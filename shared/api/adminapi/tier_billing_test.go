package adminapi_test

import (
	"net/http"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/bookplatform/backend/local/stripelocal"
	"github.com/bookplatform/backend/local/testenv"
	"github.com/bookplatform/backend/shared/applications"
	"github.com/bookplatform/backend/shared/dynamo"
	"github.com/bookplatform/backend/shared/users"
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

// An operator who sets a subscriber free takes the tier over from the
// subscription: premium set again before the period ends is the
// operator's, and the subscription's end leaves it.
func TestTier_premiumSetAgainOutlivesTheStoppedSubscription(t *testing.T) {
	env := testenv.New(t)
	op := operator(t, env, "opagain")
	a, sub := subscribed(t, env, "sub_again")
	for _, to := range []string{"free", "premium"} {
		res := env.Do("PUT", "/v1/admin/users/"+a.ID+"/tier", map[string]any{"tier": to}, op.Token)
		require.Equal(t, http.StatusOK, res.Status, "%s", res)
	}
	assert.Equal(t, true, env.Item(t, dynamo.PremiumKey(a.ID))["leavesTier"])
	d, err := env.Payments.EndPeriod(t.Context(), sub.ID)
	require.NoError(t, err)
	assert.Equal(t, http.StatusOK, d.Status, "%+v", d)
	assert.Equal(t, "ended", env.Item(t, dynamo.PremiumKey(a.ID))["status"])
	assert.Equal(t, "premium", env.Do("GET", "/v1/users/me", nil, a.Token).JSON["tier"])
}

// A past_due subscription's current period is unpaid and the provider
// keeps retrying its invoice: an operator's tier change (and an
// approval) cancels it at once, not at a period end it never paid.
func TestTier_stopsAPastDueSubscriptionAtOnce(t *testing.T) {
	env := testenv.New(t)
	op := operator(t, env, "oppastdue")
	for _, how := range []string{"tier", "approval"} {
		t.Run(how, func(t *testing.T) {
			a, sub := subscribed(t, env, "sub_pd_"+how)
			_, err := env.Payments.SetStatus(t.Context(), sub.ID, "past_due")
			require.NoError(t, err)
			require.Equal(t, "past_due", env.Item(t, dynamo.PremiumKey(a.ID))["status"])
			if how == "tier" {
				res := env.Do("PUT", "/v1/admin/users/"+a.ID+"/tier", map[string]any{"tier": "free"}, op.Token)
				require.Equal(t, http.StatusOK, res.Status, "%s", res)
				es := auditEntries(t, env, "user", a.ID)
				require.Len(t, es, 1)
				assert.Equal(t, "canceled at once (past due)", es[0]["detail"].(map[string]any)["subscriptionRenewal"])
			} else {
				res := env.Do("POST", "/v1/users/me/bookstore-application", map[string]any{"storeName": "Past Due Books",
					"address": map[string]any{"addressLine1": "1005 W Burnside St", "city": "Portland", "state": "or", "postalCode": "97209", "country": "us"}}, a.Token)
				require.Equal(t, http.StatusCreated, res.Status, "%s", res)
				res = env.Do("POST", "/v1/admin/bookstore-applications/"+res.JSON["id"].(string)+"/approve", nil, op.Token)
				require.Equal(t, http.StatusOK, res.Status, "%s", res)
			}
			assert.Equal(t, "canceled", stripeSub(t, env, sub.ID).Status, "no more retries of the unpaid invoice")
			assert.Equal(t, "ended", env.Item(t, dynamo.PremiumKey(a.ID))["status"])
			want := map[string]string{"tier": "free", "approval": "bookstore"}[how]
			assert.Equal(t, want, env.Do("GET", "/v1/users/me", nil, a.Token).JSON["tier"])
			assert.Equal(t, 1, stripeSub(t, env, sub.ID).Invoices)
		})
	}
}

// The tier writes of the back office (a tier set, an approval) are
// conditional on the tier as read: a checkout completed between
// StopRenewal's read and the write made the account premium, and the
// write is refused (409, retry), so that the retry stops that
// subscription rather than leave it billing a free or bookstore account.
func TestTier_theTierWriteIsConditional(t *testing.T) {
	env := testenv.New(t)
	a, _ := subscribed(t, env, "sub_cond")
	u, err := env.App.Users.Get(t.Context(), a.ID)
	require.NoError(t, err)
	stale := *u
	stale.Tier = users.TierFree // as read before the checkout completed
	_, err = env.App.Users.SetTierOf(t.Context(), &stale, users.TierBookstore)
	require.ErrorIs(t, err, users.ErrChanged)
	assert.Equal(t, "premium", env.Do("GET", "/v1/users/me", nil, a.Token).JSON["tier"])

	res := env.Do("POST", "/v1/users/me/bookstore-application", map[string]any{"storeName": "Cond Books",
		"address": map[string]any{"addressLine1": "1005 W Burnside St", "city": "Portland", "state": "or", "postalCode": "97209", "country": "us"}}, a.Token)
	require.Equal(t, http.StatusCreated, res.Status, "%s", res)
	svc := applications.NewService(dynamo.NewApplications(env.App.Table), nil)
	app, err := svc.Get(t.Context(), res.JSON["id"].(string))
	require.NoError(t, err)
	_, err = svc.Approve(t.Context(), app, users.TierFree, "op", "")
	require.ErrorIs(t, err, users.ErrChanged)
	assert.Equal(t, "premium", env.Do("GET", "/v1/users/me", nil, a.Token).JSON["tier"])
	app, err = svc.Get(t.Context(), app.ID)
	require.NoError(t, err)
	assert.Equal(t, applications.Pending, app.Status, "nothing decided")
	_, err = svc.Approve(t.Context(), app, users.TierPremium, "op", "")
	require.NoError(t, err)
	assert.Equal(t, "bookstore", env.Do("GET", "/v1/users/me", nil, a.Token).JSON["tier"])
}
