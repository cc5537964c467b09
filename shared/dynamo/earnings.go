package dynamo

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"time"

	"github.com/bookplatform/backend/shared/earnings"
	"github.com/bookplatform/backend/shared/page"
	"github.com/guregu/dynamo/v2"
)

// Earnings is the store of a store's earnings (earnings.Reader and
// earnings.Storer): its commission records and pool payouts, its totals,
// and the pool's monthly accumulators and run markers. Every change of a
// record adds its amount to the store's totals item in the same
// transaction, so the totals are the lists' sums exactly.
type Earnings struct{ t *table }

// NewEarnings is the earnings store.
func NewEarnings(h Handle) *Earnings { return &Earnings{h.table()} }

// Item types of earnings (data-model.md).
const (
	typeEarnCommission = "AffiliateCommission"
	typeEarnTotals     = "StoreEarnings"
	typeEarnPoolPayout = "PoolPayout"
	typeEarnPoolRun    = "PoolRun"
	typeEarnPoolMonth  = "PoolMonth"
)

// commissionRecord is a commission or a reversal, as the order and
// cancel transactions write it.
type commissionRecord struct {
	PK              string     `dynamo:"PK"`
	SK              string     `dynamo:"SK"`
	Type            string     `dynamo:"type"`
	GSI1PK          string     `dynamo:"GSI1PK"`
	GSI1SK          string     `dynamo:"GSI1SK"`
	GSI2PK          string     `dynamo:"GSI2PK"`
	GSI2SK          string     `dynamo:"GSI2SK"`
	ID              string     `dynamo:"id"`
	StoreID         string     `dynamo:"storeId"`
	OrderID         string     `dynamo:"orderId"`
	OrderNumber     string     `dynamo:"orderNumber"`
	OrderTotalCents int64      `dynamo:"orderTotalCents"`
	OrderCreatedAt  time.Time  `dynamo:"orderCreatedAt"`
	CommissionCents int64      `dynamo:"commissionCents"`
	Status          string     `dynamo:"status"`
	PaidAt          *time.Time `dynamo:"paidAt,omitempty"`
	PaidReference   string     `dynamo:"paidReference,omitempty"`
	CreatedAt       time.Time  `dynamo:"createdAt"`
}

func toCommissionRecord(c earnings.Commission) commissionRecord {
	k := AffiliateCommissionKey(c.StoreID, c.OrderID)
	if c.Reversal {
		k = CommissionReversalKey(c.StoreID, c.OrderID)
	}
	sk := timeIDKey(c.CreatedAt, c.OrderID)
	return commissionRecord{
		PK: k.PK, SK: k.SK, Type: typeEarnCommission,
		GSI1PK: storeCommissions(c.StoreID).pk, GSI1SK: sk,
		GSI2PK: storeCommissionsIn(c.StoreID, string(c.Status)).pk, GSI2SK: sk,
		ID: c.ID, StoreID: c.StoreID, OrderID: c.OrderID, OrderNumber: c.OrderNumber, OrderTotalCents: c.OrderTotalCents,
		OrderCreatedAt: c.OrderCreatedAt.UTC(), CommissionCents: c.CommissionCents, Status: string(c.Status),
		PaidAt: c.PaidAt, PaidReference: c.PaidReference, CreatedAt: c.CreatedAt.UTC(),
	}
}

func (r commissionRecord) commission() earnings.Commission {
	return earnings.Commission{
		ID: r.ID, StoreID: r.StoreID, OrderID: r.OrderID, OrderNumber: r.OrderNumber, OrderTotalCents: r.OrderTotalCents,
		OrderCreatedAt: r.OrderCreatedAt, CommissionCents: r.CommissionCents, Status: earnings.Status(r.Status),
		Reversal: strings.HasSuffix(r.SK, reversalSuffix), PaidAt: r.PaidAt, PaidReference: r.PaidReference, CreatedAt: r.CreatedAt,
	}
}

// totalsRecord is a store's totals (StoreEarningsKey), only ever
// changed by ADD.
type totalsRecord struct {
	AffiliatePendingCents int64 `dynamo:"affiliatePendingCents"`
	AffiliatePaidCents    int64 `dynamo:"affiliatePaidCents"`
	PoolPendingCents      int64 `dynamo:"poolPendingCents"`
	PoolPaidCents         int64 `dynamo:"poolPaidCents"`
}

