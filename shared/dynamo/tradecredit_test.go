package dynamo_test

import (
	"context"
	"errors"
	"testing"
	"time"

	"github.com/bookplatform/backend/local/testenv"
	"github.com/bookplatform/backend/shared/dynamo"
	"github.com/bookplatform/backend/shared/ids"
	"github.com/bookplatform/backend/shared/page"
	"github.com/bookplatform/backend/shared/tradecredit"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func creditEntry(storeID, customerID string, amount int64, at time.Time) tradecredit.Entry {
	kind := tradecredit.Grant
	if amount < 0 {
		kind = tradecredit.Sale
	}
	return tradecredit.Entry{ID: ids.New(), StoreID: storeID, CustomerUserID: customerID, Kind: kind, AmountCents: amount,
		Reason: "test", ActorUserID: ids.New(), CreatedAt: at}
}

// addChange: a spend beyond the balance adds nothing to the transaction
// and names the balance; two changes built from one read cannot both
// commit (the balance's version, or its absence, is the condition), and
// the loser wrote nothing.
func TestTradeCredit_AddChange(t *testing.T) {
	env := testenv.New(t)
	ctx := context.Background()
	credit := dynamo.NewTradeCredit(env.App.Table)
	storeID, customerID := ids.New(), ids.New()
	t0 := time.Date(2026, 11, 2, 10, 0, 0, 0, time.UTC)

	t.Run("the first entries race on an absent balance: one commits", func(t *testing.T) {
		prev, err := credit.ReadCreditBalance(ctx, storeID, customerID)
		require.NoError(t, err)
		assert.Zero(t, prev.Version)
		first, n, run1, err := credit.AddCreditChange(prev, creditEntry(storeID, customerID, 1000, t0))
		require.NoError(t, err)
		assert.Equal(t, 2, n, "the balance's put and the entry's")
		assert.EqualValues(t, 1000, first.BalanceCents)
		_, _, run2, err := credit.AddCreditChange(prev, creditEntry(storeID, customerID, 500, t0))
		require.NoError(t, err)
		require.NoError(t, run1(ctx))
		assert.ErrorIs(t, run2(ctx), dynamo.ErrCreditMoved)
		b, err := credit.Balance(ctx, storeID, customerID)
		require.NoError(t, err)
		assert.EqualValues(t, 1000, b.BalanceCents)
	})

	t.Run("a change from a stale read fails its version condition", func(t *testing.T) {
		prev, err := credit.ReadCreditBalance(ctx, storeID, customerID)
		require.NoError(t, err)
		assert.Equal(t, 1, prev.Version)
		_, _, run1, err := credit.AddCreditChange(prev, creditEntry(storeID, customerID, -300, t0.Add(time.Minute)))
		require.NoError(t, err)
		_, _, run2, err := credit.AddCreditChange(prev, creditEntry(storeID, customerID, -800, t0.Add(time.Minute)))
		require.NoError(t, err)
		require.NoError(t, run1(ctx))
		assert.ErrorIs(t, run2(ctx), dynamo.ErrCreditMoved, "-800 from the 1000 it read: the balance is 700 now")
		b, p, err := credit.Ledger(ctx, storeID, customerID, page.First(10))
		require.NoError(t, err)
		assert.EqualValues(t, 700, b.BalanceCents)
		require.Len(t, p.Items, 2, "the loser's entry was not written")
		assert.EqualValues(t, []int64{700, 1000}, []int64{p.Items[0].BalanceCents, p.Items[1].BalanceCents})
	})

	t.Run("beyond the balance: ErrInsufficient naming it, nothing added", func(t *testing.T) {
		prev, err := credit.ReadCreditBalance(ctx, storeID, customerID)
		require.NoError(t, err)
		_, n, _, err := credit.AddCreditChange(prev, creditEntry(storeID, customerID, -701, t0.Add(2*time.Minute)))
		require.ErrorIs(t, err, tradecredit.ErrInsufficient)
		var ie *tradecredit.InsufficientError
		require.True(t, errors.As(err, &ie))
		assert.EqualValues(t, 700, ie.BalanceCents)
		assert.Zero(t, n, "nothing added to the transaction")
		// Exactly the balance is allowed.
		out, _, run, err := credit.AddCreditChange(prev, creditEntry(storeID, customerID, -700, t0.Add(2*time.Minute)))
		require.NoError(t, err)
		require.NoError(t, run(ctx))
		assert.EqualValues(t, 0, out.BalanceCents)
	})

	t.Run("an entry's time is never before the one before it", func(t *testing.T) {
		prev, err := credit.ReadCreditBalance(ctx, storeID, customerID)
		require.NoError(t, err)
		out, _, run, err := credit.AddCreditChange(prev, creditEntry(storeID, customerID, 50, t0))
		require.NoError(t, err)
		require.NoError(t, run(ctx))
		assert.Equal(t, t0.Add(2*time.Minute), out.CreatedAt, "the clerk's clock was behind: the previous entry's time")
	})
}

// Change: an unknown customer is refused in the transaction, nothing
// written; a change that raced another retries from a fresh read.
func TestTradeCredit_Change(t *testing.T) {
	env := testenv.New(t)
	ctx := context.Background()
	credit := dynamo.NewTradeCredit(env.App.Table)
	storeID := ids.New()
	reader := env.Signup(t, "credit_change_reader")
	now := time.Now().UTC()

	nobody := ids.New()
	_, err := credit.Change(ctx, creditEntry(storeID, nobody, 100, now))
	require.ErrorIs(t, err, tradecredit.ErrNoCustomer)
	assert.Nil(t, env.Item(t, dynamo.TradeCreditBalanceKey(storeID, nobody)))
	_, _, err = credit.Ledger(ctx, storeID, nobody, page.First(10))
	assert.ErrorIs(t, err, tradecredit.ErrNoCustomer)

	// A change committed between a grant's read and its write: the
	// grant's first attempt loses and the second lands on top.
	prev, err := credit.ReadCreditBalance(ctx, storeID, reader.ID)
	require.NoError(t, err)
	_, _, run, err := credit.AddCreditChange(prev, creditEntry(storeID, reader.ID, 400, now))
	require.NoError(t, err)
	require.NoError(t, run(ctx))
	out, err := credit.Change(ctx, creditEntry(storeID, reader.ID, 250, now))
	require.NoError(t, err)
	assert.EqualValues(t, 650, out.BalanceCents)

	_, err = credit.Change(ctx, creditEntry(storeID, reader.ID, -651, now))
	assert.ErrorIs(t, err, tradecredit.ErrInsufficient)
	b, p, err := credit.Ledger(ctx, storeID, reader.ID, page.First(10))
	require.NoError(t, err)
	assert.EqualValues(t, 650, b.BalanceCents)
	assert.Len(t, p.Items, 2)

	// The customer's list: this store's balance, no store item behind it
	// (a store deleted since): listed without a name.
	mine, err := credit.CustomerBalances(ctx, reader.ID, page.First(10))
	require.NoError(t, err)
	require.Len(t, mine.Items, 1)
	assert.EqualValues(t, 650, mine.Items[0].BalanceCents)
	assert.Empty(t, mine.Items[0].StoreName)
}
