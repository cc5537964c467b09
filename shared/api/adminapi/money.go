package adminapi

import (
	"net/http"
	"strconv"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/bookplatform/backend/shared/api"
	"github.com/bookplatform/backend/shared/api/ordering"
	"github.com/bookplatform/backend/shared/api/userjson"
	"github.com/bookplatform/backend/shared/apperr"
	"github.com/bookplatform/backend/shared/audit"
	"github.com/bookplatform/backend/shared/dynamo"
	"github.com/bookplatform/backend/shared/earnings"
	"github.com/bookplatform/backend/shared/httpapi"
	"github.com/bookplatform/backend/shared/orders"
)

// moneyHandler serves the payouts operators mark paid and the refunds
// they make after delivery (the orders issue's operator acts, which
// local/payouts and local/orders did from a shell before).
type moneyHandler struct {
	a        *auditor
	earnings *earnings.Service
	refunds  *orders.FulfilService
}

// maxReferenceRunes bounds a payout's reference (a transfer's id).
const maxReferenceRunes = 200

// moneyRoutes are the routes of payouts and refunds and the table
// actions their calls make: marking paid reads the record (GetItem,
// consistent) and moves it with its store's totals in one transaction
// (UpdateItems, the audit entry's Put); a refund reads the order and its
// commission (GetItem), the stock of parts not handed over
// (BatchGetItem), and writes the order, its parts, the counts, the
// commission's reversal (a Delete of a pending one, a Put of a paid
// one's reversal), the stock given back and the events (Puts, Updates).
//
// Listing what is owed across stores is not a route: the payout
// records are kept per store (GSI2 by store and status), so a list over
// every store would be a Scan; an operator reads a store's own
// (docs/decisions.md, "What is owed is read per store").
func moneyRoutes(d api.Deps, a *auditor) ([]httpapi.Route, []string) {
	now := d.Now
	if now == nil {
		now = time.Now
	}
	h := &moneyHandler{a: a,
		earnings: &earnings.Service{Store: dynamo.NewEarnings(d.Table), Now: now, Logger: d.Logger},
		refunds: orders.NewFulfilService(orders.FulfilDeps{Store: dynamo.NewOrders(d.Table), Payments: ordering.Provider(d, false),
			Logger: d.Logger, Now: now}),
	}
	why400 := "reference is missing or over " + strconv.Itoa(maxReferenceRunes) + " characters, or reason over 500."
	why403 := "the caller is not an operator."
	return []httpapi.Route{
		{Method: http.MethodPost, Path: httpapi.V1("/admin/stores/{storeId}/payouts/orders/{orderId}/paid"), Auth: httpapi.AuthBearer,
			Role: httpapi.Operator, Handler: h.commissionPaid,
			Doc: httpapi.Doc{Summary: "Record that an order's affiliate commission was paid to its store (or, once it was paid and the order cancelled or refunded, that its reversal was netted), with the payment's reference: the record moves from pending to paid and its amount from the store's pending total to its paid total",
				Body: paidRequest{}, Response: adminCommission{}, Errors: []int{400, 403, 404},
				Why: map[int]string{400: why400 + " Or the record is paid already (nothing changes).", 403: why403,
					404: "the store has no commission record of this order (an unknown store or order, or an order attributed to another store)."}}},
		{Method: http.MethodPost, Path: httpapi.V1("/admin/stores/{storeId}/payouts/pool/{month}/paid"), Auth: httpapi.AuthBearer,
			Role: httpapi.Operator, Handler: h.poolPaid,
			Doc: httpapi.Doc{Summary: "Record that a store's share of a month's pool (YYYY-MM) was paid, with the payment's reference: the payout moves from pending to paid and its amount from the store's pending total to its paid total",
				Body: paidRequest{}, Response: adminPoolPayout{}, Errors: []int{400, 403, 404},
				Why: map[int]string{400: "month is not YYYY-MM, or " + why400 + " Or the payout is paid already (nothing changes).", 403: why403,
					404: "the store has no pool payout of this month (an unknown store, or a month whose pool gave it nothing or has not run)."}}},
		{Method: http.MethodPost, Path: httpapi.V1("/admin/orders/{orderId}/refund"), Auth: httpapi.AuthBearer,
			Role: httpapi.Operator, Idempotent: true, Handler: h.refund,
			Doc: httpapi.Doc{Summary: "Refund an order a store has shipped, handed over or delivered, in full, through the payment provider (once: its idempotency key is the order's): the order and its parts become refunded, its commission or pool share is reversed, and the stock of a part not handed over comes back",
				Body: refundRequest{}, Response: orders.Data{}, Errors: []int{400, 403, 404, 409, 503},
				Why: map[int]string{
					400: "reason is missing or over 500 characters, or amountCents is not the order's totalCents (partial refunds are not supported).",
					403: why403, 404: "no order has this id.",
					409: "the order is refunded already (the provider refunded it once), or no store has handed it over, or it is cancelled or not paid: an order still at its stores is cancelled by its owner instead.",
					503: "payments are not configured on this deployment."}}},
	}, []string{"dynamodb:BatchGetItem", "dynamodb:DeleteItem", "dynamodb:GetItem", "dynamodb:PutItem", "dynamodb:UpdateItem"}
}

