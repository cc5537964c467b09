package billingapi_test

import (
	"net/http"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/bookplatform/backend/local/stripelocal"
	"github.com/bookplatform/backend/local/testenv"
	"github.com/bookplatform/backend/shared/billing"
	"github.com/bookplatform/backend/shared/dynamo"
	"github.com/bookplatform/backend/shared/payments"
	"github.com/bookplatform/backend/shared/users"
)

func TestMain(m *testing.M) { testenv.Main(m) }

func tier(t *testing.T, env *testenv.Env, a testenv.Account) string {
	t.Helper()
	res := env.Do("GET", "/v1/users/me", nil, a.Token)
	require.Equal(t, http.StatusOK, res.Status, "%s", res)
	return res.JSON["tier"].(string)
}

func checkout(t *testing.T, env *testenv.Env, a testenv.Account) string {
	t.Helper()
	res := env.Do("POST", "/v1/billing/premium/checkout", nil, a.Token)
	require.Equal(t, http.StatusCreated, res.Status, "%s", res)
	return res.JSON["checkoutSessionId"].(string)
}

// Confirm makes the caller premium only once the session is paid; a
// repeat, and the provider's webhook after it, change nothing and charge
// nothing more; the checkout answers the same open session until then.
func TestPremium_confirm(t *testing.T) {
	env := testenv.New(t)
	reader := env.Signup(t, "prem_reader")
	res := env.Do("GET", "/v1/billing/premium", nil, reader.Token)
	require.Equal(t, http.StatusOK, res.Status, "%s", res)
	assert.Equal(t, "none", res.JSON["status"])

	res = env.Do("POST", "/v1/billing/premium/checkout", nil, reader.Token)
	require.Equal(t, http.StatusCreated, res.Status, "%s", res)
	cs := res.JSON["checkoutSessionId"].(string)
	assert.Equal(t, "open", res.JSON["status"])
	assert.True(t, strings.HasPrefix(res.JSON["url"].(string), env.PaymentsURL+"/_local/checkout/cs_"), res.JSON["url"])
	assert.EqualValues(t, 499, res.JSON["amountCents"])
	assert.Equal(t, cs, checkout(t, env, reader), "an open session is answered again")
	assert.Equal(t, 1, env.Payments.Checkouts())

	res = env.Do("POST", "/v1/billing/premium/confirm", map[string]any{"checkoutSessionId": cs}, reader.Token)
	assert.Equal(t, http.StatusBadRequest, res.Status, "unpaid: %s", res)
	_, err := env.Payments.PayCheckout(t.Context(), cs, "pm_card_chargeDeclined")
	require.ErrorIs(t, err, stripelocal.ErrDeclined)
	res = env.Do("POST", "/v1/billing/premium/confirm", map[string]any{"checkoutSessionId": cs}, reader.Token)
	assert.Equal(t, http.StatusBadRequest, res.Status, "declined: %s", res)
	assert.Equal(t, "free", tier(t, env, reader))

	// Paid with no webhook delivered: the client's confirm completes it.
	env.Payments.SetWebhook("")
	_, err = env.Payments.PayCheckout(t.Context(), cs, "pm_card_visa")
	require.NoError(t, err)
	assert.Equal(t, "free", tier(t, env, reader), "not premium before the provider's word reaches the service")
	res = env.Do("POST", "/v1/billing/premium/confirm", map[string]any{"checkoutSessionId": cs}, reader.Token)
	require.Equal(t, http.StatusOK, res.Status, "%s", res)
	assert.Equal(t, "active", res.JSON["status"])
	assert.NotNil(t, res.JSON["currentPeriodEnd"])
	assert.Equal(t, "premium", tier(t, env, reader))
	first := env.Item(t, dynamo.PremiumKey(reader.ID))

	again := env.Do("POST", "/v1/billing/premium/confirm", map[string]any{"checkoutSessionId": cs}, reader.Token)
	require.Equal(t, http.StatusOK, again.Status, "%s", again)
	assert.Equal(t, res.JSON, again.JSON)
	env.Payments.SetWebhook(env.URL("/v1/payments/webhook"))
	d, err := env.Payments.SendCheckout(t.Context(), "checkout.session.completed", cs)
	require.NoError(t, err)
	assert.Equal(t, http.StatusOK, d.Status, "%+v", d)
	assert.Equal(t, first, env.Item(t, dynamo.PremiumKey(reader.ID)), "the late webhook changes nothing")
	assert.Equal(t, 1, env.Payments.Invoices(), "one charge")
	assert.Len(t, env.Payments.Subscriptions(), 1)

	res = env.Do("POST", "/v1/billing/premium/checkout", nil, reader.Token)
	assert.Equal(t, http.StatusConflict, res.Status, "premium already: %s", res)
}

