// Package paymentsapi is the payment provider's webhook receiver: POST
// /v1/payments/webhook, signed by the provider (Stripe-Signature), so a
// checkout completed on the web confirms its order even when the client
// never calls POST /orders/confirm, and a payment that failed or was
// canceled cancels its pending order (stock back). It is its own group:
// the provider calls it with no token, and its function holds no
// signing key (api.Group.Keyless).
package paymentsapi

import (
	"errors"
	"io"
	"net/http"

	"github.com/bookplatform/backend/shared/api"
	"github.com/bookplatform/backend/shared/api/ordering"
	"github.com/bookplatform/backend/shared/apperr"
	"github.com/bookplatform/backend/shared/billing"
	"github.com/bookplatform/backend/shared/dynamo"
	"github.com/bookplatform/backend/shared/httpapi"
	"github.com/bookplatform/backend/shared/orders"
	"github.com/bookplatform/backend/shared/payments"
	"github.com/bookplatform/backend/shared/secretsmgr"
)

// handler serves the webhook.
type handler struct {
	orders   *orders.Service
	billing  *billing.Service
	provider payments.Provider
}

// received answers a delivery: the provider retries anything but a 2xx.
type received struct {
	Received bool `json:"received"`
}

// webhookBody documents what the provider posts: one of its event
// objects (Stripe's: id, type, data.object: a PaymentIntent).
type webhookBody struct {
	ID   string         `json:"id"`
	Type string         `json:"type"`
	Data map[string]any `json:"data"`
}

// Group is the payments group. Its calls are the orders service's
// confirmation and cancellation (the orders group's): GetItem of the
// session pointer and the order (and a commission); BatchGetItem of the
// items a cancellation gives stock back to; TransactWriteItems (Puts,
// Updates, a Delete of a pending commission); UpdateItem of postings and
// the payment's status. The premium subscriptions' events (billing):
// GetItem of the premium record and the user, UpdateItem of the record
// alone or in a transaction with the user's tier; an unpaid or paused
// subscription is cancelled at the provider first.
func Group(d api.Deps) api.Group {
	p := ordering.Provider(d, true)
	h := &handler{orders: ordering.Service(d, p), billing: billingService(d), provider: p}
	return api.Group{
		Name: "payments",
		Table: []string{"dynamodb:BatchGetItem", "dynamodb:DeleteItem", "dynamodb:GetItem", "dynamodb:PutItem",
			"dynamodb:UpdateItem"},
		Emits: ordering.Emits,
		Routes: []httpapi.Route{
			{Method: http.MethodPost, Path: httpapi.V1("/payments/webhook"), Auth: httpapi.AuthNone, Unmetered: true, Handler: h.webhook,
				Doc: httpapi.Doc{Summary: "The payment provider's webhook (signed with the Stripe-Signature header): a payment completed confirms its order, one failed or canceled cancels its pending order; a premium checkout completed and paid makes its free user premium; a subscription ended, unpaid (its retries failed) or paused returns them to free (one unpaid or paused is cancelled at the provider), past_due keeps premium while the provider retries; other events are acknowledged and ignored",
					Body: webhookBody{}, Response: received{}, Errors: []int{400, 503},
					Why: map[int]string{400: "the Stripe-Signature header is missing, does not verify or is older than 5 minutes (nothing changes).",
						503: "payments are not configured on this deployment."}}},
		},
	}
}

// errBadSignature answers a delivery whose signature does not verify.
var errBadSignature = apperr.Validation("Invalid webhook signature",
	map[string]string{"Stripe-Signature": "does not verify with the endpoint's secret, or is older than 5 minutes"})

// maxWebhookBytes bounds a delivery (Stripe's events are a few KB).
const maxWebhookBytes = 256 << 10

// webhook serves POST /v1/payments/webhook. Replays are harmless:
// confirming and cancelling are idempotent, and so are completing and
// ending a premium subscription (billing). invoice.paid needs nothing: a
// renewal's new period arrives with customer.subscription.updated.
func (h *handler) webhook(w http.ResponseWriter, r *http.Request) error {
	if h.provider == nil {
		return payments.ErrNotConfigured
	}
	body, err := io.ReadAll(io.LimitReader(r.Body, maxWebhookBytes+1))
	if err != nil {
		return apperr.Validation("Unreadable body", nil)
	}
	if len(body) > maxWebhookBytes {
		return apperr.New(apperr.CodeTooLarge, "Webhook body too large")
	}
	ev, err := h.provider.ParseWebhook(body, r.Header)
	if errors.Is(err, payments.ErrBadSignature) {
		// 400, as Stripe asks of a receiver: the route reads no token,
		// so a 401 would say the wrong thing (and Stripe retries either).
		return errBadSignature
	}
	if err != nil {
		return err
	}
	switch ev.Type {
	case "payment_intent.amount_capturable_updated", "payment_intent.succeeded":
		err = h.orders.PaymentSucceeded(r.Context(), ev.Session.ID)
	case "payment_intent.canceled", "payment_intent.payment_failed":
		err = h.orders.PaymentFailed(r.Context(), ev.Session.ID)
	case "checkout.session.completed", "checkout.session.async_payment_succeeded":
		if ev.Checkout != nil {
			err = h.billing.CheckoutCompleted(r.Context(), *ev.Checkout)
		}
	case "customer.subscription.updated", "customer.subscription.deleted":
		if ev.Subscription != nil {
			err = h.billing.SubscriptionChanged(r.Context(), *ev.Subscription)
		}
	}
	if err != nil {
		return err
	}
	return httpapi.JSON(w, http.StatusOK, received{Received: true})
}

// billingService is the premium subscriptions' service (as the billing
// group builds it, with webhooks verified): built here, not imported
// from billingapi, so this function links no other group.
func billingService(d api.Deps) *billing.Service {
	p, err := payments.SubscriptionsFromEnv(d.Env, payments.Runtime{Secrets: secretsmgr.NewClient(d.AWS), Logger: d.Logger, Now: d.Now, Webhooks: true})
	if err != nil {
		p = nil
	}
	return billing.NewService(billing.Deps{Store: dynamo.NewBilling(d.Table), Users: dynamo.NewUsers(d.Table), Provider: p,
		UpgradeURL: d.Config.UpgradeURL, Now: d.Now})
}
