package main

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/bookplatform/backend/shared/app"
	"github.com/bookplatform/backend/shared/dynamo"
	"github.com/bookplatform/backend/shared/earnings"
)

// demoCommissions are the demo store's affiliate commissions: orders
// attributed to it (no such orders exist: the records stand alone), the
// first of them paid.
var demoCommissions = []struct {
	orderID  string
	subtotal int64
	daysAgo  int
}{
	{"demo-order-000001", 4597, 40},
	{"demo-order-000002", 2899, 12},
	{"demo-order-000003", 7450, 3},
}

// seedEarnings gives the demo store of owner@example.com something to
// show on its earnings routes: three commissions (the oldest paid) and
// its share of the previous month's pool, split with the other demo
// store by the pool job's own run. Each record is written once (the
// commissions only if absent, the pool's month only if not run yet), so
// a restart changes nothing, and a payout marked paid stays paid.
func seedEarnings(ctx context.Context, a *app.App) error {
	shops := map[string]string{}
	for _, email := range []string{"owner@example.com", "owner2@example.com"} {
		u, err := dynamo.NewUsers(a.Table).GetUserByEmail(ctx, email)
		if err != nil || u.StoreID == "" {
			return fmt.Errorf("demo earnings: the store of %s: %v", email, err)
		}
		shops[email] = u.StoreID
	}
	store := dynamo.NewEarnings(a.Table)
	svc := &earnings.Service{Store: store, Now: a.Now, Logger: a.Logger}
	storeID := shops["owner@example.com"]
	now := a.Now().UTC()
	for i, d := range demoCommissions {
		at := now.AddDate(0, 0, -d.daysAgo).Truncate(time.Second)
		c := earnings.Commission{ID: earnings.CommissionID(d.orderID), StoreID: storeID, OrderID: d.orderID,
			OrderNumber: "BW-" + at.Format("20060102") + "-DEMO0" + string(rune('1'+i)), OrderTotalCents: d.subtotal + 499,
			OrderCreatedAt: at, CommissionCents: earnings.DefaultSettings.Commission(d.subtotal), Status: earnings.Pending, CreatedAt: at}
		err := store.Accrue(ctx, c)
		if errors.Is(err, earnings.ErrChanged) {
			continue // seeded at an earlier start
		}
		if err != nil {
			return fmt.Errorf("demo earnings: %w", err)
		}
		if i == 0 {
			if _, err := svc.MarkCommissionPaid(ctx, storeID, d.orderID, "demo transfer 0001"); err != nil {
				return fmt.Errorf("demo earnings: %w", err)
			}
		}
	}
	month := earnings.PreviousMonth(now)
	done, err := store.PoolRunDone(ctx, month)
	if err != nil || done {
		return err
	}
	pool, _, err := store.PoolMonth(ctx, month)
	if err != nil {
		return fmt.Errorf("demo earnings: %w", err)
	}
	if pool == 0 {
		// The month's sales: 3:1 between the two stores, and a pool of
		// $12.36 from orders attributed to neither.
		if err := store.AddPoolSales(ctx, month, storeID, 45000, 1236); err != nil {
			return fmt.Errorf("demo earnings: %w", err)
		}
		if err := store.AddPoolSales(ctx, month, shops["owner2@example.com"], 15000, 0); err != nil {
			return fmt.Errorf("demo earnings: %w", err)
		}
	}
	if _, err := svc.RunPool(ctx, month); err != nil {
		return fmt.Errorf("demo earnings: %w", err)
	}
	return nil
}