// The provider's signed webhook completes a checkout paid on the hosted
// page without the client; its replay and the client's confirm after it
// answer the same.
func TestPremium_webhook(t *testing.T) {
	env := testenv.New(t)
	reader := env.Signup(t, "prem_hook")
	cs := checkout(t, env, reader)
	// The hosted page (the session's url) pays and sends the buyer back.
	noRedirect := &http.Client{CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse }}
	r, err := noRedirect.Get(env.PaymentsURL + "/_local/checkout/" + cs)
	require.NoError(t, err)
	r.Body.Close()
	assert.Equal(t, http.StatusSeeOther, r.StatusCode)
	assert.Contains(t, r.Header.Get("Location"), "session_id="+cs)
	assert.Equal(t, "premium", tier(t, env, reader))
	first := env.Item(t, dynamo.PremiumKey(reader.ID))
	assert.Equal(t, "active", first["status"])

	d, err := env.Payments.SendCheckout(t.Context(), "checkout.session.completed", cs)
	require.NoError(t, err)
	assert.Equal(t, http.StatusOK, d.Status)
	res := env.Do("POST", "/v1/billing/premium/confirm", map[string]any{"checkoutSessionId": cs}, reader.Token)
	require.Equal(t, http.StatusOK, res.Status, "%s", res)
	assert.Equal(t, "active", res.JSON["status"])
	assert.Equal(t, first, env.Item(t, dynamo.PremiumKey(reader.ID)))
	assert.Equal(t, 1, env.Payments.Invoices())
}

// Confirms racing each other and the webhook upgrade once.
func TestPremium_race(t *testing.T) {
	env := testenv.New(t)
	reader := env.Signup(t, "prem_race")
	cs := checkout(t, env, reader)
	env.Payments.SetWebhook("")
	_, err := env.Payments.PayCheckout(t.Context(), cs, "pm_card_visa")
	require.NoError(t, err)
	env.Payments.SetWebhook(env.URL("/v1/payments/webhook"))
	var wg sync.WaitGroup
	statuses := make([]int, 6)
	for i := range statuses {
		wg.Go(func() {
			if i == 0 {
				d, _ := env.Payments.SendCheckout(t.Context(), "checkout.session.completed", cs)
				statuses[i] = d.Status
				return
			}
			statuses[i] = env.Do("POST", "/v1/billing/premium/confirm", map[string]any{"checkoutSessionId": cs}, reader.Token).Status
		})
	}
	wg.Wait()
	for _, s := range statuses {
		assert.Equal(t, http.StatusOK, s, "%v", statuses)
	}
	assert.Equal(t, "premium", tier(t, env, reader))
	assert.Equal(t, "active", env.Item(t, dynamo.PremiumKey(reader.ID))["status"])
	assert.Equal(t, 1, env.Payments.Invoices())
}

