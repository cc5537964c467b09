package earningsapi

import (
	"net/http"
	"time"

	"github.com/bookplatform/backend/shared/api/userjson"
	"github.com/bookplatform/backend/shared/apperr"
	"github.com/bookplatform/backend/shared/earnings"
	"github.com/bookplatform/backend/shared/httpapi"
	"github.com/bookplatform/backend/shared/page"
)

// amounts is one kind of earnings (spec: { pendingCents, paidCents,
// totalCents }): totalCents is pending and paid together.
type amounts struct {
	PendingCents int64 `json:"pendingCents"`
	PaidCents    int64 `json:"paidCents"`
	TotalCents   int64 `json:"totalCents"`
}

func newAmounts(pending, paid int64) amounts {
	return amounts{PendingCents: pending, PaidCents: paid, TotalCents: pending + paid}
}

// totalsResponse is GET /v1/stores/{slug}/earnings.
type totalsResponse struct {
	Earnings struct {
		AffiliateCommissions amounts `json:"affiliateCommissions"`
		PoolPayouts          amounts `json:"poolPayouts"`
		Total                amounts `json:"total"`
	} `json:"earnings"`
}

// totals serves GET /v1/stores/{slug}/earnings (the owner): the store's
// totals item, one read.
func (h *handler) totals(w http.ResponseWriter, r *http.Request) error {
	t, err := h.earnings.Totals(r.Context(), httpapi.CallerOf(r).Store().ID)
	if err != nil {
		return err
	}
	var res totalsResponse
	res.Earnings.AffiliateCommissions = newAmounts(t.AffiliatePendingCents, t.AffiliatePaidCents)
	res.Earnings.PoolPayouts = newAmounts(t.PoolPendingCents, t.PoolPaidCents)
	res.Earnings.Total = newAmounts(t.AffiliatePendingCents+t.PoolPendingCents, t.AffiliatePaidCents+t.PoolPaidCents)
	return httpapi.JSON(w, http.StatusOK, res)
}

// orderBrief is the order of a commission as the spec shows it.
type orderBrief struct {
	OrderNumber string `json:"orderNumber"`
	TotalCents  int64  `json:"totalCents"`
	CreatedAt   string `json:"createdAt"`
}

// commission is an affiliate commission payout (spec: Payout records);
// a reversal has a negative commissionCents.
type commission struct {
	ID              string     `json:"id"`
	OrderID         string     `json:"orderId"`
	Order           orderBrief `json:"order"`
	CommissionCents int64      `json:"commissionCents"`
	Status          string     `json:"status"`
	PaidAt          *string    `json:"paidAt"`
	CreatedAt       string     `json:"createdAt"`
}

func newCommission(c earnings.Commission) commission {
	return commission{ID: c.ID, OrderID: c.OrderID,
		Order:           orderBrief{OrderNumber: c.OrderNumber, TotalCents: c.OrderTotalCents, CreatedAt: userjson.Time(c.OrderCreatedAt)},
		CommissionCents: c.CommissionCents, Status: string(c.Status), PaidAt: optTime(c.PaidAt), CreatedAt: userjson.Time(c.CreatedAt)}
}

// poolPayout is a pool payout (spec: Payout records).
type poolPayout struct {
	ID                string  `json:"id"`
	PoolMonth         string  `json:"poolMonth"`
	PayoutAmountCents int64   `json:"payoutAmountCents"`
	Status            string  `json:"status"`
	PaidAt            *string `json:"paidAt"`
	CreatedAt         string  `json:"createdAt"`
}

func newPoolPayout(p earnings.PoolPayout) poolPayout {
	return poolPayout{ID: p.ID, PoolMonth: p.Month, PayoutAmountCents: p.PayoutAmountCents, Status: string(p.Status),
		PaidAt: optTime(p.PaidAt), CreatedAt: userjson.Time(p.CreatedAt)}
}

func optTime(t *time.Time) *string {
	if t == nil {
		return nil
	}
	s := userjson.Time(*t)
	return &s
}

// The lists: the spec's { payouts: [...] }, paged by cursor (limit 20 by
// default) with nextCursor and hasMore beside the array.
type commissionList struct {
	Payouts []commission `json:"payouts"`
	httpapi.More
}

type poolPayoutList struct {
	Payouts []poolPayout `json:"payouts"`
	httpapi.More
}

// errStatus refuses a status filter other than pending or paid.
var errStatus = apperr.Validation("status must be pending or paid", map[string]string{"status": "must be pending or paid"})

// commissions serves GET /v1/stores/{slug}/affiliate-commissions (the
// owner).
func (h *handler) commissions(w http.ResponseWriter, r *http.Request) error {
	q := r.URL.Query()
	status := earnings.Status(q.Get("status"))
	if q.Has("status") && !status.Valid() {
		return errStatus
	}
	c, err := httpapi.CursorPage(r)
	if err != nil {
		return err
	}
	p, err := h.earnings.Commissions(r.Context(), httpapi.CallerOf(r).Store().ID, status, c)
	if err != nil {
		return err
	}
	return httpapi.JSON(w, http.StatusOK, commissionList{Payouts: page.Map(p, newCommission).Items, More: httpapi.NewMore(r, p.Next)})
}

// poolPayouts serves GET /v1/stores/{slug}/pool-payouts (the owner).
func (h *handler) poolPayouts(w http.ResponseWriter, r *http.Request) error {
	c, err := httpapi.CursorPage(r)
	if err != nil {
		return err
	}
	p, err := h.earnings.PoolPayouts(r.Context(), httpapi.CallerOf(r).Store().ID, c)
	if err != nil {
		return err
	}
	return httpapi.JSON(w, http.StatusOK, poolPayoutList{Payouts: page.Map(p, newPoolPayout).Items, More: httpapi.NewMore(r, p.Next)})
}
