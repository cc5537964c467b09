package dynamo_test

import (
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/bookplatform/backend/local/testenv"
	"github.com/bookplatform/backend/shared/books"
	"github.com/bookplatform/backend/shared/dynamo"
	"github.com/bookplatform/backend/shared/inventory"
	"github.com/bookplatform/backend/shared/page"
	"github.com/bookplatform/backend/shared/stores"
	"github.com/bookplatform/backend/shared/users"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// invStore opens a store through the API and returns its id.
func invStore(t *testing.T, env *testenv.Env, slug string) string {
	t.Helper()
	owner := env.Signup(t, "o"+strings.ReplaceAll(slug, "-", "_"))
	env.SetTier(t, owner, users.TierBookstore)
	res := env.Do("POST", "/v1/stores", map[string]any{
		"name": "Stock " + slug, "slug": slug, "addressLine1": "1005 W Burnside St", "city": "Portland", "state": "OR",
		"postalCode": "97209", "country": "US",
	}, owner.Token)
	require.Equal(t, http.StatusCreated, res.Status, "%s", res)
	return res.JSON["id"].(string)
}

// invBooks imports a few books: titles chosen to share words.
func invBooks(t *testing.T, env *testenv.Env) []string {
	t.Helper()
	return env.ImportBooks(t,
		books.Record{Title: "The Left Hand of Darkness", Authors: []string{"Ursula K. Le Guin"}, ISBN: "9780441478125"},
		books.Record{Title: "A Wizard of Earthsea", Authors: []string{"Ursula K. Le Guin"}, ISBN: "9780547773742"},
		books.Record{Title: "Dune", Authors: []string{"Frank Herbert"}, ISBN: "9780441172719"},
		books.Record{Title: "The Hobbit", Authors: []string{"J. R. R. Tolkien"}, ISBN: "9780547928227"},
	)
}

func storeCounts(t *testing.T, env *testenv.Env, storeID string) (items, inStock int) {
	t.Helper()
	it := env.Item(t, dynamo.StoreKey(storeID))
	n := func(v any) int {
		f, _ := v.(float64)
		return int(f)
	}
	return n(it["inventoryCount"]), n(it["inStockCount"])
}

func eventsOfType(env *testenv.Env, t *testing.T) []map[string]any {
	var out []map[string]any
	for _, o := range env.Outbox(t) {
		if o.Event.Type == inventory.UpdatedEvent.Type {
			out = append(out, map[string]any{"id": o.Event.ID, "data": string(o.Event.Data)})
		}
	}
	return out
}

// Set is the seam import and sync write through: it creates (counted,
// with its first history entry and event), changes (history and event
// for a quantity), and writes nothing for a state the item holds.
func TestInventory_Set(t *testing.T) {
	env := testenv.New(t)
	ctx := t.Context()
	st := dynamo.NewInventory(env.App.Table)
	storeID := invStore(t, env, "set-shop")
	ids := invBooks(t, env)
	by := inventory.Cause{Kind: inventory.CauseImport, UserID: "u1", Ref: "job-1", Reason: "import"}

	res, err := st.Set(ctx, storeID, inventory.Stock{BookID: ids[0], Quantity: 3, PriceCents: 1299, Condition: inventory.New}, by)
	require.NoError(t, err)
	assert.True(t, res.Created)
	assert.True(t, res.Changed)
	assert.Equal(t, inventory.ItemID(storeID, ids[0]), res.Item.ID)
	items, inStock := storeCounts(t, env, storeID)
	assert.Equal(t, 1, items)
	assert.Equal(t, 1, inStock)

	res, err = st.Set(ctx, storeID, inventory.Stock{BookID: ids[0], Quantity: 3, PriceCents: 1299, Condition: inventory.New}, by)
	require.NoError(t, err)
	assert.False(t, res.Created)
	assert.False(t, res.Changed, "the same state again writes nothing")

	loc := "Shelf A"
	res, err = st.Set(ctx, storeID, inventory.Stock{BookID: ids[0], Quantity: 0, PriceCents: 1099, Condition: inventory.UsedGood, Location: &loc}, by)
	require.NoError(t, err)
	assert.True(t, res.Changed)
	assert.Equal(t, 0, res.Item.Quantity)
	assert.Equal(t, "Shelf A", res.Item.Location)
	items, inStock = storeCounts(t, env, storeID)
	assert.Equal(t, 1, items, "inventoryCount counts items, in stock or not")
	assert.Equal(t, 0, inStock)

	h, err := st.History(ctx, storeID, res.Item.ID, page.First(10))
	require.NoError(t, err)
	require.Len(t, h.Items, 2)
	assert.Equal(t, inventory.Change{ItemID: res.Item.ID, StoreID: storeID, Cause: by, Delta: -3, Before: 3, After: 0, At: h.Items[0].At}, h.Items[0])
	assert.Equal(t, 3, h.Items[1].After)
	assert.Len(t, eventsOfType(env, t), 2, "one event per quantity change")

	_, err = st.Set(ctx, storeID, inventory.Stock{BookID: "00000000-0000-4000-8000-000000000000", Quantity: 1, Condition: inventory.New}, by)
	assert.ErrorIs(t, err, books.ErrNotFound)
	_, err = st.Set(ctx, "00000000-0000-4000-8000-000000000000", inventory.Stock{BookID: ids[1], Quantity: 1, Condition: inventory.New}, by)
	assert.ErrorIs(t, err, stores.ErrNotFound)
	_, err = st.Set(ctx, storeID, inventory.Stock{BookID: ids[1], Quantity: -1, Condition: "mint"}, by)
	assert.Error(t, err)

	_, err = st.Set(ctx, storeID, inventory.Stock{BookID: ids[1], Quantity: 2, PriceCents: 500, Condition: inventory.New}, by)
	require.NoError(t, err)
	got, err := st.ByBooks(ctx, storeID, []string{ids[0], ids[1], ids[2], ids[0]})
	require.NoError(t, err)
	assert.Len(t, got, 2)
	assert.Equal(t, 2, got[ids[1]].Quantity)
	var all []*inventory.Item
	require.NoError(t, st.All(ctx, storeID, func(its []*inventory.Item) error { all = append(all, its...); return nil }))
	assert.Len(t, all, 2)
}

// Many concurrent adjustments of one item end at the exact sum, never
// below zero, each with its history entry and event; and a second
// create of the same book is refused.
func TestInventory_ConcurrentAdjustments(t *testing.T) {
	env := testenv.New(t)
	ctx := t.Context()
	st := dynamo.NewInventory(env.App.Table)
	storeID := invStore(t, env, "adjust-shop")
	ids := invBooks(t, env)
	now := env.App.Now()
	it := &inventory.Item{ID: inventory.ItemID(storeID, ids[2]), StoreID: storeID, BookID: ids[2], Quantity: 5, PriceCents: 999,
		Condition: inventory.New, CreatedAt: now, UpdatedAt: now}
	dune, err := dynamo.NewBooks(env.App.Table).GetBook(ctx, ids[2])
	require.NoError(t, err)
	require.NoError(t, st.Create(ctx, it, dune, inventory.Cause{Kind: inventory.CauseCreate}))
	dup := *it
	assert.ErrorIs(t, st.Create(ctx, &dup, dune, inventory.Cause{Kind: inventory.CauseCreate}), inventory.ErrExists)

	// 10 add two each, 20 take one each: 5 + 20 - 20 = 5 whatever the
	// order, and a take that would go below zero is refused, not lost.
	const adds, takes = 10, 20
	var (
		wg           sync.WaitGroup
		mu           sync.Mutex
		refused, oks int
	)
	for i := range adds + takes {
		delta := -1
		if i%3 == 0 && i/3 < adds {
			delta = 2
		}
		wg.Go(func() {
			_, ch, err := st.Adjust(ctx, storeID, it.ID, delta, inventory.Cause{Kind: inventory.CauseAdjust, Reason: "count"})
			mu.Lock()
			defer mu.Unlock()
			switch {
			case errors.Is(err, inventory.ErrInsufficient):
				refused++
			case err != nil:
				t.Errorf("adjust %d: %v", delta, err)
			default:
				oks++
				assert.Equal(t, ch.Before+delta, ch.After)
				assert.GreaterOrEqual(t, ch.After, 0)
			}
		})
	}
	wg.Wait()
	final, err := st.Get(ctx, storeID, it.ID)
	require.NoError(t, err)
	want := 5 + 2*adds - (takes - refused)
	assert.Equal(t, want, final.Quantity)
	assert.GreaterOrEqual(t, final.Quantity, 0)

	h, err := st.History(ctx, storeID, it.ID, page.First(100))
	require.NoError(t, err)
	require.Len(t, h.Items, oks+1, "one entry per change, and the create's")
	for i := 0; i+1 < len(h.Items); i++ {
		assert.Equal(t, h.Items[i+1].After, h.Items[i].Before, "newest first, each change starting where the one before ended")
	}
	assert.Equal(t, final.Quantity, h.Items[0].After)
	assert.Len(t, eventsOfType(env, t), oks+1)
}

// Search reads the store's postings: by word, by a prefix, by ISBN, in
// stock only; a deletion takes the item out of it and off the counts and
// leaves its history.
func TestInventory_SearchAndDelete(t *testing.T) {
	env := testenv.New(t)
	ctx := t.Context()
	st := dynamo.NewInventory(env.App.Table)
	storeID := invStore(t, env, "search-shop")
	other := invStore(t, env, "other-search-shop")
	ids := invBooks(t, env)
	by := inventory.Cause{Kind: inventory.CauseImport}
	for i, id := range ids {
		_, err := st.Set(ctx, storeID, inventory.Stock{BookID: id, Quantity: i % 2, PriceCents: 100, Condition: inventory.New}, by)
		require.NoError(t, err)
	}
	_, err := st.Set(ctx, other, inventory.Stock{BookID: ids[3], Quantity: 1, PriceCents: 100, Condition: inventory.New}, by)
	require.NoError(t, err)

	titles := func(q string, inStock bool) ([]string, int) {
		t.Helper()
		s, err := inventory.ParseSearch(q)
		require.NoError(t, err)
		res, err := st.List(ctx, storeID, inventory.ListQuery{Page: page.Offset{Limit: 50}, InStockOnly: inStock, Search: s})
		require.NoError(t, err)
		var out []string
		for _, it := range res.Items {
			out = append(out, it.BookID)
		}
		return out, res.Total
	}
	got, total := titles("le guin", false)
	assert.Equal(t, []string{ids[1], ids[0]}, got, "folded title order: a wizard, the left hand")
	assert.Equal(t, 2, total)
	got, _ = titles("guin wiz", false)
	assert.Equal(t, []string{ids[1]}, got, "the last word is a prefix")
	got, _ = titles("tolk", false)
	assert.Equal(t, []string{ids[3]}, got, "a lone prefix")
	got, _ = titles("978-0-441-17271-9", false)
	assert.Equal(t, []string{ids[2]}, got, "by ISBN")
	got, _ = titles("0441172717", false)
	assert.Equal(t, []string{ids[2]}, got, "by ISBN-10")
	got, total = titles("ursula", true)
	assert.Equal(t, []string{ids[1]}, got, "in stock only")
	assert.Equal(t, 1, total)
	got, _ = titles("the", false)
	assert.Equal(t, []string{ids[3], ids[0]}, got, "stop words alone still search")

	res, err := st.List(ctx, storeID, inventory.ListQuery{Page: page.Offset{Limit: 2, Offset: 1}})
	require.NoError(t, err)
	assert.Equal(t, 4, res.Total)
	require.Len(t, res.Items, 2)
	assert.Equal(t, ids[3], res.Items[1].BookID, "a wizard, dune, the hobbit, the left hand: folded title order")
	res, err = st.List(ctx, storeID, inventory.ListQuery{Page: page.Offset{Limit: 50}, InStockOnly: true})
	require.NoError(t, err)
	assert.Equal(t, 2, res.Total)

	hobbit := inventory.ItemID(storeID, ids[3])
	require.NoError(t, st.Delete(ctx, storeID, hobbit, inventory.Cause{Kind: inventory.CauseDelete, UserID: "u"}))
	assert.ErrorIs(t, st.Delete(ctx, storeID, hobbit, inventory.Cause{Kind: inventory.CauseDelete}), inventory.ErrNotFound)
	got, _ = titles("hobbit", false)
	assert.Empty(t, got)
	items, inStock := storeCounts(t, env, storeID)
	assert.Equal(t, 3, items)
	assert.Equal(t, 1, inStock)
	h, err := st.History(ctx, storeID, hobbit, page.First(10))
	require.NoError(t, err)
	require.Len(t, h.Items, 2)
	assert.Equal(t, inventory.CauseDelete, h.Items[0].Cause.Kind)
	assert.Equal(t, 1, h.Items[0].Before)
	avail, err := st.InStock(ctx, ids[3], 10)
	require.NoError(t, err)
	require.Len(t, avail, 1, "the other store's stays")
	assert.Equal(t, other, avail[0].StoreID)

	// A store's deletion takes its stock and postings with it.
	require.NoError(t, dynamo.NewBookstores(env.App.Table).DeleteStore(ctx, &stores.Store{ID: other}))
	assert.Nil(t, env.Item(t, dynamo.InventoryItemKey(other, inventory.ItemID(other, ids[3]))))
	hob, _ := inventory.ParseSearch("hobbit")
	res, err = st.List(ctx, other, inventory.ListQuery{Page: page.Offset{Limit: 50}, Search: hob})
	require.NoError(t, err)
	assert.Zero(t, res.Total, "no posting left")
	avail, err = st.InStock(ctx, ids[3], 10)
	require.NoError(t, err)
	assert.Empty(t, avail)
}

// SetNew, bulk import's creations: new items several to a transaction
// (one with 40-word titles needs more than one, DynamoDB taking 100
// items), the store's counts exact, each item with its history entry,
// event and postings; an item that exists already is updated as Set
// does, and a bad stock or a missing book fails alone.
func TestInventory_SetNew(t *testing.T) {
	env := testenv.New(t)
	ctx := t.Context()
	st := dynamo.NewInventory(env.App.Table)
	storeID := invStore(t, env, "batch-shop")
	ids := invBooks(t, env)
	var long []books.Record
	for i := range 6 {
		var words []string
		for j := range 40 {
			words = append(words, fmt.Sprintf("w%dx%d", i, j))
		}
		long = append(long, books.Record{Title: strings.Join(words, " "), Authors: []string{"Long Author"}, ISBN: benchISBN(i)})
	}
	ids = append(ids, env.ImportBooks(t, long...)...)
	by := inventory.Cause{Kind: inventory.CauseImport, UserID: "u1", Ref: "job-2", Reason: "import"}
	_, err := st.Set(ctx, storeID, inventory.Stock{BookID: ids[0], Quantity: 5, PriceCents: 100, Condition: inventory.New}, by)
	require.NoError(t, err)
	eventsBefore := len(eventsOfType(env, t))

	var sts []inventory.Stock
	for i, id := range ids {
		sts = append(sts, inventory.Stock{BookID: id, Quantity: i % 3, PriceCents: 100 + i, Condition: inventory.New})
	}
	sts = append(sts,
		inventory.Stock{BookID: ids[1], Quantity: 9, PriceCents: 1, Condition: inventory.New},                                 // the same book again: set after
		inventory.Stock{BookID: "00000000-0000-4000-8000-000000000000", Quantity: 1, PriceCents: 1, Condition: inventory.New}, // no such book
		inventory.Stock{BookID: ids[2], Quantity: -1, Condition: "mint"},                                                      // invalid
	)
	res, errs := st.SetNew(ctx, storeID, sts, by)
	require.Len(t, errs, len(sts))
	for i := range ids {
		require.NoError(t, errs[i], "stock %d", i)
	}
	assert.False(t, res[0].Created, "it existed: updated as Set does")
	assert.True(t, res[0].Changed)
	for i := 1; i < len(ids); i++ {
		assert.True(t, res[i].Created, "stock %d", i)
	}
	n := len(ids)
	require.NoError(t, errs[n])
	assert.Equal(t, 9, res[n].Item.Quantity, "a book named twice: the later stock is set after the first")
	assert.ErrorIs(t, errs[n+1], books.ErrNotFound)
	assert.Error(t, errs[n+2])

	items, inStock := storeCounts(t, env, storeID)
	assert.Equal(t, len(ids), items, "inventoryCount exact")
	wantIn := 0
	for _, id := range ids {
		it, err := st.Get(ctx, storeID, inventory.ItemID(storeID, id))
		require.NoError(t, err)
		if it.Quantity > 0 {
			wantIn++
		}
		h, err := st.History(ctx, storeID, it.ID, page.First(10))
		require.NoError(t, err)
		require.NotEmpty(t, h.Items)
		assert.Equal(t, it.Quantity, h.Items[0].After, "history of %s", id)
	}
	assert.Equal(t, wantIn, inStock, "inStockCount exact")
	// ids[0] changed 5 → 0, ids[1] created then set to 9, ids[2..] created
	// (those with quantity 0 as well: a creation is a change from nothing).
	assert.Len(t, eventsOfType(env, t), eventsBefore+len(ids)+1, "one event per change")

	s, err := inventory.ParseSearch("w5x39")
	require.NoError(t, err)
	found, err := st.List(ctx, storeID, inventory.ListQuery{Page: page.Offset{Limit: 10}, Search: s})
	require.NoError(t, err)
	require.Len(t, found.Items, 1, "postings written with the item")
	assert.Equal(t, ids[len(ids)-1], found.Items[0].BookID)
}

// benchISBN is a valid ISBN-13 of the 979-8 range.
func benchISBN(i int) string { return books.CompleteISBN13(fmt.Sprintf("9798%08d", i)) }

// A search driven by a whole word (here "letters": the last word of a
// search is a prefix, only verified) reads its postings a page at a time, only
// until it has the page and one match more: the total of a first page
// of a common word is then a lower bound, pages taken one after another
// list every match once in title order, and the last page's total is
// exact. Several words drive by the one whose postings are fewest.
func TestInventory_SearchReadsAboutAPage(t *testing.T) {
	env := testenv.New(t)
	ctx := t.Context()
	st := dynamo.NewInventory(env.App.Table)
	storeID := invStore(t, env, "paged-shop")
	const n = 130
	var recs []books.Record
	for i := range n {
		title := fmt.Sprintf("Love Letters %03d", n-i) // titles in the reverse of the ISBNs' order
		if i%40 == 0 {
			title += " Rare"
		}
		recs = append(recs, books.Record{Title: title, Authors: []string{"Pat Page"}, ISBN: benchISBN(100 + i)})
	}
	ids := env.ImportBooks(t, recs...)
	var sts []inventory.Stock
	for i, id := range ids {
		sts = append(sts, inventory.Stock{BookID: id, Quantity: i % 2, PriceCents: 100, Condition: inventory.New})
	}
	_, errs := st.SetNew(ctx, storeID, sts, inventory.Cause{Kind: inventory.CauseImport})
	require.NoError(t, errors.Join(errs...))

	search := func(q string, inStock bool, offset, limit int) inventory.ListResult {
		t.Helper()
		s, err := inventory.ParseSearch(q)
		require.NoError(t, err)
		res, err := st.List(ctx, storeID, inventory.ListQuery{Page: page.Offset{Offset: offset, Limit: limit}, InStockOnly: inStock, Search: s})
		require.NoError(t, err)
		return res
	}
	first := search("letters pat", false, 0, 20)
	assert.True(t, first.TotalIsLowerBound, "the word's postings were not all read")
	assert.GreaterOrEqual(t, first.Total, 21, "a next page is known")
	assert.Less(t, first.Total, n)

	for _, inStock := range []bool{false, true} {
		var got []string
		var last inventory.ListResult
		for off := 0; ; off += 20 {
			last = search("letters pat", inStock, off, 20)
			for _, it := range last.Items {
				got = append(got, it.BookID)
			}
			if last.Total <= off+20 {
				break
			}
		}
		var want []string
		for i := n - 1; i >= 0; i-- { // "love letters 001" is the last book
			if !inStock || i%2 == 1 {
				want = append(want, ids[i])
			}
		}
		assert.Equal(t, want, got, "every match once, in title order (in stock only: %v)", inStock)
		assert.False(t, last.TotalIsLowerBound, "the last page read the word to its end")
		assert.Equal(t, len(want), last.Total)
	}

	rare := search("love rare letters", false, 0, 50)
	assert.False(t, rare.TotalIsLowerBound, "driven by the rarer word, read whole")
	assert.Equal(t, 4, rare.Total)
	require.Len(t, rare.Items, 4)
	assert.Equal(t, ids[120], rare.Items[0].BookID, "love letters 010 rare first")
	assert.Equal(t, ids[0], rare.Items[3].BookID)
	lp := search("letters pag", false, 0, 50)
	assert.True(t, lp.TotalIsLowerBound)
	assert.Len(t, lp.Items, 50)
	pref := search("lett", false, 100, 50)
	assert.False(t, pref.TotalIsLowerBound, "a prefix is read whole")
	assert.Equal(t, n, pref.Total)
	assert.Len(t, pref.Items, 30)
}

// A store's deletion removes each of its items as Delete removes one:
// the item's history ends with the quantity going to zero (cause delete,
// the store's deletion as reason) and its inventory.updated event says
// it is gone, both written with the removal.
func TestInventory_StoreDeletionRecordsEachItem(t *testing.T) {
	env := testenv.New(t)
	ctx := t.Context()
	st := dynamo.NewInventory(env.App.Table)
	storeID := invStore(t, env, "closing-shop")
	ids := invBooks(t, env)[:2]
	by := inventory.Cause{Kind: inventory.CauseImport}
	for i, id := range ids {
		_, err := st.Set(ctx, storeID, inventory.Stock{BookID: id, Quantity: i + 2, PriceCents: 100, Condition: inventory.New}, by)
		require.NoError(t, err)
	}
	before := len(eventsOfType(env, t))

	require.NoError(t, dynamo.NewBookstores(env.App.Table).DeleteStore(ctx, &stores.Store{ID: storeID}))
	for i, id := range ids {
		itemID := inventory.ItemID(storeID, id)
		assert.Nil(t, env.Item(t, dynamo.InventoryItemKey(storeID, itemID)))
		h, err := st.History(ctx, storeID, itemID, page.First(10))
		require.NoError(t, err)
		require.Len(t, h.Items, 2, "the import's entry and the removal's")
		last := h.Items[0]
		assert.Equal(t, inventory.CauseDelete, last.Cause.Kind)
		assert.Equal(t, dynamo.StoreDeletedReason, last.Cause.Reason)
		assert.Equal(t, i+2, last.Before)
		assert.Equal(t, -(i + 2), last.Delta)
		assert.Zero(t, last.After)
	}
	evs := eventsOfType(env, t)
	require.Len(t, evs, before+len(ids), "one event per removed item")
	removed := map[string]int{}
	for _, ev := range evs {
		var data inventory.UpdatedData
		require.NoError(t, json.Unmarshal([]byte(ev["data"].(string)), &data))
		if data.Deleted {
			assert.Equal(t, dynamo.StoreDeletedReason, data.Change.Reason)
			assert.Zero(t, data.Quantity)
			removed[data.BookID] = data.Change.PreviousQuantity
		}
	}
	assert.Equal(t, map[string]int{ids[0]: 2, ids[1]: 3}, removed)
}

// An item deleted and created again (the same id, ItemID) starts its
// new history after the deletion's entry even when the clock has not
// moved past it (the deletion's time was moved past the item's last
// change), so the history, newest first, lists the creation first.
func TestInventory_RecreatedHistoryStaysOrdered(t *testing.T) {
	clock := testenv.NewClock(time.Date(2026, 11, 27, 12, 0, 0, 0, time.UTC))
	env := testenv.New(t, testenv.WithClock(clock))
	ctx := t.Context()
	st := dynamo.NewInventory(env.App.Table)
	storeID := invStore(t, env, "again-shop")
	ids := invBooks(t, env)
	by := inventory.Cause{Kind: inventory.CauseImport}
	stock := inventory.Stock{BookID: ids[0], Quantity: 2, PriceCents: 100, Condition: inventory.New}
	itemID := inventory.ItemID(storeID, ids[0])

	_, err := st.Set(ctx, storeID, stock, by)
	require.NoError(t, err)
	require.NoError(t, st.Delete(ctx, storeID, itemID, inventory.Cause{Kind: inventory.CauseDelete}))
	res, err := st.Set(ctx, storeID, stock, by)
	require.NoError(t, err)
	require.True(t, res.Created)

	h, err := st.History(ctx, storeID, itemID, page.First(10))
	require.NoError(t, err)
	require.Len(t, h.Items, 3)
	assert.Equal(t, by.Kind, h.Items[0].Cause.Kind, "the re-creation is the newest entry")
	assert.Equal(t, inventory.CauseDelete, h.Items[1].Cause.Kind)
	assert.True(t, h.Items[0].At.After(h.Items[1].At))
	assert.True(t, h.Items[0].At.Equal(res.Item.UpdatedAt), "the item's times are its first entry's")
	assert.True(t, res.Item.CreatedAt.Equal(res.Item.UpdatedAt))
	for i := 0; i+1 < len(h.Items); i++ {
		assert.Equal(t, h.Items[i+1].After, h.Items[i].Before, "each change starts where the one before ended")
	}

	// An import's creations (SetNew) keep the same order.
	require.NoError(t, st.Delete(ctx, storeID, itemID, inventory.Cause{Kind: inventory.CauseDelete}))
	results, errs := st.SetNew(ctx, storeID, []inventory.Stock{stock}, by)
	require.NoError(t, errs[0])
	require.True(t, results[0].Created)
	h, err = st.History(ctx, storeID, itemID, page.First(10))
	require.NoError(t, err)
	require.Len(t, h.Items, 5)
	assert.Equal(t, by.Kind, h.Items[0].Cause.Kind, "the import's re-creation is the newest entry")
	assert.Equal(t, inventory.CauseDelete, h.Items[1].Cause.Kind)
	assert.True(t, h.Items[0].At.After(h.Items[1].At))
	assert.True(t, h.Items[0].At.Equal(results[0].Item.UpdatedAt))
}