// Cancelling keeps premium to the end of the paid period; the provider's
// customer.subscription.deleted then returns the account to free, and it
// may buy again. A period that ends uncancelled renews.
func TestPremium_cancel(t *testing.T) {
	env := testenv.New(t)
	reader := env.Signup(t, "prem_cancel")
	res := env.Do("POST", "/v1/billing/premium/cancel", nil, reader.Token)
	assert.Equal(t, http.StatusConflict, res.Status, "nothing to cancel: %s", res)
	cs := checkout(t, env, reader)
	_, err := env.Payments.PayCheckout(t.Context(), cs, "pm_card_visa")
	require.NoError(t, err)
	sub := env.Payments.Subscriptions()[0]
	end := env.Item(t, dynamo.PremiumKey(reader.ID))["currentPeriodEnd"]

	// A renewal moves the period on.
	d, err := env.Payments.EndPeriod(t.Context(), sub.ID)
	require.NoError(t, err)
	assert.Equal(t, http.StatusOK, d.Status)
	assert.NotEqual(t, end, env.Item(t, dynamo.PremiumKey(reader.ID))["currentPeriodEnd"])
	assert.Equal(t, 2, env.Payments.Invoices())

	res = env.Do("POST", "/v1/billing/premium/cancel", nil, reader.Token)
	require.Equal(t, http.StatusOK, res.Status, "%s", res)
	assert.Equal(t, "canceling", res.JSON["status"])
	assert.NotNil(t, res.JSON["canceledAt"])
	assert.Equal(t, "premium", tier(t, env, reader), "premium to the end of the period")
	again := env.Do("POST", "/v1/billing/premium/cancel", nil, reader.Token)
	require.Equal(t, http.StatusOK, again.Status)
	assert.Equal(t, res.JSON, again.JSON)

	d, err = env.Payments.EndPeriod(t.Context(), sub.ID)
	require.NoError(t, err)
	assert.Equal(t, "customer.subscription.deleted", d.Type)
	assert.Equal(t, http.StatusOK, d.Status)
	assert.Equal(t, "free", tier(t, env, reader))
	res = env.Do("GET", "/v1/billing/premium", nil, reader.Token)
	assert.Equal(t, "ended", res.JSON["status"])
	assert.NotNil(t, res.JSON["endedAt"])
	d, err = env.Payments.SendSubscription(t.Context(), "customer.subscription.deleted", sub.ID)
	require.NoError(t, err)
	assert.Equal(t, http.StatusOK, d.Status, "a replay is acknowledged")
	assert.Equal(t, 2, env.Payments.Invoices(), "nothing charged after the end")

	cs2 := checkout(t, env, reader)
	assert.NotEqual(t, cs, cs2, "a new checkout after the end")
}

// The errors: not a free account, a malformed, unknown or another's
// session, no token; ending a subscription leaves a bookstore tier alone.
func TestPremium_errors(t *testing.T) {
	env := testenv.New(t)
	reader, other, seller := env.Signup(t, "prem_err"), env.Signup(t, "prem_other"), env.Signup(t, "prem_seller")
	env.SetTier(t, seller, users.TierBookstore)
	res := env.Do("POST", "/v1/billing/premium/checkout", nil, seller.Token)
	assert.Equal(t, http.StatusConflict, res.Status, "%s", res)
	env.SetTier(t, other, users.TierPremium)
	res = env.Do("POST", "/v1/billing/premium/checkout", nil, other.Token)
	assert.Equal(t, http.StatusConflict, res.Status, "%s", res)
	env.SetTier(t, other, users.TierFree)

	cs := checkout(t, env, reader)
	for name, c := range map[string]struct {
		body   any
		token  string
		status int
	}{
		"missing":   {map[string]any{}, reader.Token, http.StatusBadRequest},
		"malformed": {map[string]any{"checkoutSessionId": "pi_123456789"}, reader.Token, http.StatusBadRequest},
		"unknown":   {map[string]any{"checkoutSessionId": "cs_test_nosuchsession0000"}, reader.Token, http.StatusNotFound},
		"another's": {map[string]any{"checkoutSessionId": cs}, other.Token, http.StatusNotFound},
		"no token":  {map[string]any{"checkoutSessionId": cs}, "", http.StatusUnauthorized},
	} {
		res := env.Do("POST", "/v1/billing/premium/confirm", c.body, c.token)
		assert.Equal(t, c.status, res.Status, "%s: %s", name, res)
	}
	for _, route := range []string{"GET /v1/billing/premium", "POST /v1/billing/premium/checkout", "POST /v1/billing/premium/cancel"} {
		m, p, _ := strings.Cut(route, " ")
		assert.Equal(t, http.StatusUnauthorized, env.Do(m, p, nil, "").Status, route)
	}

	// Paid, then made bookstore by an operator: the end leaves the tier.
	_, err := env.Payments.PayCheckout(t.Context(), cs, "pm_card_visa")
	require.NoError(t, err)
	assert.Equal(t, "premium", tier(t, env, reader))
	env.SetTier(t, reader, users.TierBookstore)
	require.Equal(t, http.StatusOK, env.Do("POST", "/v1/billing/premium/cancel", nil, reader.Token).Status)
	_, err = env.Payments.EndPeriod(t.Context(), env.Payments.Subscriptions()[0].ID)
	require.NoError(t, err)
	assert.Equal(t, "bookstore", tier(t, env, reader))
	assert.Equal(t, "ended", env.Item(t, dynamo.PremiumKey(reader.ID))["status"])
}