// poolPayoutRecord is a store's payout of a month.
type poolPayoutRecord struct {
	PK                string     `dynamo:"PK"`
	SK                string     `dynamo:"SK"`
	Type              string     `dynamo:"type"`
	ID                string     `dynamo:"id"`
	StoreID           string     `dynamo:"storeId"`
	PoolMonth         string     `dynamo:"poolMonth"`
	PayoutAmountCents int64      `dynamo:"payoutAmountCents"`
	Status            string     `dynamo:"status"`
	PaidAt            *time.Time `dynamo:"paidAt,omitempty"`
	PaidReference     string     `dynamo:"paidReference,omitempty"`
	CreatedAt         time.Time  `dynamo:"createdAt"`
}

func (r poolPayoutRecord) payout() earnings.PoolPayout {
	return earnings.PoolPayout{ID: r.ID, StoreID: r.StoreID, Month: r.PoolMonth, PayoutAmountCents: r.PayoutAmountCents,
		Status: earnings.Status(r.Status), PaidAt: r.PaidAt, PaidReference: r.PaidReference, CreatedAt: r.CreatedAt}
}

// poolRunRecord marks a month's run complete.
type poolRunRecord struct {
	PK          string    `dynamo:"PK"`
	SK          string    `dynamo:"SK"`
	Type        string    `dynamo:"type"`
	Month       string    `dynamo:"poolMonth"`
	Total       int64     `dynamo:"total"`
	Paid        int64     `dynamo:"paidCents"`
	Payouts     int       `dynamo:"payouts"`
	Existing    int       `dynamo:"existing"`
	Unpaid      int64     `dynamo:"unpaidCents"`
	CompletedAt time.Time `dynamo:"completedAt"`
}

// poolMonthRecord is one of a month's accumulators: the pool (TOTAL,
// poolCents) or a store's sales (STORE#<storeId>, salesCents).
type poolMonthRecord struct {
	SK         string `dynamo:"SK"`
	PoolCents  int64  `dynamo:"poolCents"`
	SalesCents int64  `dynamo:"salesCents"`
}

// Totals reads the store's totals item (strongly consistent); a store
// that never earned has none: zeros.
func (e *Earnings) Totals(ctx context.Context, storeID string) (earnings.Totals, error) {
	var r totalsRecord
	err := e.t.get(StoreEarningsKey(storeID)).Consistent(true).One(ctx, &r)
	if err != nil && !errors.Is(err, dynamo.ErrNotFound) {
		return earnings.Totals{}, fmt.Errorf("get earnings of store %s: %w", storeID, err)
	}
	return earnings.Totals(r), nil
}

// Commissions reads a page of the store's commission records, newest
// first: every record (GSI1) or those in one status (GSI2).
func (e *Earnings) Commissions(ctx context.Context, storeID string, status earnings.Status, c page.Cursor) (page.Page[earnings.Commission], error) {
	l := storeCommissions(storeID)
	if status != "" {
		l = storeCommissionsIn(storeID, string(status))
	}
	return queryMapped(ctx, e.t, l, c, commissionRecord.commission)
}

// PoolPayouts reads a page of the store's pool payouts, latest month
// first.
func (e *Earnings) PoolPayouts(ctx context.Context, storeID string, c page.Cursor) (page.Page[earnings.PoolPayout], error) {
	return queryMapped(ctx, e.t, storePoolPayouts(storeID), c, poolPayoutRecord.payout)
}

// Accrue writes a commission record (pending, or a reversal) with its
// store's totals, in one transaction, and only once. The order
// transactions write their commissions as parts of their own; this
// serves the demo data and the tests. Errors: earnings.ErrChanged when
// the record exists.
func (e *Earnings) Accrue(ctx context.Context, c earnings.Commission) error {
	if c.Status != earnings.Pending {
		return fmt.Errorf("accrue commission of order %s: a record is created pending", c.OrderID)
	}
	if err := accrueIn(e.t.tx(), e.t, c).run(ctx); err != nil {
		return fmt.Errorf("accrue commission of order %s: %w", c.OrderID, err)
	}
	return nil
}

