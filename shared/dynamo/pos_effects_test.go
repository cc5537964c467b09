package dynamo_test

import (
	"context"
	"testing"
	"time"

	"github.com/bookplatform/backend/local/testenv"
	"github.com/bookplatform/backend/shared/dynamo"
	"github.com/bookplatform/backend/shared/ids"
	"github.com/bookplatform/backend/shared/pos"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// A sale joins the shift open when it commits: a shift opened or closed
// between the sale's read of the pointer and its transaction fails the
// transaction (errShiftMoved, the sale built again), and nothing of it
// is counted.
func TestAddSaleEffects_TheShiftOpenAtCommit(t *testing.T) {
	env := testenv.New(t)
	p := dynamo.NewPOS(env.App.Table)
	ctx := context.Background()
	storeID := ids.New()
	at := time.Date(2026, 10, 5, 10, 30, 0, 0, time.UTC)
	sale := func() *pos.Sale {
		return &pos.Sale{ID: ids.New(), StoreID: storeID, PaymentMethod: pos.Cash, SubtotalCents: 1000, TaxCents: 100, TotalCents: 1100,
			Items: []pos.Item{{BookID: ids.New(), Quantity: 1, UnitCents: 1000, Book: pos.Book{Title: "T"}}}, CreatedAt: at}
	}
	counted := func() int64 {
		s, err := p.Summary(ctx, storeID, pos.Period{Start: at.Truncate(time.Hour), End: at.Truncate(time.Hour).Add(time.Hour - 1)})
		require.NoError(t, err)
		return s.Sales
	}

	// None open at the read, one open at the commit.
	s := sale()
	run, err := p.SaleEffectsTx(ctx, s)
	require.NoError(t, err)
	assert.Empty(t, s.ShiftID)
	sh := &pos.Shift{ID: ids.New(), StoreID: storeID, OpenedByUserID: ids.New(), OpenedAt: at, OpeningFloatCents: 500}
	require.NoError(t, p.OpenShift(ctx, sh))
	assert.ErrorIs(t, run(), dynamo.ErrShiftMoved)
	assert.Zero(t, counted(), "a cancelled sale counts nowhere")

	// Open at the read, closed at the commit.
	s = sale()
	run, err = p.SaleEffectsTx(ctx, s)
	require.NoError(t, err)
	assert.Equal(t, sh.ID, s.ShiftID)
	closed, err := p.CloseShift(ctx, sh, pos.Close{ByUserID: sh.OpenedByUserID, At: at.Add(time.Minute), CountedCashCents: 500})
	require.NoError(t, err)
	assert.ErrorIs(t, run(), dynamo.ErrShiftMoved)
	assert.Zero(t, closed.SalesCount)

	// Another shift open at both: the sale is in it.
	next := &pos.Shift{ID: ids.New(), StoreID: storeID, OpenedByUserID: ids.New(), OpenedAt: at.Add(2 * time.Minute)}
	require.NoError(t, p.OpenShift(ctx, next))
	s = sale()
	run, err = p.SaleEffectsTx(ctx, s)
	require.NoError(t, err)
	require.NoError(t, run())
	got, err := p.Shift(ctx, next.ID)
	require.NoError(t, err)
	assert.Equal(t, next.ID, s.ShiftID)
	assert.EqualValues(t, 1, got.SalesCount)
	assert.EqualValues(t, 1100, got.CashSalesCents)
	assert.EqualValues(t, 1, counted())

	// A second shift while one is open: refused.
	err = p.OpenShift(ctx, &pos.Shift{ID: ids.New(), StoreID: storeID, OpenedAt: at})
	assert.ErrorContains(t, err, "open shift")
}