// The late confirm of an old checkout, whose subscription has ended since,
// leaves the live subscription the record's: it stays cancelable, and
// its end returns the account to free.
func TestConfirm_anOldCheckoutDoesNotReplaceTheLiveSubscription(t *testing.T) {
	env := testenv.New(t)
	reader := env.Signup(t, "stale_confirm")
	first := checkout(t, env, reader)
	_, err := env.Payments.PayCheckout(t.Context(), first, "pm_card_visa")
	require.NoError(t, err)
	old := env.Payments.Subscriptions()[0]
	require.Equal(t, http.StatusOK, env.Do("POST", "/v1/billing/premium/cancel", nil, reader.Token).Status)
	_, err = env.Payments.EndPeriod(t.Context(), old.ID)
	require.NoError(t, err)
	require.Equal(t, "free", tier(t, env, reader))

	second := checkout(t, env, reader)
	_, err = env.Payments.PayCheckout(t.Context(), second, "pm_card_visa")
	require.NoError(t, err)
	require.Equal(t, "premium", tier(t, env, reader))
	live := env.Item(t, dynamo.PremiumKey(reader.ID))["subscriptionId"]
	require.NotEqual(t, old.ID, live)

	res := env.Do("POST", "/v1/billing/premium/confirm", map[string]any{"checkoutSessionId": first}, reader.Token)
	assert.Less(t, res.Status, 500, "%s", res)
	assert.Equal(t, live, env.Item(t, dynamo.PremiumKey(reader.ID))["subscriptionId"], "the old checkout replaced the live subscription")
	assert.Equal(t, "premium", tier(t, env, reader))
	res = env.Do("POST", "/v1/billing/premium/cancel", nil, reader.Token)
	assert.Equal(t, http.StatusOK, res.Status, "the live subscription stays cancelable: %s", res)
}

// subscribe makes a free reader premium through a paid checkout and
// answers its subscription at the stand-in.
func subscribe(t *testing.T, env *testenv.Env, a testenv.Account) stripelocal.Subscription {
	t.Helper()
	cs := checkout(t, env, a)
	_, err := env.Payments.PayCheckout(t.Context(), cs, "pm_card_visa")
	require.NoError(t, err)
	require.Equal(t, "premium", tier(t, env, a))
	c, ok := env.Payments.Checkout(cs)
	require.True(t, ok)
	for _, sub := range env.Payments.Subscriptions() {
		if sub.ID == c.SubscriptionID {
			return sub
		}
	}
	t.Fatalf("no subscription of %s", cs)
	return stripelocal.Subscription{}
}

func subscription(t *testing.T, env *testenv.Env, id string) stripelocal.Subscription {
	t.Helper()
	for _, sub := range env.Payments.Subscriptions() {
		if sub.ID == id {
			return sub
		}
	}
	t.Fatalf("no subscription %s", id)
	return stripelocal.Subscription{}
}

