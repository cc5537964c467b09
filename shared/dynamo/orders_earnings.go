package dynamo

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/bookplatform/backend/shared/earnings"
	"github.com/bookplatform/backend/shared/orders"
	"github.com/guregu/dynamo/v2"
)

// The earnings an order makes, written in the order's own transaction
// and reversed in its cancellation's (the earnings group reads them; its
// pool job and the mark-paid command write the rest): the attributed
// store's affiliate commission with its earnings totals, or the pool
// month's share of an order with no attribution, and every part's sales
// in the pool month (the split's weights).

// commissionOf is o's commission as the earnings group shows it:
// pending, created with the order.
func commissionOf(o *orders.Order) earnings.Commission {
	return earnings.Commission{
		ID: earnings.CommissionID(o.ID), StoreID: o.AttributedStoreID, OrderID: o.ID, OrderNumber: o.Number,
		OrderTotalCents: o.TotalCents, OrderCreatedAt: o.CreatedAt.UTC(), CommissionCents: o.CommissionCents,
		Status: earnings.Pending, CreatedAt: o.CreatedAt.UTC(),
	}
}

// PoolMonth is the pool month of an order created at t: YYYY-MM, UTC.
func PoolMonth(t time.Time) string { return t.UTC().Format("2006-01") }

// poolAdds adds the pool items of o, signed by sign (1: the order, -1:
// its reversal): the month's total (no attribution) and each part's
// sales.
func (s *Orders) poolAdds(x *tx, o *orders.Order, sign int64) {
	month := PoolMonth(o.CreatedAt)
	if o.AttributedStoreID == "" {
		x.update(s.t.update(PoolMonthTotalKey(month)).SetIfNotExists("type", typeEarnPoolMonth).Set("poolMonth", month).
			Add("poolCents", sign*o.PoolCents), nil)
	}
	for _, p := range o.Parts {
		x.update(s.t.update(PoolMonthStoreKey(month, p.StoreID)).SetIfNotExists("type", typeEarnPoolMonth).Set("poolMonth", month).
			Set("storeId", p.StoreID).Add("salesCents", sign*p.SubtotalCents), nil)
	}
}

// addEarnings adds o's earnings to its transaction: the attributed
// store's commission (pending) with its affiliatePendingCents (accrueIn,
// the earnings store's own part), or the pool month's share; and each
// part's sales in the pool month.
func (s *Orders) addEarnings(x *tx, o *orders.Order) {
	if o.AttributedStoreID != "" {
		accrueIn(x, s.t, commissionOf(o))
	}
	s.poolAdds(x, o, 1)
}

// reverseEarnings adds to a cancellation's (or refund's) transaction the
// reversal of o's earnings (reverseIn: a pending commission deleted, a
// paid one netted by a pending reversal record, on condition that it
// has not changed since this read: else orders.ErrMoved, and the
// cancellation is read again) and takes the pool's shares back. One
// consistent GetItem of the commission.
func (s *Orders) reverseEarnings(ctx context.Context, x *tx, o *orders.Order) error {
	if o.AttributedStoreID != "" {
		var r commissionRecord
		err := s.t.get(AffiliateCommissionKey(o.AttributedStoreID, o.ID)).Consistent(true).One(ctx, &r)
		switch {
		case errors.Is(err, dynamo.ErrNotFound):
		case err != nil:
			return fmt.Errorf("read the commission of order %s: %w", o.ID, err)
		default:
			reverseIn(x, s.t, r.commission(), s.t.now(), orders.ErrMoved)
		}
	}
	s.poolAdds(x, o, -1)
	return nil
}
