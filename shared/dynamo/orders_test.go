package dynamo_test

import (
	"errors"
	"fmt"
	"sync"
	"testing"
	"time"

	awsdynamodb "github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"
	"github.com/bookplatform/backend/local/testenv"
	"github.com/bookplatform/backend/shared/dynamo"
	"github.com/bookplatform/backend/shared/ids"
	"github.com/bookplatform/backend/shared/inventory"
	"github.com/bookplatform/backend/shared/orders"
	"github.com/bookplatform/backend/shared/page"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// stock sets storeID's item of bookID to qty copies at price and
// returns its id.
func stock(t *testing.T, env *testenv.Env, storeID, bookID string, qty, price int) string {
	t.Helper()
	res, err := dynamo.NewInventory(env.App.Table).Set(t.Context(), storeID,
		inventory.Stock{BookID: bookID, Quantity: qty, PriceCents: price, Condition: inventory.New},
		inventory.Cause{Kind: inventory.CauseImport, Reason: "test"})
	require.NoError(t, err)
	return res.Item.ID
}

// orderLine is one line of a test order.
type orderLine struct {
	storeID, bookID, itemID string
	qty                     int
	price                   int64
}

// testOrder builds a pending order of lines, one part per store, priced
// with the default pricing and no tax; attributed to attributed ("" none).
func testOrder(userID, attributed string, at time.Time, lines ...orderLine) *orders.Order {
	o := &orders.Order{ID: ids.New(), UserID: userID, Status: orders.Pending, Version: 1, CreatedAt: at, UpdatedAt: at,
		CheckoutSessionID: "pi_" + fmt.Sprintf("%024d", time.Now().UnixNano()), PaymentStatus: orders.PayAuthorized,
		AttributedStoreID: attributed, Address: &orders.Address{Name: "R", AddressLine1: "1 Main St", City: "Portland", State: "OR", PostalCode: "97209", Country: "US", Phone: "555"}}
	o.Number = orders.NewNumber(at)
	var ships []orders.Shipment
	for i, l := range lines {
		o.Items = append(o.Items, orders.Item{ID: fmt.Sprintf("%s-%d", o.ID, i+1), InventoryID: l.itemID, BookID: l.bookID, StoreID: l.storeID,
			Quantity: l.qty, PriceCents: l.price, Condition: "new", Title: "T", Authors: []string{"A"}})
		if o.Part(l.storeID) == nil {
			o.Parts = append(o.Parts, orders.Part{StoreID: l.storeID, StoreName: "S", StoreSlug: "s", Fulfilment: orders.Ship, Status: orders.Pending})
			ships = append(ships, orders.Shipment{Fulfilment: orders.Ship})
		}
		for k := range o.Parts {
			if o.Parts[k].StoreID == l.storeID {
				ships[k].Lines = append(ships[k].Lines, orders.Line{Quantity: int64(l.qty), PriceCents: l.price})
			}
		}
	}
	var each []orders.Totals
	o.Totals, each = orders.DefaultPricing.PriceAll(ships)
	for k := range o.Parts {
		o.Parts[k].Totals = each[k]
	}
	if attributed != "" {
		o.CommissionCents = o.SubtotalCents * 500 / 10_000
	} else {
		o.PoolCents = o.SubtotalCents * 200 / 10_000
	}
	return o
}

func quantity(t *testing.T, env *testenv.Env, storeID, itemID string) int {
	t.Helper()
	it, err := dynamo.NewInventory(env.App.Table).Get(t.Context(), storeID, itemID)
	require.NoError(t, err)
	return it.Quantity
}

func num(v any) int64 {
	f, _ := v.(float64)
	return int64(f)
}

// Placing an order takes its stock in its own transaction: each item's
// quantity, history entry (cause order) and event, a sold-out item's
// store count and postings, the order with its parts, number, session
// pointer, counts, event and pool shares; cancelling gives it all back.
func TestOrders_PlaceAndCancel(t *testing.T) {
	env := testenv.New(t)
	ctx := t.Context()
	st := dynamo.NewOrders(env.App.Table)
	a, b := invStore(t, env, "order-a"), invStore(t, env, "order-b")
	bk := invBooks(t, env)
	itA := stock(t, env, a, bk[0], 3, 1299)
	itB := stock(t, env, b, bk[2], 1, 500)
	_, inStockB := storeCounts(t, env, b)
	require.Equal(t, 1, inStockB)

	refs, err := st.Refs(ctx, []string{itA, itB, "00000000-0000-4000-8000-000000000000"})
	require.NoError(t, err)
	assert.Equal(t, map[string]orders.Ref{itA: {StoreID: a, BookID: bk[0]}, itB: {StoreID: b, BookID: bk[2]}}, refs, "the refs of items made by Set; unknown ids absent")

	now := env.App.Now()
	o := testOrder("user-1", "", now,
		orderLine{a, bk[0], itA, 2, 1299}, orderLine{b, bk[2], itB, 1, 500})
	require.NoError(t, st.Place(ctx, o, orders.StockRead{}))

	assert.Equal(t, 1, quantity(t, env, a, itA))
	assert.Equal(t, 0, quantity(t, env, b, itB))
	_, inStockB = storeCounts(t, env, b)
	assert.Equal(t, 0, inStockB, "the store's in-stock count follows its sold-out item")
	h, err := dynamo.NewInventory(env.App.Table).History(ctx, b, itB, page.First(5))
	require.NoError(t, err)
	assert.Equal(t, inventory.Cause{Kind: inventory.CauseOrder, UserID: "user-1", Ref: o.ID, Reason: "order " + o.Number}, h.Items[0].Cause)
	res, err := dynamo.NewInventory(env.App.Table).List(ctx, b, inventory.ListQuery{Page: page.Offset{Limit: 10}, InStockOnly: true,
		Search: mustSearch(t, "dune")})
	require.NoError(t, err)
	assert.Empty(t, res.Items, "sold out: not in an in-stock search")

	got, err := st.Get(ctx, o.ID)
	require.NoError(t, err)
	assert.Equal(t, o.Number, got.Number)
	assert.Equal(t, o.Items, got.Items)
	assert.Equal(t, o.Parts, got.Parts)
	assert.Equal(t, "555", got.Address.Phone)
	id, err := st.SessionOrder(ctx, o.CheckoutSessionID)
	require.NoError(t, err)
	assert.Equal(t, o.ID, id)
	assert.Equal(t, o.ID, env.Item(t, dynamo.OrderNumberKey(o.Number))["orderId"])
	part := env.Item(t, dynamo.OrderPartKey(o.ID, b))
	assert.Equal(t, "pending", part["status"])
	counts := env.Item(t, dynamo.OrderCountsKey("user-1"))
	assert.Equal(t, int64(1), num(counts["all"]))
	assert.Equal(t, int64(1), num(counts["pending"]))
	month := dynamo.PoolMonth(now)
	assert.Equal(t, o.PoolCents, num(env.Item(t, dynamo.PoolMonthTotalKey(month))["poolCents"]))
	assert.Equal(t, int64(2598), num(env.Item(t, dynamo.PoolMonthStoreKey(month, a))["salesCents"]))
	var created, invUpdates int
	for _, ob := range env.Outbox(t) {
		switch ob.Event.Type {
		case orders.CreatedEvent.Type:
			created++
		case inventory.UpdatedEvent.Type:
			invUpdates++
		}
	}
	assert.Equal(t, 1, created)
	assert.Equal(t, 4, invUpdates, "two items set, two taken by the order")

	list, total, err := st.List(ctx, "user-1", "", page.Offset{Limit: 10})
	require.NoError(t, err)
	assert.Equal(t, 1, total)
	require.Len(t, list, 1)
	assert.Equal(t, 3, list[0].ItemCount)
	assert.Equal(t, o.TotalCents, list[0].TotalCents)

	// Cancel: the stock comes back, with its history and counts.
	next := *o
	cancelled := now.Add(time.Minute)
	next.Status, next.Version, next.UpdatedAt, next.CancelledAt, next.CancellationReason = orders.Cancelled, 2, cancelled, &cancelled, "changed my mind"
	next.Parts = []orders.Part{o.Parts[0], o.Parts[1]}
	next.Parts[0].Status, next.Parts[1].Status = orders.Cancelled, orders.Cancelled
	skipped, err := st.Cancel(ctx, o, &next)
	require.NoError(t, err)
	assert.Empty(t, skipped)
	assert.Equal(t, 3, quantity(t, env, a, itA))
	assert.Equal(t, 1, quantity(t, env, b, itB))
	_, inStockB = storeCounts(t, env, b)
	assert.Equal(t, 1, inStockB)
	h, err = dynamo.NewInventory(env.App.Table).History(ctx, b, itB, page.First(5))
	require.NoError(t, err)
	assert.Equal(t, inventory.CauseCancel, h.Items[0].Cause.Kind)
	res, err = dynamo.NewInventory(env.App.Table).List(ctx, b, inventory.ListQuery{Page: page.Offset{Limit: 10}, InStockOnly: true,
		Search: mustSearch(t, "dune")})
	require.NoError(t, err)
	assert.Len(t, res.Items, 1, "back in stock: its postings say so again")
	counts = env.Item(t, dynamo.OrderCountsKey("user-1"))
	assert.Equal(t, int64(0), num(counts["pending"]))
	assert.Equal(t, int64(1), num(counts["cancelled"]))
	assert.Equal(t, int64(0), num(env.Item(t, dynamo.PoolMonthTotalKey(month))["poolCents"]))
	assert.Equal(t, int64(0), num(env.Item(t, dynamo.PoolMonthStoreKey(month, a))["salesCents"]))
	assert.Equal(t, "cancelled", env.Item(t, dynamo.OrderPartKey(o.ID, a))["status"])

	_, err = st.Cancel(ctx, o, &next)
	assert.ErrorIs(t, err, orders.ErrMoved, "a write from an old read is refused")
	list, total, err = st.List(ctx, "user-1", orders.Cancelled, page.Offset{Limit: 10})
	require.NoError(t, err)
	assert.Equal(t, 1, total)
	assert.Len(t, list, 1)
	list, total, err = st.List(ctx, "user-1", orders.Pending, page.Offset{Limit: 10})
	require.NoError(t, err)
	assert.Equal(t, 0, total)
	assert.Empty(t, list)
}

func mustSearch(t *testing.T, q string) inventory.Search {
	t.Helper()
	s, err := inventory.ParseSearch(q)
	require.NoError(t, err)
	return s
}

// Buyers racing for the last copy: exactly one order.
func TestOrders_RaceForTheLastCopy(t *testing.T) {
	env := testenv.New(t)
	ctx := t.Context()
	st := dynamo.NewOrders(env.App.Table)
	s := invStore(t, env, "race-shop")
	bk := invBooks(t, env)
	it := stock(t, env, s, bk[1], 1, 899)

	const buyers = 6
	errs := make([]error, buyers)
	var wg sync.WaitGroup
	for i := range buyers {
		wg.Add(1)
		go func() {
			defer wg.Done()
			o := testOrder(fmt.Sprintf("buyer-%d", i), "", env.App.Now(), orderLine{s, bk[1], it, 1, 899})
			o.CheckoutSessionID = fmt.Sprintf("pi_race%020d", i)
			errs[i] = st.Place(ctx, o, orders.StockRead{})
		}()
	}
	wg.Wait()
	won := 0
	for _, err := range errs {
		var ue *orders.UnavailableError
		switch {
		case err == nil:
			won++
		case errors.As(err, &ue):
			assert.Equal(t, []string{it}, ue.InventoryIDs)
		default:
			t.Errorf("unexpected error: %v", err)
		}
	}
	assert.Equal(t, 1, won, "exactly one order gets the last copy")
	assert.Equal(t, 0, quantity(t, env, s, it))
	h, err := dynamo.NewInventory(env.App.Table).History(ctx, s, it, page.First(10))
	require.NoError(t, err)
	assert.Len(t, h.Items, 2, "the copy set, then taken once")
}

// A refused order transaction holds nothing: a line short of stock, or
// a number taken, leaves every quantity and no order behind.
func TestOrders_RefusedHoldsNothing(t *testing.T) {
	env := testenv.New(t)
	ctx := t.Context()
	st := dynamo.NewOrders(env.App.Table)
	s := invStore(t, env, "refused-shop")
	bk := invBooks(t, env)
	it1 := stock(t, env, s, bk[0], 5, 1000)
	it2 := stock(t, env, s, bk[1], 1, 1000)

	o := testOrder("user-r", "", env.App.Now(), orderLine{s, bk[0], it1, 2, 1000}, orderLine{s, bk[1], it2, 2, 1000})
	var ue *orders.UnavailableError
	require.ErrorAs(t, st.Place(ctx, o, orders.StockRead{}), &ue)
	assert.Equal(t, []string{it2}, ue.InventoryIDs)

	taken := testOrder("user-r", "", env.App.Now(), orderLine{s, bk[0], it1, 1, 1000})
	require.NoError(t, st.Place(ctx, taken, orders.StockRead{}))
	o2 := testOrder("user-r", "", env.App.Now(), orderLine{s, bk[0], it1, 2, 1000})
	o2.Number = taken.Number
	assert.ErrorIs(t, st.Place(ctx, o2, orders.StockRead{}), orders.ErrNumberTaken)

	assert.Equal(t, 4, quantity(t, env, s, it1), "only the order placed took its copy")
	assert.Equal(t, 1, quantity(t, env, s, it2))
	for _, id := range []string{o.ID, o2.ID} {
		_, err := st.Get(ctx, id)
		assert.ErrorIs(t, err, orders.ErrNotFound)
	}
	assert.Equal(t, int64(1), num(env.Item(t, dynamo.OrderCountsKey("user-r"))["all"]))
}

// An attributed order's commission is pending with the store's
// earnings; cancelling deletes it and takes it off the earnings.
func TestOrders_CommissionAndReversal(t *testing.T) {
	env := testenv.New(t)
	ctx := t.Context()
	st := dynamo.NewOrders(env.App.Table)
	s := invStore(t, env, "commission-shop")
	bk := invBooks(t, env)
	it := stock(t, env, s, bk[3], 4, 2000)
	o := testOrder("user-c", s, env.App.Now(), orderLine{s, bk[3], it, 2, 2000})
	require.NoError(t, st.Place(ctx, o, orders.StockRead{}))
	com := env.Item(t, dynamo.AffiliateCommissionKey(s, o.ID))
	assert.Equal(t, "com_"+o.ID, com["id"])
	assert.Equal(t, int64(200), num(com["commissionCents"]), "5% of 4000")
	assert.Equal(t, "pending", com["status"])
	assert.Equal(t, int64(200), num(env.Item(t, dynamo.StoreEarningsKey(s))["affiliatePendingCents"]))
	assert.Nil(t, env.Item(t, dynamo.PoolMonthTotalKey(dynamo.PoolMonth(o.CreatedAt))), "an attributed order feeds no pool")

	next := *o
	next.Status, next.Version = orders.Cancelled, 2
	next.Parts = []orders.Part{o.Parts[0]}
	next.Parts[0].Status = orders.Cancelled
	_, err := st.Cancel(ctx, o, &next)
	require.NoError(t, err)
	assert.Nil(t, env.Item(t, dynamo.AffiliateCommissionKey(s, o.ID)))
	assert.Equal(t, int64(0), num(env.Item(t, dynamo.StoreEarningsKey(s))["affiliatePendingCents"]))
}

// Every path that creates an item writes its ref: Create, Set and
// SetNew's packs.
func TestInventory_RefsOfEveryCreation(t *testing.T) {
	env := testenv.New(t)
	ctx := t.Context()
	inv := dynamo.NewInventory(env.App.Table)
	s := invStore(t, env, "refs-shop")
	bk := invBooks(t, env)
	cause := inventory.Cause{Kind: inventory.CauseImport, Reason: "test"}
	_, errs := inv.SetNew(ctx, s, []inventory.Stock{
		{BookID: bk[0], Quantity: 1, PriceCents: 100, Condition: inventory.New},
		{BookID: bk[1], Quantity: 2, PriceCents: 100, Condition: inventory.New},
	}, cause)
	require.Equal(t, []error{nil, nil}, errs)
	_, err := inv.Set(ctx, s, inventory.Stock{BookID: bk[2], Quantity: 1, PriceCents: 100, Condition: inventory.New}, cause)
	require.NoError(t, err)
	for _, b := range bk[:3] {
		ref := env.Item(t, dynamo.InventoryRefKey(inventory.ItemID(s, b)))
		require.NotNil(t, ref, "book %s", b)
		assert.Equal(t, s, ref["storeId"])
		assert.Equal(t, b, ref["bookId"])
	}

	// The backfill writes the refs of items that lack one.
	env.DeleteItem(t, dynamo.InventoryRefKey(inventory.ItemID(s, bk[0])))
	n, err := dynamo.NewOrders(env.App.Table).BackfillRefs(ctx)
	require.NoError(t, err)
	assert.GreaterOrEqual(t, n, 3)
	assert.Equal(t, s, env.Item(t, dynamo.InventoryRefKey(inventory.ItemID(s, bk[0])))["storeId"])
}

// Cancelling an order whose commission was paid already puts a negative
// reversal pending against the next payout; an item deleted since the
// order is skipped (its stock is not given back) and named.
func TestOrders_CancelPaidCommissionAndGoneItem(t *testing.T) {
	env := testenv.New(t)
	ctx := t.Context()
	st := dynamo.NewOrders(env.App.Table)
	s := invStore(t, env, "paid-shop")
	bk := invBooks(t, env)
	it1 := stock(t, env, s, bk[0], 2, 3000)
	it2 := stock(t, env, s, bk[1], 2, 1000)
	o := testOrder("user-p", s, env.App.Now(), orderLine{s, bk[0], it1, 1, 3000}, orderLine{s, bk[1], it2, 1, 1000})
	require.NoError(t, st.Place(ctx, o, orders.StockRead{}))
	// The operator paid the commission (the earnings' mark-paid).
	com := env.Item(t, dynamo.AffiliateCommissionKey(s, o.ID))
	com["status"] = "paid"
	env.PutItem(t, com)
	earn := env.Item(t, dynamo.StoreEarningsKey(s))
	earn["affiliatePendingCents"], earn["affiliatePaidCents"] = 0, 200
	env.PutItem(t, earn)
	require.NoError(t, dynamo.NewInventory(env.App.Table).Delete(ctx, s, it2, inventory.Cause{Kind: inventory.CauseDelete, Reason: "gone"}))

	next := *o
	next.Status, next.Version = orders.Cancelled, 2
	next.Parts = []orders.Part{o.Parts[0]}
	next.Parts[0].Status = orders.Cancelled
	skipped, err := st.Cancel(ctx, o, &next)
	require.NoError(t, err)
	assert.Equal(t, []string{it2}, skipped)
	assert.Equal(t, 2, quantity(t, env, s, it1))
	rev := env.Item(t, dynamo.Key{PK: dynamo.AffiliateCommissionKey(s, o.ID).PK, SK: dynamo.AffiliateCommissionKey(s, o.ID).SK + "#REVERSAL"})
	require.NotNil(t, rev)
	assert.Equal(t, int64(-200), num(rev["commissionCents"]))
	assert.Equal(t, "pending", rev["status"])
	assert.Equal(t, "paid", env.Item(t, dynamo.AffiliateCommissionKey(s, o.ID))["status"], "the paid record stays")
	assert.Equal(t, int64(-200), num(env.Item(t, dynamo.StoreEarningsKey(s))["affiliatePendingCents"]), "nets against the next payout")
}

// A sold-out item whose postings still say in stock (their flip after
// the order's commit lost to a crash) is not in an in-stock search: the
// item's own quantity decides.
func TestInventory_SearchDropsSoldOutDespiteStalePostings(t *testing.T) {
	env := testenv.New(t)
	ctx := t.Context()
	s := invStore(t, env, "stale-shop")
	bk := invBooks(t, env)
	it := stock(t, env, s, bk[2], 1, 500)
	require.NoError(t, dynamo.NewOrders(env.App.Table).Place(ctx, testOrder("user-s", "", env.App.Now(), orderLine{s, bk[2], it, 1, 500}), orders.StockRead{}))
	pk := dynamo.InventoryPostingPartition(s, "dune")
	out, err := env.App.Table.DB.Query(ctx, &awsdynamodb.QueryInput{TableName: &env.App.Table.Table, KeyConditionExpression: strPtr("PK = :p"),
		ExpressionAttributeValues: map[string]types.AttributeValue{":p": &types.AttributeValueMemberS{Value: pk}}})
	require.NoError(t, err)
	require.NotEmpty(t, out.Items)
	for _, item := range out.Items {
		item["inStock"] = &types.AttributeValueMemberBOOL{Value: true}
		_, err := env.App.Table.DB.PutItem(ctx, &awsdynamodb.PutItemInput{TableName: &env.App.Table.Table, Item: item})
		require.NoError(t, err)
	}
	res, err := dynamo.NewInventory(env.App.Table).List(ctx, s, inventory.ListQuery{Page: page.Offset{Limit: 10}, InStockOnly: true,
		Search: mustSearch(t, "dune")})
	require.NoError(t, err)
	assert.Empty(t, res.Items)
}

func strPtr(s string) *string { return &s }

// Place writes from the read the order was priced from (no second read
// of the items); an item changed since that read is read again, and
// the order takes its copies from the stock as it is then.
func TestOrders_PlaceFromAStaleRead(t *testing.T) {
	env := testenv.New(t)
	ctx := t.Context()
	st := dynamo.NewOrders(env.App.Table)
	a := invStore(t, env, "stale-read")
	bk := invBooks(t, env)
	it := stock(t, env, a, bk[0], 5, 1299)
	refs, err := st.Refs(ctx, []string{it})
	require.NoError(t, err)
	read, err := st.Stock(ctx, refs)
	require.NoError(t, err)
	require.Equal(t, 5, read.Items[it].Quantity)

	_, _, err = dynamo.NewInventory(env.App.Table).Adjust(ctx, a, it, -1, inventory.Cause{Kind: inventory.CauseAdjust, Reason: "damaged"})
	require.NoError(t, err)
	o := testOrder("user-stale", "", env.App.Now(), orderLine{a, bk[0], it, 2, 1299})
	require.NoError(t, st.Place(ctx, o, read))
	assert.Equal(t, 2, quantity(t, env, a, it), "5, less 1 adjusted, less 2 ordered: the order's write saw the adjustment")
}