// A renewal whose payment fails (past_due) keeps premium while the
// provider retries; a retry that succeeds makes it active again. When
// the retries fail (unpaid) the subscription is cancelled at the
// provider, so it charges nothing more, and the account is free again;
// it may buy premium anew.
func TestPremium_pastDueThenUnpaid(t *testing.T) {
	env := testenv.New(t)
	reader := env.Signup(t, "prem_unpaid")
	sub := subscribe(t, env, reader)

	d, err := env.Payments.SetStatus(t.Context(), sub.ID, "past_due")
	require.NoError(t, err)
	assert.Equal(t, http.StatusOK, d.Status, "%+v", d)
	assert.Equal(t, "premium", tier(t, env, reader), "premium during the provider's retries")
	res := env.Do("GET", "/v1/billing/premium", nil, reader.Token)
	assert.Equal(t, "past_due", res.JSON["status"])
	res = env.Do("POST", "/v1/billing/premium/checkout", nil, reader.Token)
	assert.Equal(t, http.StatusConflict, res.Status, "the subscription is live: %s", res)
	_, err = env.Payments.SetStatus(t.Context(), sub.ID, "active")
	require.NoError(t, err)
	assert.Equal(t, "active", env.Item(t, dynamo.PremiumKey(reader.ID))["status"], "a retry paid")

	_, err = env.Payments.SetStatus(t.Context(), sub.ID, "past_due")
	require.NoError(t, err)
	// The provider's retries fail.
	r, err := http.Post(env.PaymentsURL+"/_local/subscriptions/"+sub.ID+"/status?status=unpaid", "", nil)
	require.NoError(t, err)
	r.Body.Close()
	require.Equal(t, http.StatusOK, r.StatusCode)
	assert.Equal(t, "free", tier(t, env, reader), "unpaid ends premium")
	res = env.Do("GET", "/v1/billing/premium", nil, reader.Token)
	assert.Equal(t, "ended", res.JSON["status"])
	assert.NotNil(t, res.JSON["endedAt"])
	assert.Equal(t, "canceled", subscription(t, env, sub.ID).Status, "cancelled at the provider: it charges nothing more")

	// The provider's deletion event (and a replay of the unpaid one)
	// change nothing.
	d, err = env.Payments.SendSubscription(t.Context(), "customer.subscription.deleted", sub.ID)
	require.NoError(t, err)
	assert.Equal(t, http.StatusOK, d.Status)
	assert.Equal(t, "free", tier(t, env, reader))
	assert.Equal(t, 1, env.Payments.Invoices())
	again := subscribe(t, env, reader)
	assert.NotEqual(t, sub.ID, again.ID)
}

// A paused subscription is not premium either.
func TestPremium_paused(t *testing.T) {
	env := testenv.New(t)
	reader := env.Signup(t, "prem_paused")
	sub := subscribe(t, env, reader)
	_, err := env.Payments.SetStatus(t.Context(), sub.ID, "paused")
	require.NoError(t, err)
	assert.Equal(t, "free", tier(t, env, reader))
	assert.Equal(t, "ended", env.Item(t, dynamo.PremiumKey(reader.ID))["status"])
	assert.Equal(t, "canceled", subscription(t, env, sub.ID).Status)
}

// A checkout completed over a tier an operator set while it was open
// (bookstore) keeps that tier: the subscription is recorded, and stops
// renewing (the period paid is the one charge); its end leaves the tier.
func TestPremium_completedOverAnotherTier(t *testing.T) {
	env := testenv.New(t)
	reader := env.Signup(t, "prem_over")
	cs := checkout(t, env, reader)
	env.SetTier(t, reader, users.TierBookstore)
	_, err := env.Payments.PayCheckout(t.Context(), cs, "pm_card_visa")
	require.NoError(t, err)
	assert.Equal(t, "bookstore", tier(t, env, reader), "the operator's tier is kept")
	rec := env.Item(t, dynamo.PremiumKey(reader.ID))
	assert.Equal(t, "canceling", rec["status"])
	sub := env.Payments.Subscriptions()[0]
	assert.Equal(t, sub.ID, rec["subscriptionId"])
	assert.True(t, sub.CancelAtPeriodEnd, "it does not renew")
	res := env.Do("POST", "/v1/billing/premium/confirm", map[string]any{"checkoutSessionId": cs}, reader.Token)
	require.Equal(t, http.StatusOK, res.Status, "%s", res)
	assert.Equal(t, "canceling", res.JSON["status"])
	_, err = env.Payments.EndPeriod(t.Context(), sub.ID)
	require.NoError(t, err)
	assert.Equal(t, "bookstore", tier(t, env, reader))
	assert.Equal(t, 1, env.Payments.Invoices())
}

