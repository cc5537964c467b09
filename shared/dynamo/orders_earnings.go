package dynamo

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/bookplatform/backend/shared/orders"
	"github.com/guregu/dynamo/v2"
)

// The earnings an order makes, written in the order's own transaction
// and reversed in its cancellation's (the earnings group reads them; its
// pool job and the mark-paid command write the rest): the attributed
// store's affiliate commission with its earnings totals, or the pool
// month's share of an order with no attribution, and every part's sales
// in the pool month (the split's weights).

// Item types of earnings.
const (
	typeCommission    = "AffiliateCommission"
	typeStoreEarnings = "StoreEarnings"
	typePoolMonth     = "PoolMonth"
)

// Commission statuses.
const (
	commissionPending = "pending"
	commissionPaid    = "paid"
)

// commissionItem is a store's commission of one order
// (AffiliateCommissionKey), listed on GSI1 (the store's commissions) and
// GSI2 (by status), newest first.
type commissionItem struct {
	PK              string     `dynamo:"PK"`
	SK              string     `dynamo:"SK"`
	GSI1PK          string     `dynamo:"GSI1PK"`
	GSI1SK          string     `dynamo:"GSI1SK"`
	GSI2PK          string     `dynamo:"GSI2PK"`
	GSI2SK          string     `dynamo:"GSI2SK"`
	Type            string     `dynamo:"type"`
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

// newCommission is o's commission (or, reversal, the negative of a paid
// one, created at).
func newCommission(o *orders.Order, reversal bool, at time.Time) commissionItem {
	k := AffiliateCommissionKey(o.AttributedStoreID, o.ID)
	id, cents := "com_"+o.ID, o.CommissionCents
	if reversal {
		k.SK += "#REVERSAL"
		id, cents = id+"_reversal", -cents
	}
	sk := timeIDKey(at, o.ID)
	return commissionItem{
		PK: k.PK, SK: k.SK, GSI1PK: commissionsPK(o.AttributedStoreID), GSI1SK: sk,
		GSI2PK: commissionsInPK(o.AttributedStoreID, commissionPending), GSI2SK: sk,
		Type: typeCommission, ID: id, StoreID: o.AttributedStoreID, OrderID: o.ID, OrderNumber: o.Number,
		OrderTotalCents: o.TotalCents, OrderCreatedAt: o.CreatedAt.UTC(), CommissionCents: cents,
		Status: commissionPending, CreatedAt: at.UTC(),
	}
}

// PoolMonth is the pool month of an order created at t: YYYY-MM, UTC.
func PoolMonth(t time.Time) string { return t.UTC().Format("2006-01") }

// earningsAdd adds cents to a store's earnings total attr.
func (s *Orders) earningsAdd(storeID, attr string, cents int64) *dynamo.Update {
	return s.t.update(StoreEarningsKey(storeID)).Set("type", typeStoreEarnings).Set("storeId", storeID).Add(attr, cents)
}

// poolAdds adds the pool items of o, signed by sign (1: the order, -1:
// its reversal): the month's total (no attribution) and each part's
// sales.
func (s *Orders) poolAdds(x *tx, o *orders.Order, sign int64) {
	month := PoolMonth(o.CreatedAt)
	if o.AttributedStoreID == "" {
		x.update(s.t.update(PoolMonthTotalKey(month)).Set("type", typePoolMonth).Set("poolMonth", month).
			Add("poolCents", sign*o.PoolCents), nil)
	}
	for _, p := range o.Parts {
		x.update(s.t.update(PoolMonthStoreKey(month, p.StoreID)).Set("type", typePoolMonth).Set("poolMonth", month).
			Set("storeId", p.StoreID).Add("salesCents", sign*p.SubtotalCents), nil)
	}
}

// addEarnings adds o's earnings to its transaction: the attributed
// store's commission (pending) with its affiliatePendingCents, or the
// pool month's share; and each part's sales in the pool month.
func (s *Orders) addEarnings(x *tx, o *orders.Order) {
	if o.AttributedStoreID != "" {
		x.put(s.t.put(newCommission(o, false, o.CreatedAt)).If("attribute_not_exists(PK)"), errCommissionExists).
			update(s.earningsAdd(o.AttributedStoreID, "affiliatePendingCents", o.CommissionCents), nil)
	}
	s.poolAdds(x, o, 1)
}

// errCommissionExists is a commission of an order that has one: order
// ids are random UUIDs.
var errCommissionExists = errors.New("commission of the order exists already")

// reverseEarnings adds to a cancellation's transaction the reversal of
// o's earnings: a pending commission is deleted (conditional on still
// being pending: else the cancellation is read again, orders.ErrMoved)
// with its amount taken off affiliatePendingCents; one paid already
// gets a reversal record (negative, pending: it nets against the next
// payout) added to affiliatePendingCents; the pool's shares are taken
// back. One consistent GetItem of the commission.
func (s *Orders) reverseEarnings(ctx context.Context, x *tx, o *orders.Order) error {
	if o.AttributedStoreID != "" {
		var c commissionItem
		err := s.t.get(AffiliateCommissionKey(o.AttributedStoreID, o.ID)).Consistent(true).One(ctx, &c)
		switch {
		case errors.Is(err, dynamo.ErrNotFound):
		case err != nil:
			return fmt.Errorf("read the commission of order %s: %w", o.ID, err)
		case c.Status == commissionPending:
			x.delete(s.t.del(AffiliateCommissionKey(o.AttributedStoreID, o.ID)).If("$ = ?", "status", commissionPending), orders.ErrMoved).
				update(s.earningsAdd(o.AttributedStoreID, "affiliatePendingCents", -c.CommissionCents), nil)
		default:
			x.put(s.t.put(newCommission(o, true, s.t.now())).If("attribute_not_exists(PK)"), nil).
				update(s.earningsAdd(o.AttributedStoreID, "affiliatePendingCents", -c.CommissionCents), nil)
		}
	}
	s.poolAdds(x, o, -1)
	return nil
}
