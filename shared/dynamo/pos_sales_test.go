package dynamo_test

import (
	"net/http"
	"testing"
	"time"

	"github.com/bookplatform/backend/local/testenv"
	"github.com/bookplatform/backend/shared/apperr"
	"github.com/bookplatform/backend/shared/books"
	"github.com/bookplatform/backend/shared/dynamo"
	"github.com/bookplatform/backend/shared/ids"
	"github.com/bookplatform/backend/shared/inventory"
	"github.com/bookplatform/backend/shared/page"
	"github.com/bookplatform/backend/shared/pos"
	"github.com/bookplatform/backend/shared/tradecredit"
	"github.com/bookplatform/backend/shared/users"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// A sale's one transaction: the stock taken with its history entry
// (cause pos, ref the sale), the credit spent, the number claimed, the
// sale stored whole (Get gives back what Sell made).
func TestPOS_SellWritesItsTransaction(t *testing.T) {
	env := testenv.New(t)
	ctx := t.Context()
	owner := env.Signup(t, "pos_owner")
	env.SetTier(t, owner, users.TierBookstore)
	res := env.Do("POST", "/v1/stores", map[string]any{"name": "Corner Books", "slug": "corner-books", "addressLine1": "1 Main St",
		"city": "Portland", "state": "OR", "postalCode": "97209", "country": "US", "taxRate": 0.05}, owner.Token)
	require.Equal(t, http.StatusCreated, res.Status, "%s", res)
	storeID := res.JSON["id"].(string)
	bookIDs := env.ImportBooks(t, books.Record{Title: "Dune", Authors: []string{"Frank Herbert"}, ISBN: "9780441172719"})
	itemID := stock(t, env, storeID, bookIDs[0], 3, 1000)
	customer := env.Signup(t, "pos_customer")
	credit := dynamo.NewTradeCredit(env.App.Table)
	_, err := credit.Change(ctx, tradecredit.Entry{ID: ids.New(), StoreID: storeID, CustomerUserID: customer.ID, Kind: tradecredit.Grant,
		AmountCents: 500, Reason: "traded in", ActorUserID: owner.ID, CreatedAt: time.Now()})
	require.NoError(t, err)

	used := false
	req := pos.SaleRequest{StoreID: storeID, CustomerUserID: customer.ID, PaymentMethod: pos.Mixed, TradeCreditAppliedCents: 400,
		Items: []pos.ItemRequest{
			{BookID: bookIDs[0], InventoryID: itemID, Quantity: 3, UnitPriceCents: 1000, IsUsed: &used},
			{Custom: &pos.CustomItem{Title: "Bookmark"}, Quantity: 1, UnitPriceCents: 200, IsUsed: &used},
		}}
	require.NoError(t, req.Validate())
	p := dynamo.NewPOS(env.App.Table)
	s, err := p.Sell(ctx, &req, owner.ID, time.Now)
	require.NoError(t, err)
	assert.Equal(t, int64(3200), s.SubtotalCents)
	assert.Equal(t, int64(160), s.TaxCents)
	assert.Equal(t, int64(2960), s.TotalCents)
	assert.Equal(t, customer.ID, s.Customer.ID)
	assert.Equal(t, customer.Email, s.Customer.Email)

	got, err := p.Get(ctx, s.ID)
	require.NoError(t, err)
	assert.Equal(t, s, got)

	inv := dynamo.NewInventory(env.App.Table)
	it, err := inv.Get(ctx, storeID, itemID)
	require.NoError(t, err)
	assert.Equal(t, 0, it.Quantity)
	h, err := inv.History(ctx, storeID, itemID, page.First(5))
	require.NoError(t, err)
	require.NotEmpty(t, h.Items)
	assert.Equal(t, inventory.Cause{Kind: inventory.CauseSale, UserID: owner.ID, Ref: s.ID, Reason: "sale " + s.Number}, h.Items[0].Cause)
	assert.Equal(t, -3, h.Items[0].Delta)

	b, err := credit.Balance(ctx, storeID, customer.ID)
	require.NoError(t, err)
	assert.Equal(t, int64(100), b.BalanceCents)
	assert.Equal(t, s.ID, env.Item(t, dynamo.POSSaleNumberKey(s.Number))["saleId"])

	// The list: the store's, and the staff member's.
	l, err := p.List(ctx, pos.ListFilter{StoreID: storeID, StaffUserID: owner.ID}, page.First(10))
	require.NoError(t, err)
	require.Len(t, l.Items, 1)
	assert.Equal(t, s, l.Items[0])
	l, err = p.List(ctx, pos.ListFilter{StoreID: storeID, From: s.CreatedAt.Add(time.Nanosecond)}, page.First(10))
	require.NoError(t, err)
	assert.Empty(t, l.Items, "the range starts after the sale")
	l, err = p.List(ctx, pos.ListFilter{StoreID: storeID, From: s.CreatedAt, To: s.CreatedAt}, page.First(10))
	require.NoError(t, err)
	assert.Len(t, l.Items, 1, "both ends inclusive")
}

// A sale that loses every attempt (here the store's open-shift pointer
// names a shift that is not open, so each transaction's shift condition
// fails) ends as apperr.ErrContention, the 503 the client may retry, and
// not as the last attempt's internal error (a 500).
func TestPOS_SellExhaustedIsContention(t *testing.T) {
	env := testenv.New(t)
	owner := env.Signup(t, "pos_owner2")
	env.SetTier(t, owner, users.TierBookstore)
	res := env.Do("POST", "/v1/stores", map[string]any{"name": "Corner Books", "slug": "corner-books", "addressLine1": "1 Main St",
		"city": "Portland", "state": "OR", "postalCode": "97209", "country": "US", "taxRate": 0.05}, owner.Token)
	require.Equal(t, http.StatusCreated, res.Status, "%s", res)
	storeID := res.JSON["id"].(string)
	k := dynamo.POSOpenShiftKey(storeID)
	env.PutItem(t, map[string]any{"PK": k.PK, "SK": k.SK, "type": "PosOpenShift", "shiftId": ids.New(), "storeId": storeID})

	used := false
	req := pos.SaleRequest{StoreID: storeID, PaymentMethod: pos.Cash,
		Items: []pos.ItemRequest{{Custom: &pos.CustomItem{Title: "Bookmark"}, Quantity: 1, UnitPriceCents: 200, IsUsed: &used}}}
	require.NoError(t, req.Validate())
	_, err := dynamo.NewPOS(env.App.Table).Sell(t.Context(), &req, owner.ID, time.Now)
	require.ErrorIs(t, err, apperr.ErrContention)
}