// paidRequest is the body of the routes that mark a payout paid.
type paidRequest struct {
	Reference string `json:"reference" doc:"The payment's reference (a transfer's id), kept on the record. Required, at most 200 characters."`
	Reason    string `json:"reason,omitempty" doc:"A note for the audit log; optional, at most 500 characters."`
}

// validate checks the body, and month when it is not "" (the pool
// route's path).
func (p *paidRequest) validate(month string) error {
	var f apperr.Fields
	if month != "" {
		if _, err := earnings.ParseMonth(month); err != nil {
			f.Add("month", "must be a month: YYYY-MM")
		}
	}
	p.Reference, p.Reason = strings.TrimSpace(p.Reference), strings.TrimSpace(p.Reason)
	switch n := utf8.RuneCountInString(p.Reference); {
	case n == 0:
		f.Add("reference", "is required")
	case n > maxReferenceRunes:
		f.Add("reference", "at most "+strconv.Itoa(maxReferenceRunes)+" characters")
	}
	if utf8.RuneCountInString(p.Reason) > orders.MaxReasonRunes {
		f.Add("reason", "at most "+strconv.Itoa(orders.MaxReasonRunes)+" characters")
	}
	return f.Err()
}

// adminCommission is a commission record as the back office shows it:
// the earnings group's fields with its store, its kind and reference.
type adminCommission struct {
	ID              string  `json:"id"`
	StoreID         string  `json:"storeId"`
	OrderID         string  `json:"orderId"`
	OrderNumber     string  `json:"orderNumber"`
	Reversal        bool    `json:"reversal" doc:"The record takes back a paid commission of an order cancelled or refunded since (commissionCents is negative)."`
	CommissionCents int64   `json:"commissionCents"`
	Status          string  `json:"status"`
	PaidAt          *string `json:"paidAt"`
	PaidReference   *string `json:"paidReference"`
	CreatedAt       string  `json:"createdAt"`
}

func newAdminCommission(c earnings.Commission) adminCommission {
	return adminCommission{ID: c.ID, StoreID: c.StoreID, OrderID: c.OrderID, OrderNumber: c.OrderNumber, Reversal: c.Reversal,
		CommissionCents: c.CommissionCents, Status: string(c.Status), PaidAt: optTime(c.PaidAt), PaidReference: optString(c.PaidReference),
		CreatedAt: userjson.Time(c.CreatedAt)}
}

// adminPoolPayout is a pool payout as the back office shows it.
type adminPoolPayout struct {
	ID                string  `json:"id"`
	StoreID           string  `json:"storeId"`
	PoolMonth         string  `json:"poolMonth"`
	PayoutAmountCents int64   `json:"payoutAmountCents"`
	Status            string  `json:"status"`
	PaidAt            *string `json:"paidAt"`
	PaidReference     *string `json:"paidReference"`
	CreatedAt         string  `json:"createdAt"`
}

func newAdminPoolPayout(p earnings.PoolPayout) adminPoolPayout {
	return adminPoolPayout{ID: p.ID, StoreID: p.StoreID, PoolMonth: p.Month, PayoutAmountCents: p.PayoutAmountCents,
		Status: string(p.Status), PaidAt: optTime(p.PaidAt), PaidReference: optString(p.PaidReference), CreatedAt: userjson.Time(p.CreatedAt)}
}

