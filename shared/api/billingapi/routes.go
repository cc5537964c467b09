// Package billingapi is the billing endpoint group (designed: the spec
// names the premium tier, not how it is bought): a free reader buys
// premium as a monthly subscription on the payment provider's hosted
// checkout (shared/billing), confirms it, reads it and cancels it at the
// end of the paid period. The provider's own word (its signed webhooks)
// arrives at POST /v1/payments/webhook (paymentsapi), which completes and
// ends subscriptions through the same service.
package billingapi

import (
	"net/http"
	"time"

	"github.com/bookplatform/backend/shared/api"
	"github.com/bookplatform/backend/shared/billing"
	"github.com/bookplatform/backend/shared/dynamo"
	"github.com/bookplatform/backend/shared/httpapi"
	"github.com/bookplatform/backend/shared/payments"
	"github.com/bookplatform/backend/shared/secretsmgr"
)

// handler serves the billing group.
type handler struct {
	billing *billing.Service
}

// Service is the billing service over the table with the provider the
// settings configure (nil: payments not configured). The payments
// group's webhook builds its own (paymentsapi), verifying webhooks.
func Service(d api.Deps) *billing.Service {
	p, err := payments.SubscriptionsFromEnv(d.Env, payments.Runtime{Secrets: secretsmgr.NewClient(d.AWS), Logger: d.Logger, Now: d.Now})
	if err != nil {
		p = nil
	}
	return billing.NewService(billing.Deps{Store: dynamo.NewBilling(d.Table), Users: dynamo.NewUsers(d.Table), Provider: p,
		UpgradeURL: d.Config.UpgradeURL, Now: d.Now})
}

// Group is the billing group. Its calls: GetItem of the caller's premium
// record (and of the user, when a checkout completes); UpdateItem of the
// record alone, or in a TransactWriteItems with the user's tier (parts:
// UpdateItem).
func Group(d api.Deps) api.Group {
	h := &handler{billing: Service(d)}
	notConfigured := "payments are not configured on this deployment, or the payment provider is unavailable (retry)."
	return api.Group{
		Name:  "billing",
		Table: []string{"dynamodb:GetItem", "dynamodb:UpdateItem"},
		Routes: []httpapi.Route{
			{Method: http.MethodGet, Path: httpapi.V1("/billing/premium"), Auth: httpapi.AuthBearer, Handler: h.get,
				Doc: httpapi.Doc{Summary: "The caller's premium subscription: none, active, past_due (premium while the provider retries a failed renewal), canceling (premium to currentPeriodEnd) or ended",
					Response: premiumJSON{}}},
			{Method: http.MethodPost, Path: httpapi.V1("/billing/premium/checkout"), Auth: httpapi.AuthBearer, Handler: h.checkout,
				Doc: httpapi.Doc{Summary: "Start buying premium (a monthly subscription): a checkout session on the payment provider's hosted page (url); a session open already is answered again",
					Response: checkoutJSON{}, Status: http.StatusCreated, Errors: []int{409, 503},
					Why: map[int]string{409: "the caller is premium or bookstore already, or holds an active subscription.", 503: notConfigured}}},
			{Method: http.MethodPost, Path: httpapi.V1("/billing/premium/confirm"), Auth: httpapi.AuthBearer, Handler: h.confirm,
				Doc: httpapi.Doc{Summary: "Confirm a paid checkout session: the caller becomes premium (once: a repeat, or the provider's webhook first, answers the same)",
					Body: confirmRequest{}, Response: premiumJSON{}, Errors: []int{400, 404, 503},
					Why: map[int]string{400: "checkoutSessionId is missing or malformed, the session is not paid yet, or it expired unpaid.",
						404: "no such checkout session, or another account's.", 503: notConfigured}}},
			{Method: http.MethodPost, Path: httpapi.V1("/billing/premium/cancel"), Auth: httpapi.AuthBearer, Handler: h.cancel,
				Doc: httpapi.Doc{Summary: "Cancel premium at the end of the paid period: the caller stays premium until currentPeriodEnd, then is free again; cancelling again answers the same",
					Response: premiumJSON{}, Errors: []int{409, 503},
					Why: map[int]string{409: "the caller has no active subscription.", 503: notConfigured}}},
		},
	}
}