// accrueIn adds a new commission record's writes to x: its Put (only if
// absent; earnings.ErrChanged) and its amount added to the store's
// pending total. The part of a transaction that creates a record, for
// any transaction that does (Accrue; the order transaction's).
func accrueIn(x *tx, t *table, c earnings.Commission) *tx {
	return x.put(t.put(toCommissionRecord(c)).If("attribute_not_exists(PK)"), earnings.ErrChanged).
		update(totalsUpdate(t, c.StoreID).Add("affiliatePendingCents", c.CommissionCents), nil)
}

// Reverse takes back the commission of a cancelled or refunded order,
// as the cancel transaction does as part of its own (this serves the
// tests): a pending commission is deleted and its amount taken from the
// store's pending total; a paid one stays, and a reversal of it, pending
// with the negative amount, nets against the store's next payout.
// Errors: earnings.ErrNotFound, earnings.ErrChanged.
func (e *Earnings) Reverse(ctx context.Context, storeID, orderID string, at time.Time) error {
	k := AffiliateCommissionKey(storeID, orderID)
	r, err := getOne(ctx, e.t, k, func(r commissionRecord) commissionRecord { return r }, earnings.ErrNotFound, "commission of order "+orderID)
	if err != nil {
		return err
	}
	if err := reverseIn(e.t.tx(), e.t, r.commission(), at, earnings.ErrChanged).run(ctx); err != nil {
		return fmt.Errorf("reverse commission of order %s: %w", orderID, err)
	}
	return nil
}

// reverseIn adds the reversal of commission c, as read, to x: a pending
// one is deleted (condition: still pending), a paid one gets its
// reversal record (condition: still paid; the reversal absent), and the
// store's pending total loses its amount either way. The part of a
// transaction that takes a commission back (Reverse; the cancel
// transaction's). changed is what a record that changed since c was read
// means to the caller (earnings.ErrChanged; orders.ErrMoved to a
// cancellation, which reads again).
func reverseIn(x *tx, t *table, c earnings.Commission, at time.Time, changed error) *tx {
	k := AffiliateCommissionKey(c.StoreID, c.OrderID)
	if c.Status == earnings.Pending {
		x.delete(t.del(k).If("$ = ?", "status", string(earnings.Pending)), changed)
	} else {
		rev := c
		rev.ID, rev.Reversal, rev.Status, rev.CommissionCents = earnings.ReversalID(c.OrderID), true, earnings.Pending, -c.CommissionCents
		rev.PaidAt, rev.PaidReference, rev.CreatedAt = nil, "", at
		// An update, not a ConditionCheck, of the paid record (marking
		// when it was reversed): IAM authorizes a ConditionCheck part as
		// dynamodb:ConditionCheckItem, which the functions that cancel
		// (orders, payments) are not granted; UpdateItem they are.
		x.update(t.update(k).Set("reversedAt", at.UTC()).If("$ = ?", "status", string(earnings.Paid)), changed).
			put(t.put(toCommissionRecord(rev)).If("attribute_not_exists(PK)"), changed)
	}
	return x.update(totalsUpdate(t, c.StoreID).Add("affiliatePendingCents", -c.CommissionCents), nil)
}

// AddPoolSales adds an order's figures to its month's accumulators: its
// store's sales and, for an order attributed to no store, its share of
// the pool (negative figures take them back). The order transactions
// add theirs as parts of their own; this serves the demo data and the
// tests.
func (e *Earnings) AddPoolSales(ctx context.Context, month, storeID string, salesCents, poolCents int64) error {
	x := e.t.tx().update(e.t.update(PoolMonthStoreKey(month, storeID)).Add("salesCents", salesCents).
		SetIfNotExists("type", typeEarnPoolMonth), nil)
	if poolCents != 0 {
		x.update(e.t.update(PoolMonthTotalKey(month)).Add("poolCents", poolCents).SetIfNotExists("type", typeEarnPoolMonth), nil)
	}
	if err := x.run(ctx); err != nil {
		return fmt.Errorf("add pool sales of %s: %w", month, err)
	}
	return nil
}

