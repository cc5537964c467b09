package earningsapi_test

import (
	"context"
	"net/http"
	"testing"
	"time"

	"github.com/bookplatform/backend/local/testenv"
	"github.com/bookplatform/backend/shared/dynamo"
	"github.com/bookplatform/backend/shared/earnings"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// totals reads a store's totals item as stored.
func totals(t *testing.T, store *dynamo.Earnings, storeID string) earnings.Totals {
	t.Helper()
	tt, err := store.Totals(context.Background(), storeID)
	require.NoError(t, err)
	return tt
}

func TestPool_RunsOnceAMonthOnceItIsOver(t *testing.T) {
	clock := testenv.NewClock(time.Date(2026, 10, 31, 23, 59, 0, 0, time.UTC))
	env := testenv.New(t, testenv.WithClock(clock))
	a, b, c := env.OpenShop(t, "pool-a", nil), env.OpenShop(t, "pool-b", nil), env.OpenShop(t, "pool-c", nil)
	store := dynamo.NewEarnings(env.App.Table)
	svc := &earnings.Service{Store: store, Now: env.App.Now}
	ctx := context.Background()

	// October: a sold 3 times what b and c did; the pool is 1000 cents.
	require.NoError(t, store.AddPoolSales(ctx, "2026-10", a.ID, 6000, 0))
	require.NoError(t, store.AddPoolSales(ctx, "2026-10", b.ID, 2000, 0))
	require.NoError(t, store.AddPoolSales(ctx, "2026-10", c.ID, 2000, 1000))
	// A cancelled order takes its figures back.
	require.NoError(t, store.AddPoolSales(ctx, "2026-10", c.ID, -1000, -1))
	require.NoError(t, store.AddPoolSales(ctx, "2026-10", c.ID, 1000, 1))

	t.Run("a month not over is refused", func(t *testing.T) {
		for _, m := range []string{"2026-10", "2026-11", "2027-01"} {
			_, err := svc.RunPool(ctx, m)
			assert.ErrorIs(t, err, earnings.ErrMonthNotComplete, m)
		}
		_, err := svc.RunPool(ctx, "2026-1")
		assert.Error(t, err)
		assert.Zero(t, totals(t, store, a.ID), "nothing written")
	})

	clock.Set(time.Date(2026, 11, 1, 2, 0, 0, 0, time.UTC))
	run, err := svc.RunPool(ctx, "2026-10")
	require.NoError(t, err)
	t.Run("split in proportion, to the cent", func(t *testing.T) {
		assert.False(t, run.AlreadyDone)
		assert.EqualValues(t, 1000, run.PoolCents)
		assert.Equal(t, int64(1000), run.PaidCents())
		assert.Equal(t, int64(600), totals(t, store, a.ID).PoolPendingCents)
		assert.Equal(t, int64(200), totals(t, store, b.ID).PoolPendingCents)
		assert.Equal(t, int64(200), totals(t, store, c.ID).PoolPendingCents)
		p := env.Item(t, dynamo.PoolPayoutKey(a.ID, "2026-10"))
		assert.Equal(t, earnings.PoolPayoutID("2026-10", a.ID), p["id"])
		assert.Equal(t, "pending", p["status"])
		assert.NotNil(t, env.Item(t, dynamo.PoolRunKey("2026-10")), "the month is marked run")
	})

	t.Run("run twice, paid once", func(t *testing.T) {
		again, err := svc.RunPool(ctx, "2026-10")
		require.NoError(t, err)
		assert.True(t, again.AlreadyDone)
		assert.Empty(t, again.Created)
		assert.Equal(t, int64(600), totals(t, store, a.ID).PoolPendingCents)

		// A run cut short before its marker: the next one skips what it wrote.
		env.DeleteItem(t, dynamo.PoolRunKey("2026-10"))
		resumed, err := svc.RunPool(ctx, "2026-10")
		require.NoError(t, err)
		assert.False(t, resumed.AlreadyDone)
		assert.Empty(t, resumed.Created)
		assert.Equal(t, 3, resumed.Existing)
		for _, s := range []testenv.Shop{a, b, c} {
			pool := listAll(t, env, "/v1/stores/"+s.Slug+"/pool-payouts", env.Login(t, s.Owner).Token, 20)
			require.Len(t, pool, 1)
			assert.EqualValues(t, totals(t, store, s.ID).PoolPendingCents, pool[0]["payoutAmountCents"])
		}
		assert.Equal(t, int64(600), totals(t, store, a.ID).PoolPendingCents)
	})

	t.Run("a deleted store's share stays unpaid", func(t *testing.T) {
		require.NoError(t, store.AddPoolSales(ctx, "2026-09", a.ID, 100, 0))
		require.NoError(t, store.AddPoolSales(ctx, "2026-09", b.ID, 100, 0))
		require.NoError(t, store.AddPoolSales(ctx, "2026-09", c.ID, 100, 101))
		owner := env.Login(t, b.Owner)
		require.Equal(t, http.StatusOK, env.Do("DELETE", "/v1/stores/"+b.Slug, nil, owner.Token).Status)
		run, err := svc.RunPool(ctx, "2026-09")
		require.NoError(t, err)
		// 101 / 3: 33 each, the two cents left over to the lowest store ids.
		require.Len(t, run.Shares, 3)
		require.Len(t, run.Unpaid, 1)
		assert.Equal(t, b.ID, run.Unpaid[0].StoreID)
		require.Len(t, run.Created, 2)
		assert.Equal(t, int64(101)-run.Unpaid[0].AmountCents, run.PaidCents())
		assert.Equal(t, int64(200), totals(t, store, b.ID).PoolPendingCents, "nothing added for a store that is gone")
		for i, s := range run.Shares {
			want := int64(33)
			if i < 2 {
				want = 34 // the two cents left over: the lowest store ids (equal remainders)
			}
			assert.Equal(t, want, s.AmountCents, "%v", run.Shares)
		}
	})
}

func TestMarkPaid(t *testing.T) {
	clock := testenv.NewClock(time.Date(2026, 10, 5, 12, 0, 0, 0, time.UTC))
	env := testenv.New(t, testenv.WithClock(clock))
	s := env.OpenShop(t, "paid-shop", nil)
	store := dynamo.NewEarnings(env.App.Table)
	svc := &earnings.Service{Store: store, Now: env.App.Now}
	ctx := context.Background()
	c := accrue(t, store, s.ID, "ord-00000a", 20000, clock.Now()) // 1000
	accrue(t, store, s.ID, "ord-00000b", 3000, clock.Now())       // 150
	require.NoError(t, store.AddPoolSales(ctx, "2026-09", s.ID, 500, 77))
	_, err := svc.RunPool(ctx, "2026-09")
	require.NoError(t, err)

	assert.Equal(t, earnings.Totals{AffiliatePendingCents: 1150, PoolPendingCents: 77}, totals(t, store, s.ID))
	paid, err := svc.MarkCommissionPaid(ctx, s.ID, c.OrderID, "transfer 42")
	require.NoError(t, err)
	assert.Equal(t, earnings.Paid, paid.Status)
	assert.Equal(t, "transfer 42", paid.PaidReference)
	assert.Equal(t, earnings.Totals{AffiliatePendingCents: 150, AffiliatePaidCents: 1000, PoolPendingCents: 77}, totals(t, store, s.ID))
	item := env.Item(t, dynamo.AffiliateCommissionKey(s.ID, c.OrderID))
	assert.Equal(t, "paid", item["status"])
	assert.Equal(t, "transfer 42", item["paidReference"])

	_, err = svc.MarkCommissionPaid(ctx, s.ID, c.OrderID, "again")
	assert.ErrorIs(t, err, earnings.ErrAlreadyPaid)
	_, err = svc.MarkCommissionPaid(ctx, s.ID, "ord-unknown", "x")
	assert.ErrorIs(t, err, earnings.ErrNotFound)

	pool, err := svc.MarkPoolPayoutPaid(ctx, s.ID, "2026-09", "transfer 43")
	require.NoError(t, err)
	assert.Equal(t, int64(77), pool.PayoutAmountCents)
	_, err = svc.MarkPoolPayoutPaid(ctx, s.ID, "2026-09", "again")
	assert.ErrorIs(t, err, earnings.ErrAlreadyPaid)
	_, err = svc.MarkPoolPayoutPaid(ctx, s.ID, "2026-08", "x")
	assert.ErrorIs(t, err, earnings.ErrNotFound)
	assert.Equal(t, earnings.Totals{AffiliatePendingCents: 150, AffiliatePaidCents: 1000, PoolPaidCents: 77}, totals(t, store, s.ID))

	// The paid commission's order is refunded: its reversal is pending,
	// and marking the order paid again settles the reversal.
	require.NoError(t, store.Reverse(ctx, s.ID, c.OrderID, clock.Now()))
	assert.Equal(t, earnings.Totals{AffiliatePendingCents: 150 - 1000, AffiliatePaidCents: 1000, PoolPaidCents: 77}, totals(t, store, s.ID))
	rev, err := svc.MarkCommissionPaid(ctx, s.ID, c.OrderID, "clawed back")
	require.NoError(t, err)
	assert.True(t, rev.Reversal)
	assert.Equal(t, earnings.Totals{AffiliatePendingCents: 150, AffiliatePaidCents: 0, PoolPaidCents: 77}, totals(t, store, s.ID))
	_, err = svc.MarkCommissionPaid(ctx, s.ID, c.OrderID, "thrice")
	assert.ErrorIs(t, err, earnings.ErrAlreadyPaid)
	assertReconciles(t, env, s)
}