func optTime(t *time.Time) *string {
	if t == nil {
		return nil
	}
	s := userjson.Time(*t)
	return &s
}

func optString(s string) *string {
	if s == "" {
		return nil
	}
	return &s
}

// commissionPaid serves POST .../payouts/orders/{orderId}/paid. The
// record to mark is read first (the commission while pending, else its
// reversal), so that the audit entry's target is the record marked paid;
// the write is conditional on that record being pending still.
func (h *moneyHandler) commissionPaid(w http.ResponseWriter, r *http.Request) error {
	var req paidRequest
	if err := httpapi.Decode(w, r, &req); err != nil {
		return err
	}
	if err := req.validate(""); err != nil {
		return err
	}
	storeID, err := pathID(r, "storeId", earnings.ErrNotFound)
	if err != nil {
		return err
	}
	orderID, err := pathID(r, "orderId", earnings.ErrNotFound)
	if err != nil {
		return err
	}
	c, err := h.earnings.PayableCommission(r.Context(), storeID, orderID)
	if err != nil {
		return err
	}
	kind := "commission"
	if c.Reversal {
		kind = "reversal"
	}
	ctx := h.a.begin(r, audit.Entry{Action: audit.ActionPayoutPaid, TargetType: audit.TargetPayout, TargetID: c.ID, Reason: req.Reason,
		Detail: map[string]string{"kind": kind, "storeId": storeID, "orderId": orderID, "reference": req.Reference}})
	c, err = h.earnings.MarkCommissionPaidOf(ctx, c, req.Reference)
	if err != nil {
		return err
	}
	return httpapi.JSON(w, http.StatusOK, newAdminCommission(c))
}

// poolPaid serves POST .../payouts/pool/{month}/paid.
func (h *moneyHandler) poolPaid(w http.ResponseWriter, r *http.Request) error {
	var req paidRequest
	if err := httpapi.Decode(w, r, &req); err != nil {
		return err
	}
	storeID, err := pathID(r, "storeId", earnings.ErrNotFound)
	if err != nil {
		return err
	}
	month := r.PathValue("month")
	if err := req.validate(month); err != nil {
		return err
	}
	ctx := h.a.begin(r, audit.Entry{Action: audit.ActionPayoutPaid, TargetType: audit.TargetPayout,
		TargetID: earnings.PoolPayoutID(month, storeID), Reason: req.Reason,
		Detail: map[string]string{"kind": "pool", "storeId": storeID, "month": month, "reference": req.Reference}})
	p, err := h.earnings.MarkPoolPayoutPaid(ctx, storeID, month, req.Reference)
	if err != nil {
		return err
	}
	return httpapi.JSON(w, http.StatusOK, newAdminPoolPayout(p))
}

// refundRequest is the body of POST /v1/admin/orders/{orderId}/refund.
type refundRequest struct {
	AmountCents *int64 `json:"amountCents,omitempty" doc:"The amount to refund; when given it must be the order's totalCents (the refund is whole)."`
	Reason      string `json:"reason" doc:"Why the order is refunded: kept as the order's cancellationReason and in the audit log. Required, at most 500 characters."`
}

// refund serves POST /v1/admin/orders/{orderId}/refund. The audit entry
// rides the refund's transaction (the order's move to refunded); the
// provider's refund before it is keyed by the order, so a retry after a
// failed transaction refunds nothing twice.
func (h *moneyHandler) refund(w http.ResponseWriter, r *http.Request) error {
	var req refundRequest
	if err := httpapi.Decode(w, r, &req); err != nil {
		return err
	}
	id, err := pathID(r, "orderId", orders.ErrNotFound)
	if err != nil {
		return err
	}
	detail := map[string]string{}
	if req.AmountCents != nil {
		detail["amountCents"] = strconv.FormatInt(*req.AmountCents, 10)
	}
	ctx := h.a.begin(r, audit.Entry{Action: audit.ActionOrderRefund, TargetType: audit.TargetOrder, TargetID: id,
		Reason: strings.TrimSpace(req.Reason), Detail: detail})
	o, err := h.refunds.RefundHandedOver(ctx, id, req.Reason, req.AmountCents)
	if err != nil {
		return err
	}
	return httpapi.JSON(w, http.StatusOK, orders.DataOf(o))
}