// totals starts the update of a store's totals item.
func (e *Earnings) totals(storeID string) *dynamo.Update { return totalsUpdate(e.t, storeID) }

// totalsUpdate starts the update of a store's totals item: its amounts
// change only by ADD, in the transaction of the record that moves them.
func totalsUpdate(t *table, storeID string) *dynamo.Update {
	return t.update(StoreEarningsKey(storeID)).SetIfNotExists("type", typeEarnTotals)
}

// PoolRunDone reads the month's run marker.
func (e *Earnings) PoolRunDone(ctx context.Context, month string) (bool, error) {
	var r poolRunRecord
	err := e.t.get(PoolRunKey(month)).Consistent(true).One(ctx, &r)
	if errors.Is(err, dynamo.ErrNotFound) {
		return false, nil
	}
	if err != nil {
		return false, fmt.Errorf("get pool run %s: %w", month, err)
	}
	return true, nil
}

// PoolMonth reads the month's accumulators: its pool and each store's
// sales (one Query of the month's partition, page by page).
func (e *Earnings) PoolMonth(ctx context.Context, month string) (int64, []earnings.Weight, error) {
	var pool int64
	var sales []earnings.Weight
	storeSK := PoolMonthStoreKey(month, "").SK
	err := eachPage(ctx, e.t, poolMonth(month), func(_ context.Context, rs []poolMonthRecord) error {
		for _, r := range rs {
			switch {
			case r.SK == PoolMonthTotalKey(month).SK:
				pool = r.PoolCents
			case strings.HasPrefix(r.SK, storeSK):
				sales = append(sales, earnings.Weight{StoreID: strings.TrimPrefix(r.SK, storeSK), SalesCents: r.SalesCents})
			}
		}
		return nil
	})
	if err != nil {
		return 0, nil, fmt.Errorf("read pool %s: %w", month, err)
	}
	return pool, sales, nil
}

// PutPoolPayout writes a store's payout of a month, pending, with its
// totals: one transaction, conditional on the payout being absent (a
// rerun) and the store being live (a deleted store gets nothing, and no
// totals item of a store that no longer exists is created).
func (e *Earnings) PutPoolPayout(ctx context.Context, p earnings.PoolPayout) error {
	k := PoolPayoutKey(p.StoreID, p.Month)
	r := poolPayoutRecord{PK: k.PK, SK: k.SK, Type: typeEarnPoolPayout, ID: p.ID, StoreID: p.StoreID, PoolMonth: p.Month,
		PayoutAmountCents: p.PayoutAmountCents, Status: string(earnings.Pending), CreatedAt: p.CreatedAt.UTC()}
	err := e.t.tx().
		check(e.t.check(StoreKey(p.StoreID)).If(storeLive), earnings.ErrStoreGone).
		put(e.t.put(r).If("attribute_not_exists(PK)"), earnings.ErrPayoutExists).
		update(e.totals(p.StoreID).Add("poolPendingCents", p.PayoutAmountCents), nil).
		run(ctx)
	if err != nil {
		return fmt.Errorf("put pool payout %s: %w", p.ID, err)
	}
	return nil
}

// CompletePoolRun puts the month's run marker.
func (e *Earnings) CompletePoolRun(ctx context.Context, run earnings.Run) error {
	k := PoolRunKey(run.Month)
	var unpaid int64
	for _, s := range run.Unpaid {
		unpaid += s.AmountCents
	}
	r := poolRunRecord{PK: k.PK, SK: k.SK, Type: typeEarnPoolRun, Month: run.Month, Total: run.PoolCents, Paid: run.PaidCents(),
		Payouts: len(run.Created), Existing: run.Existing, Unpaid: unpaid, CompletedAt: run.CompletedAt}
	if err := e.t.put(r).Run(ctx); err != nil {
		return fmt.Errorf("complete pool run %s: %w", run.Month, err)
	}
	return nil
}