// The upgrade's tier write is conditional on the tier being free still:
// a tier set between the read and the write is kept, and nothing is
// recorded (the service reads again).
func TestActivate_theTierWriteIsConditional(t *testing.T) {
	env := testenv.New(t)
	store := dynamo.NewBilling(env.App.Table)
	for _, to := range []users.Tier{users.TierBookstore, users.TierPremium} {
		a := env.Signup(t, "act_"+string(to))
		env.SetTier(t, a, to)
		sub := payments.Subscription{ID: "sub_act" + string(to), UserID: a.ID, Status: "active", CurrentPeriodEnd: time.Now().AddDate(0, 1, 0)}
		err := store.Activate(t.Context(), a.ID, "cs_test_activate0000", sub, true, time.Now())
		require.ErrorIs(t, err, billing.ErrTierChanged, to)
		assert.Equal(t, string(to), tier(t, env, a))
		assert.Nil(t, env.Item(t, dynamo.PremiumKey(a.ID)), "nothing recorded")
	}
}

// The end's downgrade is conditional on the tier being premium still: a
// tier set between the read and the write is kept, and the end is not
// taken for a replay (ErrTierChanged, not ErrChanged: the service reads
// again).
func TestEnd_theTierWriteIsConditional(t *testing.T) {
	env := testenv.New(t)
	reader := env.Signup(t, "end_cond")
	sub := subscribe(t, env, reader)
	env.SetTier(t, reader, users.TierBookstore)
	store := dynamo.NewBilling(env.App.Table)
	err := store.End(t.Context(), reader.ID, sub.ID, true, time.Now())
	require.ErrorIs(t, err, billing.ErrTierChanged)
	assert.Equal(t, "active", env.Item(t, dynamo.PremiumKey(reader.ID))["status"], "nothing written")
	require.NoError(t, store.End(t.Context(), reader.ID, sub.ID, false, time.Now()))
	assert.Equal(t, "bookstore", tier(t, env, reader))
	assert.Equal(t, "ended", env.Item(t, dynamo.PremiumKey(reader.ID))["status"])
	assert.ErrorIs(t, store.End(t.Context(), reader.ID, sub.ID, false, time.Now()), billing.ErrChanged, "a replay")
}

// A premium an operator gave while the checkout was open is theirs, not
// the subscription's: the subscription paid after it is recorded
// without the upgrade (leavesTier) and stops renewing, and its end
// leaves the account premium.
func TestPremium_anOperatorsPremiumOutlivesTheSubscription(t *testing.T) {
	env := testenv.New(t)
	reader := env.Signup(t, "prem_opgift")
	cs := checkout(t, env, reader)
	env.SetTier(t, reader, users.TierPremium)
	_, err := env.Payments.PayCheckout(t.Context(), cs, "pm_card_visa")
	require.NoError(t, err)
	rec := env.Item(t, dynamo.PremiumKey(reader.ID))
	assert.Equal(t, "canceling", rec["status"])
	assert.Equal(t, true, rec["leavesTier"])
	sub := env.Payments.Subscriptions()[0]
	d, err := env.Payments.EndPeriod(t.Context(), sub.ID)
	require.NoError(t, err)
	assert.Equal(t, http.StatusOK, d.Status, "%+v", d)
	assert.Equal(t, "ended", env.Item(t, dynamo.PremiumKey(reader.ID))["status"])
	assert.Equal(t, "premium", tier(t, env, reader), "the operator's premium is kept")
}

// An unpaid (or paused) event delivered after the subscription was paid
// again is stale: the service reads the subscription from the provider,
// which says active, and cancels nothing; the account stays premium.
func TestPremium_aStaleUnpaidEventCancelsNothing(t *testing.T) {
	env := testenv.New(t)
	reader := env.Signup(t, "prem_stale")
	sub := subscribe(t, env, reader)
	for _, status := range []string{"unpaid", "paused"} {
		d, err := env.Payments.SendSubscriptionAs(t.Context(), "customer.subscription.updated", sub.ID, status)
		require.NoError(t, err)
		assert.Equal(t, http.StatusOK, d.Status, "%+v", d)
		assert.Equal(t, "active", subscription(t, env, sub.ID).Status, "%s: not cancelled at the provider", status)
		assert.Equal(t, "active", env.Item(t, dynamo.PremiumKey(reader.ID))["status"])
		assert.Equal(t, "premium", tier(t, env, reader))
	}
}
