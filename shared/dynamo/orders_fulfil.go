package dynamo

import (
	"context"
	"errors"
	"fmt"

	"github.com/bookplatform/backend/shared/inventory"
	"github.com/bookplatform/backend/shared/orders"
	"github.com/bookplatform/backend/shared/page"
	"github.com/guregu/dynamo/v2"
	"golang.org/x/sync/errgroup"
)

// The stores' side of orders: a store's parts listed newest first
// (GSI1, GSI2 by part status: the part items' own keys) with the
// store's order counts (StoreOrderCountsKey) for the exact total, each
// moved by the store in one transaction with the order, and an
// operator's refund.

var _ orders.FulfilStorer = (*Orders)(nil)

// typeStoreOrderCounts is a store's order counts.
const typeStoreOrderCounts = "StoreOrderCounts"

// addStoreCounts adds to x the store order counts' moves of the parts
// of next over prev (nil: next is created): for each store whose part is
// new, all and its status +1; for each whose part's status changed, the
// old status −1 and the new +1. Every transaction that creates or moves
// a part calls it (Place, move, Advance), so the counts are exact.
func (s *Orders) addStoreCounts(x *tx, prev, next *orders.Order) {
	for _, p := range next.Parts {
		var before *orders.Part
		if prev != nil {
			before = prev.Part(p.StoreID)
		}
		u := s.t.update(StoreOrderCountsKey(p.StoreID)).Set("type", typeStoreOrderCounts).Set("storeId", p.StoreID)
		switch {
		case before == nil:
			u = u.Add("all", 1).Add(string(p.Status), 1)
		case before.Status != p.Status:
			u = u.Add(string(before.Status), -1).Add(string(p.Status), 1)
		default:
			continue
		}
		x.update(u, nil)
	}
}

func (it partItem) toStorePart() orders.StorePart {
	return orders.StorePart{
		OrderID: it.OrderID, OrderNumber: it.OrderNumber,
		Part: orders.Part{StoreID: it.StoreID, StoreName: it.StoreName, StoreSlug: it.StoreSlug, Fulfilment: orders.Fulfilment(it.Fulfilment),
			Status: orders.Status(it.Status), Tracking: it.Tracking,
			Totals: orders.Totals{SubtotalCents: it.SubtotalCents, ShippingCents: it.ShippingCents, TaxCents: it.TaxCents, TotalCents: it.TotalCents}},
		Items: it.Items, CreatedAt: it.CreatedAt, UpdatedAt: it.UpdatedAt,
	}
}

// StoreParts reads a page of storeID's parts, newest first: the tail of
// one Query of GSI1 (all) or GSI2 (one part status), beside one
// consistent GetItem of the store's order counts for the exact total.
func (s *Orders) StoreParts(ctx context.Context, storeID string, status orders.Status, o page.Offset) ([]orders.StorePart, int, error) {
	l, counter := list{index: GSI1, pk: storeOrdersPK(storeID), desc: true}, "all"
	if status != "" {
		l, counter = list{index: GSI2, pk: storeOrdersInPK(storeID, string(status)), desc: true}, string(status)
	}
	var (
		rows  []partItem
		total int
		g     errgroup.Group
	)
	g.Go(func() (err error) {
		rows, err = queryOffset[partItem](ctx, s.t, l, o)
		return err
	})
	g.Go(func() error {
		var c map[string]int
		err := s.t.get(StoreOrderCountsKey(storeID)).Project(counter).Consistent(true).One(ctx, &c)
		if errors.Is(err, dynamo.ErrNotFound) {
			return nil
		}
		total = c[counter]
		return err
	})
	if err := g.Wait(); err != nil {
		return nil, 0, fmt.Errorf("list the orders of store %s: %w", storeID, err)
	}
	out := make([]orders.StorePart, len(rows))
	for i, row := range rows {
		out[i] = row.toStorePart()
	}
	return out, total, nil
}

// Advance writes next over prev, where storeID's part moved (a store's
// step), in one transaction: the order's put conditional on prev's
// version and status (orders.ErrMoved), that part's put (the others did
// not change), the user's counts when the order's status moved, the
// store's counts and order.updated.
func (s *Orders) Advance(ctx context.Context, prev, next *orders.Order, storeID string) error {
	p := next.Part(storeID)
	if p == nil {
		return fmt.Errorf("advance order %s: %w", next.ID, orders.ErrPartNotFound)
	}
	ev, err := orders.Updated(next)
	if err != nil {
		return err
	}
	x := s.t.tx().
		put(s.t.put(toOrderItem(next)).If("version = ? AND $ = ?", prev.Version, "status", string(prev.Status)), orders.ErrMoved).
		put(s.t.put(toPartItem(next, *p)), nil)
	if prev.Status != next.Status {
		x.update(s.t.update(OrderCountsKey(next.UserID)).Add(string(prev.Status), -1).Add(string(next.Status), 1), nil)
	}
	s.addStoreCounts(x, prev, next)
	x.emit(ev)
	if err := x.run(ctx); err != nil {
		return fmt.Errorf("advance order %s at store %s: %w", next.ID, storeID, err)
	}
	return nil
}

// Refund writes next (refunded) over prev in one transaction: the
// order, its parts and the counts (move), the reversal of its
// commission or pool shares (as a cancellation's) and order.updated.
// The stock of the lines whose part no store handed over (confirmed or
// ready for pickup: the copies are still on its shelf) comes back, as a
// cancellation's; the handed-over parts' copies are with the buyer.
// Errors: orders.ErrMoved.
func (s *Orders) Refund(ctx context.Context, prev, next *orders.Order) error {
	var kept []orders.Item
	for _, it := range prev.Items {
		if p := prev.Part(it.StoreID); p != nil && (p.Status == orders.Confirmed || p.Status == orders.ReadyForPickup || p.Status == orders.Pending) {
			kept = append(kept, it)
		}
	}
	refs := make(map[string]orders.Ref, len(kept))
	for _, it := range kept {
		refs[it.InventoryID] = orders.Ref{StoreID: it.StoreID, BookID: it.BookID}
	}
	for attempt := 1; ; attempt++ {
		rows, err := s.stockRows(ctx, refs)
		if err != nil {
			return err
		}
		x := s.t.tx()
		if err := s.move(x, prev, next); err != nil {
			return err
		}
		cause := inventory.Cause{Kind: inventory.CauseCancel, UserID: prev.UserID, Ref: prev.ID, Reason: "order " + prev.Number + " refunded before its store handed it over"}
		_, flips, err := s.restock(x, rows, kept, next.UpdatedAt, cause)
		if err != nil {
			return err
		}
		if err := s.reverseEarnings(ctx, x, prev); err != nil {
			return err
		}
		err = x.run(ctx)
		if err == nil {
			s.flip(ctx, flips, true)
			return nil
		}
		if !retryable(err) || attempt == stockAttempts {
			return fmt.Errorf("refund order %s: %w", next.ID, err)
		}
		if err := backoff(ctx, attempt); err != nil {
			return err
		}
	}
}