// PayableCommission is the order's commission record an operator marks
// paid next: the commission while it is pending, else its pending
// reversal. Errors: earnings.ErrNotFound (no record),
// earnings.ErrAlreadyPaid (none pending).
func (e *Earnings) PayableCommission(ctx context.Context, storeID, orderID string) (earnings.Commission, error) {
	var found *commissionRecord
	for _, k := range []Key{AffiliateCommissionKey(storeID, orderID), CommissionReversalKey(storeID, orderID)} {
		var r commissionRecord
		err := e.t.get(k).Consistent(true).One(ctx, &r)
		if errors.Is(err, dynamo.ErrNotFound) {
			continue
		}
		if err != nil {
			return earnings.Commission{}, fmt.Errorf("get commission of order %s: %w", orderID, err)
		}
		if r.Status == string(earnings.Pending) {
			found = &r
			break
		}
		if found == nil {
			found = &r // paid: reported unless a pending reversal follows
		}
	}
	switch {
	case found == nil:
		return earnings.Commission{}, fmt.Errorf("commission of order %s at store %s: %w", orderID, storeID, earnings.ErrNotFound)
	case found.Status != string(earnings.Pending):
		return earnings.Commission{}, fmt.Errorf("commission of order %s: %w", orderID, earnings.ErrAlreadyPaid)
	}
	return found.commission(), nil
}

// MarkCommissionPaid moves c, a pending record PayableCommission read
// (the commission or its reversal), to paid and its amount from the
// store's pending total to its paid total, in one transaction
// conditional on the record being as read. Errors: earnings.ErrChanged.
func (e *Earnings) MarkCommissionPaid(ctx context.Context, c earnings.Commission, reference string, at time.Time) (earnings.Commission, error) {
	k := AffiliateCommissionKey(c.StoreID, c.OrderID)
	if c.Reversal {
		k = CommissionReversalKey(c.StoreID, c.OrderID)
	}
	at = at.UTC()
	err := e.t.tx().
		update(e.t.update(k).
			Set("status", string(earnings.Paid)).Set("paidAt", at).Set("paidReference", reference).
			Set(AttrGSI2PK, storeCommissionsIn(c.StoreID, string(earnings.Paid)).pk).
			If("$ = ? AND commissionCents = ?", "status", string(earnings.Pending), c.CommissionCents), earnings.ErrChanged).
		update(e.totals(c.StoreID).Add("affiliatePendingCents", -c.CommissionCents).Add("affiliatePaidCents", c.CommissionCents), nil).
		run(ctx)
	if err != nil {
		return earnings.Commission{}, fmt.Errorf("mark commission %s paid: %w", c.ID, err)
	}
	c.Status, c.PaidAt, c.PaidReference = earnings.Paid, &at, reference
	return c, nil
}

// MarkPoolPayoutPaid moves the store's payout of the month to paid and
// its amount from the store's pending total to its paid total, in one
// transaction conditional on the payout being pending. Errors:
// earnings.ErrNotFound, earnings.ErrAlreadyPaid, earnings.ErrChanged.
func (e *Earnings) MarkPoolPayoutPaid(ctx context.Context, storeID, month, reference string, at time.Time) (earnings.PoolPayout, error) {
	k := PoolPayoutKey(storeID, month)
	r, err := getOne(ctx, e.t, k, func(r poolPayoutRecord) poolPayoutRecord { return r }, earnings.ErrNotFound, "pool payout "+month+" of store "+storeID)
	if err != nil {
		return earnings.PoolPayout{}, err
	}
	if r.Status != string(earnings.Pending) {
		return earnings.PoolPayout{}, fmt.Errorf("pool payout %s: %w", r.ID, earnings.ErrAlreadyPaid)
	}
	at = at.UTC()
	err = e.t.tx().
		update(e.t.update(k).Set("status", string(earnings.Paid)).Set("paidAt", at).Set("paidReference", reference).
			If("$ = ? AND payoutAmountCents = ?", "status", string(earnings.Pending), r.PayoutAmountCents), earnings.ErrChanged).
		update(e.totals(storeID).Add("poolPendingCents", -r.PayoutAmountCents).Add("poolPaidCents", r.PayoutAmountCents), nil).
		run(ctx)
	if err != nil {
		return earnings.PoolPayout{}, fmt.Errorf("mark pool payout %s paid: %w", r.ID, err)
	}
	r.Status, r.PaidAt, r.PaidReference = string(earnings.Paid), &at, reference
	return r.payout(), nil
}
