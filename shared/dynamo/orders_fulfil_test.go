package dynamo_test

import (
	"fmt"
	"testing"
	"time"

	"github.com/bookplatform/backend/local/testenv"
	"github.com/bookplatform/backend/shared/dynamo"
	"github.com/bookplatform/backend/shared/orders"
	"github.com/bookplatform/backend/shared/page"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// nextOf is o moved to status (every part with it) one version on.
func nextOf(o *orders.Order, status orders.Status, at time.Time) *orders.Order {
	n := *o
	n.Status, n.Version, n.UpdatedAt = status, o.Version+1, at
	n.Parts = append([]orders.Part(nil), o.Parts...)
	for k := range n.Parts {
		n.Parts[k].Status = status
	}
	if status == orders.Confirmed {
		n.ConfirmedAt, n.PaymentStatus = &at, orders.PayCaptured
	}
	return &n
}

// The largest order (15 lines from MaxOrderStores stores, every item
// selling out, attributed) is placed, confirmed and cancelled, each in
// one transaction within DynamoDB's 100 items; each store's order
// counts follow its part.
func TestOrders_LargestOrderFitsItsTransactions(t *testing.T) {
	env := testenv.New(t)
	ctx := t.Context()
	st := dynamo.NewOrders(env.App.Table)
	bk := invBooks(t, env)
	var lines []orderLine
	var storeIDs []string
	for i := range orders.MaxOrderStores {
		s := invStore(t, env, fmt.Sprintf("big-order-%d", i))
		storeIDs = append(storeIDs, s)
		n := 1
		if i < 15-orders.MaxOrderStores {
			n = 2
		}
		for b := range n {
			lines = append(lines, orderLine{s, bk[b], stock(t, env, s, bk[b], 1, 1000), 1, 1000})
		}
	}
	require.Len(t, lines, orders.MaxOrderItems)
	now := env.App.Now()
	o := testOrder("user-big", storeIDs[0], now, lines...)
	require.NoError(t, st.Place(ctx, o, orders.StockRead{}))
	for _, s := range storeIDs {
		c := env.Item(t, dynamo.StoreOrderCountsKey(s))
		assert.EqualValues(t, 1, c["all"])
		assert.EqualValues(t, 1, c["pending"])
	}
	confirmed := nextOf(o, orders.Confirmed, now.Add(time.Second))
	require.NoError(t, st.Confirm(ctx, o, confirmed))
	cancelled := nextOf(confirmed, orders.Cancelled, now.Add(2*time.Second))
	skipped, err := st.Cancel(ctx, confirmed, cancelled)
	require.NoError(t, err)
	assert.Empty(t, skipped)
	for _, s := range storeIDs {
		c := env.Item(t, dynamo.StoreOrderCountsKey(s))
		assert.EqualValues(t, 1, c["all"])
		assert.EqualValues(t, 0, c["pending"])
		assert.EqualValues(t, 0, c["confirmed"])
		assert.EqualValues(t, 1, c["cancelled"])
		parts, total, err := st.StoreParts(ctx, s, orders.Cancelled, page.Offset{Limit: 10})
		require.NoError(t, err)
		assert.Equal(t, 1, total)
		require.Len(t, parts, 1)
		assert.Equal(t, o.ID, parts[0].OrderID)
	}
}
