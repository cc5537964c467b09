package payments_test

import (
	"bytes"
	"io"
	"net/http"
	"net/http/httptest"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/bookplatform/backend/local/stripelocal"
	"github.com/bookplatform/backend/shared/payments"
)

// A subscription checkout through stripe-go against the stand-in: the
// same idempotency key answers the same session; paying completes it
// with its subscription and sends the signed checkout.session.completed,
// which ParseWebhook reads; cancelling at period end and the end of the
// period delete it, and the deletion's webhook carries the subscription.
func TestSubscriptions_checkoutCancelEnd(t *testing.T) {
	var bodies [][]byte
	var headers []http.Header
	hook := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		b, _ := io.ReadAll(r.Body)
		bodies, headers = append(bodies, b), append(headers, r.Header.Clone())
	}))
	t.Cleanup(hook.Close)
	p, sl := newStripe(t, stripelocal.WithWebhook(hook.URL, ""))
	subs := p.(payments.Subscriptions)
	in := payments.SubscriptionCheckout{UserID: "u1", Product: "Premium", AmountCents: 499, Currency: "usd",
		SuccessURL: "https://app.example/upgrade?session={CHECKOUT_SESSION_ID}", CancelURL: "https://app.example/upgrade", IdempotencyKey: "k1"}
	c, err := subs.StartCheckout(ctx, in)
	require.NoError(t, err)
	again, err := subs.StartCheckout(ctx, in)
	require.NoError(t, err)
	assert.Equal(t, c.ID, again.ID, "the same key, the same session")
	assert.Equal(t, 1, sl.Checkouts())
	assert.True(t, payments.ValidCheckoutID(c.ID), c.ID)
	assert.Equal(t, payments.CheckoutOpen, c.Status)
	assert.False(t, c.Paid)
	assert.Equal(t, "u1", c.UserID)

	_, err = sl.PayCheckout(ctx, c.ID, "pm_card_chargeDeclined")
	require.ErrorIs(t, err, stripelocal.ErrDeclined)
	c, err = subs.GetCheckout(ctx, c.ID)
	require.NoError(t, err)
	assert.Equal(t, payments.CheckoutOpen, c.Status, "a decline leaves it open")

	_, err = sl.PayCheckout(ctx, c.ID, "pm_card_visa")
	require.NoError(t, err)
	c, err = subs.GetCheckout(ctx, c.ID)
	require.NoError(t, err)
	assert.Equal(t, payments.CheckoutComplete, c.Status)
	assert.True(t, c.Paid)
	require.NotNil(t, c.Subscription)
	assert.Equal(t, "active", c.Subscription.Status)
	assert.Equal(t, "u1", c.Subscription.UserID)
	assert.WithinDuration(t, time.Now().AddDate(0, 1, 0), c.Subscription.CurrentPeriodEnd, time.Minute)

	require.Len(t, bodies, 2, "checkout.session.completed, invoice.paid")
	ev, err := p.ParseWebhook(bodies[0], headers[0])
	require.NoError(t, err)
	assert.Equal(t, "checkout.session.completed", ev.Type)
	require.NotNil(t, ev.Checkout)
	assert.Equal(t, c.ID, ev.Checkout.ID)
	assert.True(t, ev.Checkout.Paid)
	_, err = p.ParseWebhook(bytes.Replace(bodies[0], []byte("u1"), []byte("u2"), 1), headers[0])
	assert.ErrorIs(t, err, payments.ErrBadSignature)

	sub, err := subs.CancelAtPeriodEnd(ctx, c.Subscription.ID)
	require.NoError(t, err)
	assert.True(t, sub.CancelAtPeriodEnd)
	assert.Equal(t, "active", sub.Status)
	_, err = sl.EndPeriod(ctx, sub.ID)
	require.NoError(t, err)
	ev, err = p.ParseWebhook(bodies[len(bodies)-1], headers[len(headers)-1])
	require.NoError(t, err)
	assert.Equal(t, "customer.subscription.deleted", ev.Type)
	require.NotNil(t, ev.Subscription)
	assert.True(t, ev.Subscription.Ended())
	assert.Equal(t, "u1", ev.Subscription.UserID)

	_, err = subs.GetCheckout(ctx, "cs_test_nosuchsession000")
	assert.ErrorIs(t, err, payments.ErrNoCheckout)
	_, err = subs.GetCheckout(ctx, "pi_123")
	assert.ErrorIs(t, err, payments.ErrMalformedCheckout)
	_, err = subs.GetSubscription(ctx, "sub_nosuch")
	assert.ErrorIs(t, err, payments.ErrNoSubscription)
	assert.Equal(t, 1, sl.Invoices(), "one charge")
}

// The statuses Stripe moves a subscription to on its own reach the
// webhook (past_due is premium, unpaid is not); Cancel ends it at once,
// and again answers it as it stands.
func TestSubscriptions_statusAndCancel(t *testing.T) {
	var bodies [][]byte
	var headers []http.Header
	hook := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		b, _ := io.ReadAll(r.Body)
		bodies, headers = append(bodies, b), append(headers, r.Header.Clone())
	}))
	t.Cleanup(hook.Close)
	p, sl := newStripe(t, stripelocal.WithWebhook(hook.URL, ""))
	subs := p.(payments.Subscriptions)
	c, err := subs.StartCheckout(ctx, payments.SubscriptionCheckout{UserID: "u1", Product: "Premium", AmountCents: 499, Currency: "usd",
		SuccessURL: "https://app.example/upgrade", CancelURL: "https://app.example/upgrade"})
	require.NoError(t, err)
	_, err = sl.PayCheckout(ctx, c.ID, "pm_card_visa")
	require.NoError(t, err)
	c, err = subs.GetCheckout(ctx, c.ID)
	require.NoError(t, err)
	id := c.Subscription.ID
	assert.True(t, c.Subscription.Premium())

	for _, status := range []string{"past_due", "unpaid"} {
		_, err = sl.SetStatus(ctx, id, status)
		require.NoError(t, err)
		ev, err := p.ParseWebhook(bodies[len(bodies)-1], headers[len(headers)-1])
		require.NoError(t, err)
		assert.Equal(t, "customer.subscription.updated", ev.Type)
		require.NotNil(t, ev.Subscription)
		assert.Equal(t, status, ev.Subscription.Status)
		assert.Equal(t, status == "past_due", ev.Subscription.Premium(), status)
		assert.False(t, ev.Subscription.Ended())
	}
	_, err = sl.SetStatus(ctx, id, "bogus")
	assert.Error(t, err)

	sub, err := subs.Cancel(ctx, id)
	require.NoError(t, err)
	assert.True(t, sub.Ended())
	again, err := subs.Cancel(ctx, id)
	require.NoError(t, err, "a repeat answers the ended subscription")
	assert.Equal(t, "canceled", again.Status)
	_, err = sl.SetStatus(ctx, id, "active")
	assert.ErrorIs(t, err, stripelocal.ErrState)
	_, err = subs.Cancel(ctx, "sub_nosuch")
	assert.ErrorIs(t, err, payments.ErrNoSubscription)
	assert.Equal(t, 1, sl.Invoices())
}