// checkoutJSON is a checkout session as the client needs it: where to
// send the buyer.
type checkoutJSON struct {
	CheckoutSessionID string     `json:"checkoutSessionId"`
	URL               string     `json:"url" doc:"the provider's hosted payment page; on the local run the stand-in's, which pays at once with the test card ?pm= (pm_card_visa by default)"`
	Status            string     `json:"status" doc:"open (complete once paid and not yet confirmed)"`
	ExpiresAt         *time.Time `json:"expiresAt"`
	AmountCents       int64      `json:"amountCents" openapi:"integer" doc:"the price of one month"`
	Currency          string     `json:"currency"`
}

// premiumJSON is the caller's subscription.
type premiumJSON struct {
	Status           string     `json:"status" doc:"none, active, past_due (a renewal's payment failed and the provider is retrying it: premium meanwhile), canceling (premium to currentPeriodEnd, not renewing) or ended (also when the provider's retries failed: unpaid)"`
	CurrentPeriodEnd *time.Time `json:"currentPeriodEnd" doc:"the end of the paid period (null: none)"`
	StartedAt        *time.Time `json:"startedAt"`
	CanceledAt       *time.Time `json:"canceledAt" doc:"when the renewal was cancelled"`
	EndedAt          *time.Time `json:"endedAt" doc:"when the subscription ended and the account returned to free"`
}

type confirmRequest struct {
	CheckoutSessionID string `json:"checkoutSessionId"`
}

func newPremiumJSON(p *billing.Premium) premiumJSON {
	return premiumJSON{Status: string(p.Status), CurrentPeriodEnd: p.CurrentPeriodEnd, StartedAt: p.StartedAt, CanceledAt: p.CanceledAt, EndedAt: p.EndedAt}
}

func (h *handler) get(w http.ResponseWriter, r *http.Request) error {
	p, err := h.billing.Get(r.Context(), httpapi.CallerOf(r).ID)
	if err != nil {
		return err
	}
	return httpapi.JSON(w, http.StatusOK, newPremiumJSON(p))
}

func (h *handler) checkout(w http.ResponseWriter, r *http.Request) error {
	c, err := h.billing.Checkout(r.Context(), httpapi.CallerOf(r).User())
	if err != nil {
		return err
	}
	plan := h.billing.Plan()
	out := checkoutJSON{CheckoutSessionID: c.ID, URL: c.URL, Status: string(c.Status), AmountCents: plan.AmountCents, Currency: plan.Currency}
	if !c.ExpiresAt.IsZero() {
		out.ExpiresAt = &c.ExpiresAt
	}
	return httpapi.JSON(w, http.StatusCreated, out)
}

func (h *handler) confirm(w http.ResponseWriter, r *http.Request) error {
	var req confirmRequest
	if err := httpapi.Decode(w, r, &req); err != nil {
		return err
	}
	if !payments.ValidCheckoutID(req.CheckoutSessionID) {
		return payments.ErrMalformedCheckout
	}
	p, err := h.billing.Confirm(r.Context(), httpapi.CallerOf(r).ID, req.CheckoutSessionID)
	if err != nil {
		return err
	}
	return httpapi.JSON(w, http.StatusOK, newPremiumJSON(p))
}

func (h *handler) cancel(w http.ResponseWriter, r *http.Request) error {
	p, err := h.billing.Cancel(r.Context(), httpapi.CallerOf(r).ID)
	if err != nil {
		return err
	}
	return httpapi.JSON(w, http.StatusOK, newPremiumJSON(p))
}
