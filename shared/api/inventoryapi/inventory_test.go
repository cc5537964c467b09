package inventoryapi_test

import (
	"encoding/json"
	"fmt"
	"net/http"
	"strings"
	"sync"
	"testing"

	"github.com/bookplatform/backend/local/testenv"
	"github.com/bookplatform/backend/shared/books"
	"github.com/bookplatform/backend/shared/dynamo"
	"github.com/bookplatform/backend/shared/inventory"
	"github.com/bookplatform/backend/shared/users"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func TestMain(m *testing.M) { testenv.Main(m) }

// shop is a store with its owner and a staff member.
type shop struct {
	ID, Slug     string
	Owner, Staff testenv.Account
}

// openShop opens a store at a position (Portland by default) and makes
// a staff member.
func openShop(t *testing.T, env *testenv.Env, slug string, lat, lng float64) shop {
	t.Helper()
	name := strings.ReplaceAll(slug, "-", "_")
	owner := env.Signup(t, "own_"+name)
	env.SetTier(t, owner, users.TierBookstore)
	res := env.Do("POST", "/v1/stores", map[string]any{
		"name": "Shop " + slug, "slug": slug, "addressLine1": "1 Main St", "city": "Portland", "state": "OR",
		"postalCode": "97209", "country": "US", "latitude": lat, "longitude": lng,
	}, owner.Token)
	require.Equal(t, http.StatusCreated, res.Status, "%s", res)
	staff := env.Signup(t, "staff_"+name)
	require.Equal(t, http.StatusCreated, env.Do("POST", "/v1/stores/"+slug+"/staff", map[string]any{"userId": staff.ID}, owner.Token).Status)
	return shop{ID: res.JSON["id"].(string), Slug: slug, Owner: owner, Staff: env.Login(t, staff)}
}

func catalog(t *testing.T, env *testenv.Env) []string {
	t.Helper()
	return env.ImportBooks(t,
		books.Record{Title: "The Left Hand of Darkness", Authors: []string{"Ursula K. Le Guin"}, ISBN: "9780441478125", Publisher: "Ace", PageCount: 304},
		books.Record{Title: "A Wizard of Earthsea", Authors: []string{"Ursula K. Le Guin"}, ISBN: "9780547773742"},
		books.Record{Title: "Dune", Authors: []string{"Frank Herbert"}, ISBN: "9780441172719"},
		books.Record{Title: "The Hobbit", Authors: []string{"J. R. R. Tolkien"}, ISBN: "9780547928227"},
	)
}

func stock(t *testing.T, env *testenv.Env, s shop, bookID string, qty int) map[string]any {
	t.Helper()
	res := env.Do("POST", "/v1/inventory", map[string]any{"storeId": s.ID, "bookId": bookID, "quantity": qty, "priceCents": 1000, "condition": "new"}, s.Owner.Token)
	require.Equal(t, http.StatusCreated, res.Status, "%s", res)
	return res.JSON
}

func TestInventory_Item(t *testing.T) {
	env := testenv.New(t)
	s := openShop(t, env, "item-shop", 45.52, -122.68)
	other := openShop(t, env, "other-shop", 45.53, -122.69)
	ids := catalog(t, env)

	res := env.Do("POST", "/v1/inventory", map[string]any{"storeId": s.ID, "bookId": ids[0], "quantity": 3, "priceCents": 1299,
		"costCents": 650, "condition": "used_very_good", "location": " Shelf B ", "notes": "Signed"}, s.Staff.Token)
	require.Equal(t, http.StatusCreated, res.Status, "%s", res)
	created := res.JSON
	id := created["id"].(string)
	assert.Equal(t, inventory.ItemID(s.ID, ids[0]), id)
	assert.Equal(t, s.ID, created["storeId"])
	assert.EqualValues(t, 3, created["quantity"])
	assert.EqualValues(t, 650, created["costCents"])
	assert.Equal(t, "Shelf B", created["location"], "texts are trimmed")
	assert.Nil(t, created["externalItemId"])
	book := created["book"].(map[string]any)
	assert.Equal(t, "9780441478125", book["isbn13"])
	assert.Equal(t, "Ace", book["publisher"])
	assert.EqualValues(t, 304, book["pageCount"])
	assert.Equal(t, "The Left Hand of Darkness", book["title"])

	t.Run("the store counts it", func(t *testing.T) {
		assert.EqualValues(t, 1, env.Do("GET", "/v1/stores/"+s.Slug, nil, "").JSON["inventoryCount"])
	})
	t.Run("create refusals", func(t *testing.T) {
		body := func(edit func(map[string]any)) map[string]any {
			b := map[string]any{"storeId": s.ID, "bookId": ids[1], "quantity": 1, "priceCents": 500, "condition": "new"}
			edit(b)
			return b
		}
		for _, c := range []struct {
			name   string
			body   map[string]any
			status int
			field  string
		}{
			{"bad condition", body(func(b map[string]any) { b["condition"] = "mint" }), 400, "condition"},
			{"no condition", body(func(b map[string]any) { delete(b, "condition") }), 400, "condition"},
			{"negative price", body(func(b map[string]any) { b["priceCents"] = -1 }), 400, "priceCents"},
			{"decimal price", body(func(b map[string]any) { b["priceCents"] = 12.5 }), 400, "priceCents"},
			{"price as text", body(func(b map[string]any) { b["priceCents"] = "1299" }), 400, "priceCents"},
			{"negative cost", body(func(b map[string]any) { b["costCents"] = -5 }), 400, "costCents"},
			{"negative quantity", body(func(b map[string]any) { b["quantity"] = -1 }), 400, "quantity"},
			{"decimal quantity", body(func(b map[string]any) { b["quantity"] = 1.5 }), 400, "quantity"},
			{"no quantity", body(func(b map[string]any) { delete(b, "quantity") }), 400, "quantity"},
			{"malformed book id", body(func(b map[string]any) { b["bookId"] = "nope" }), 400, "bookId"},
		} {
			res := env.Do("POST", "/v1/inventory", c.body, s.Owner.Token)
			require.Equal(t, c.status, res.Status, "%s: %s", c.name, res)
			assert.Contains(t, testenv.FieldErrors(t, res), c.field, c.name)
		}
		testenv.AssertError(t, env.Do("POST", "/v1/inventory", body(func(b map[string]any) { b["bookId"] = "00000000-0000-4000-8000-000000000000" }), s.Owner.Token),
			http.StatusNotFound, "NotFound", "Book not found")
		testenv.AssertError(t, env.Do("POST", "/v1/inventory", body(func(b map[string]any) { b["bookId"] = ids[0] }), s.Owner.Token),
			http.StatusConflict, "Conflict", "Inventory item already exists for this book")
		assert.EqualValues(t, 1, env.Do("GET", "/v1/stores/"+s.Slug, nil, "").JSON["inventoryCount"], "refusals count nothing")
	})
	t.Run("role matrix", func(t *testing.T) {
		q := "?storeId=" + s.ID
		type call struct {
			method, path string
			body         any
		}
		calls := []call{
			{"GET", "/v1/inventory" + q, nil},
			{"POST", "/v1/inventory", map[string]any{"storeId": s.ID, "bookId": ids[3], "quantity": 1, "priceCents": 1, "condition": "new"}},
			{"GET", "/v1/inventory/" + id + q, nil},
			{"PUT", "/v1/inventory/" + id, map[string]any{"storeId": s.ID, "notes": "x"}},
			{"PUT", "/v1/inventory/" + id + "/adjust", map[string]any{"storeId": s.ID, "adjustment": 1, "reason": "count"}},
			{"GET", "/v1/inventory/" + id + "/history" + q, nil},
			{"DELETE", "/v1/inventory/" + id + q, nil},
		}
		for _, c := range calls {
			testenv.AssertError(t, env.Do(c.method, c.path, c.body, ""), http.StatusUnauthorized, "Unauthorized", "")
			testenv.AssertError(t, env.Do(c.method, c.path, c.body, other.Owner.Token), http.StatusForbidden, "Forbidden", "")
			testenv.AssertError(t, env.Do(c.method, c.path, c.body, other.Staff.Token), http.StatusForbidden, "Forbidden", "")
		}
		// The owner of another store naming this store's item under their
		// own storeId reads nothing of it.
		testenv.AssertError(t, env.Do("GET", "/v1/inventory/"+id+"?storeId="+other.ID, nil, other.Owner.Token), http.StatusNotFound, "NotFound", "")
		assert.Equal(t, http.StatusOK, env.Do("GET", "/v1/inventory"+q, nil, s.Staff.Token).Status)
		assert.Equal(t, http.StatusOK, env.Do("GET", "/v1/inventory/"+id+q, nil, s.Owner.Token).Status)
		res := env.Do("GET", "/v1/inventory", nil, s.Owner.Token)
		assert.Equal(t, http.StatusBadRequest, res.Status, "storeId is required")
	})
	t.Run("detail and list views", func(t *testing.T) {
		res := env.Do("GET", "/v1/inventory/"+id+"?storeId="+s.ID, nil, s.Staff.Token)
		require.Equal(t, http.StatusOK, res.Status, "%s", res)
		for _, f := range []string{"id", "storeId", "bookId", "book", "quantity", "priceCents", "costCents", "condition", "location", "notes", "externalItemId", "createdAt", "updatedAt"} {
			assert.Contains(t, res.JSON, f)
		}
		list := env.Do("GET", "/v1/inventory?storeId="+s.ID, nil, s.Staff.Token)
		require.Equal(t, http.StatusOK, list.Status, "%s", list)
		assert.EqualValues(t, 1, list.JSON["total"])
		assert.EqualValues(t, 50, list.JSON["limit"], "the spec's default")
		assert.EqualValues(t, 0, list.JSON["offset"])
		it := list.JSON["items"].([]any)[0].(map[string]any)
		assert.NotContains(t, it, "costCents", "the detail view's")
		assert.NotContains(t, it, "externalItemId")
		assert.NotContains(t, it["book"], "isbn13")
		assert.Equal(t, "9780441478125", it["book"].(map[string]any)["isbn"])
		testenv.AssertError(t, env.Do("GET", "/v1/inventory/00000000-0000-4000-8000-000000000000?storeId="+s.ID, nil, s.Owner.Token), http.StatusNotFound, "NotFound", "")
		testenv.AssertError(t, env.Do("GET", "/v1/inventory/not-an-id?storeId="+s.ID, nil, s.Owner.Token), http.StatusNotFound, "NotFound", "")
	})
	t.Run("update", func(t *testing.T) {
		res := env.Do("PUT", "/v1/inventory/"+id, map[string]any{"storeId": s.ID, "priceCents": 1499, "condition": "used_good", "notes": ""}, s.Staff.Token)
		require.Equal(t, http.StatusOK, res.Status, "%s", res)
		for _, f := range []string{"id", "storeId", "bookId", "quantity", "priceCents", "condition", "location", "notes", "updatedAt"} {
			assert.Contains(t, res.JSON, f)
		}
		assert.EqualValues(t, 1499, res.JSON["priceCents"])
		assert.Equal(t, "used_good", res.JSON["condition"])
		assert.Equal(t, "", res.JSON["notes"])
		assert.Equal(t, "Shelf B", res.JSON["location"], "left out, kept")
		cost := func() any {
			t.Helper()
			res := env.Do("GET", "/v1/inventory/"+id+"?storeId="+s.ID, nil, s.Owner.Token)
			require.Equal(t, http.StatusOK, res.Status, "%s", res)
			return res.JSON["costCents"]
		}
		assert.EqualValues(t, 650, cost(), "costCents left out, kept")
		res = env.Do("PUT", "/v1/inventory/"+id, map[string]any{"storeId": s.ID, "costCents": nil}, s.Owner.Token)
		require.Equal(t, http.StatusOK, res.Status, "%s", res)
		assert.Nil(t, cost(), "costCents null clears it")
		res = env.Do("PUT", "/v1/inventory/"+id, map[string]any{"storeId": s.ID, "costCents": 700}, s.Owner.Token)
		require.Equal(t, http.StatusOK, res.Status, "%s", res)
		assert.EqualValues(t, 700, cost())
		res = env.Do("PUT", "/v1/inventory/"+id, map[string]any{"storeId": s.ID, "costCents": "7.00"}, s.Owner.Token)
		require.Equal(t, http.StatusBadRequest, res.Status)
		assert.Contains(t, testenv.FieldErrors(t, res), "costCents")
		assert.EqualValues(t, 700, cost())
		res = env.Do("PUT", "/v1/inventory/"+id, map[string]any{"storeId": s.ID, "condition": "shiny", "priceCents": -3}, s.Owner.Token)
		require.Equal(t, http.StatusBadRequest, res.Status)
		assert.Contains(t, testenv.FieldErrors(t, res), "priceCents")
		testenv.AssertError(t, env.Do("PUT", "/v1/inventory/00000000-0000-4000-8000-000000000000", map[string]any{"storeId": s.ID, "notes": "x"}, s.Owner.Token), http.StatusNotFound, "NotFound", "")
	})
	t.Run("adjust and history", func(t *testing.T) {
		res := env.Do("PUT", "/v1/inventory/"+id+"/adjust", map[string]any{"storeId": s.ID, "adjustment": -2, "reason": "Sold two"}, s.Staff.Token)
		require.Equal(t, http.StatusOK, res.Status, "%s", res)
		assert.EqualValues(t, 3, res.JSON["previousQuantity"])
		assert.EqualValues(t, -2, res.JSON["adjustment"])
		assert.EqualValues(t, 1, res.JSON["quantity"])
		for _, f := range []string{"id", "storeId", "bookId", "updatedAt"} {
			assert.Contains(t, res.JSON, f)
		}
		res = env.Do("PUT", "/v1/inventory/"+id+"/adjust", map[string]any{"storeId": s.ID, "adjustment": -2, "reason": "Oops"}, s.Owner.Token)
		testenv.AssertError(t, res, http.StatusBadRequest, "ValidationError", "")
		assert.Contains(t, testenv.ErrorOf(t, res)["message"], "Insufficient quantity")
		for _, body := range []map[string]any{
			{"storeId": s.ID, "adjustment": 0, "reason": "none"},
			{"storeId": s.ID, "adjustment": 1.5, "reason": "half"},
			{"storeId": s.ID, "reason": "no adjustment"},
			{"storeId": s.ID, "adjustment": 1},
			{"storeId": s.ID, "adjustment": 1, "reason": "   "},
		} {
			assert.Equal(t, http.StatusBadRequest, env.Do("PUT", "/v1/inventory/"+id+"/adjust", body, s.Owner.Token).Status, "%v", body)
		}
		assert.EqualValues(t, 1, env.Do("GET", "/v1/inventory/"+id+"?storeId="+s.ID, nil, s.Owner.Token).JSON["quantity"], "refusals change nothing")

		h := env.Do("GET", "/v1/inventory/"+id+"/history?limit=1&storeId="+s.ID, nil, s.Owner.Token)
		require.Equal(t, http.StatusOK, h.Status, "%s", h)
		items := h.JSON["items"].([]any)
		require.Len(t, items, 1)
		latest := items[0].(map[string]any)
		assert.Equal(t, "adjust", latest["cause"])
		assert.Equal(t, s.Staff.ID, latest["userId"])
		assert.Equal(t, "Sold two", latest["reason"])
		assert.EqualValues(t, -2, latest["adjustment"])
		assert.EqualValues(t, 3, latest["previousQuantity"])
		assert.EqualValues(t, 1, latest["quantity"])
		next := env.Do("GET", "/v1/inventory/"+id+"/history?limit=1&storeId="+s.ID+"&cursor="+h.JSON["nextCursor"].(string), nil, s.Owner.Token)
		require.Equal(t, http.StatusOK, next.Status, "%s", next)
		first := next.JSON["items"].([]any)[0].(map[string]any)
		assert.Equal(t, "create", first["cause"])
		assert.EqualValues(t, 0, first["previousQuantity"])
		assert.EqualValues(t, 3, first["quantity"])
		assert.Nil(t, next.JSON["nextCursor"])
		testenv.AssertError(t, env.Do("GET", "/v1/inventory/00000000-0000-4000-8000-000000000000/history?storeId="+s.ID, nil, s.Owner.Token), http.StatusNotFound, "NotFound", "")
	})
	t.Run("every quantity change has its event", func(t *testing.T) {
		var got []inventory.UpdatedData
		for _, o := range env.Outbox(t) {
			if o.Event.Type == inventory.UpdatedEvent.Type {
				var d inventory.UpdatedData
				require.NoError(t, json.Unmarshal(o.Event.Data, &d))
				got = append(got, d)
			}
		}
		require.Len(t, got, 2, "the create and the adjustment; the update changed no quantity")
		for _, d := range got {
			assert.Equal(t, id, d.ID)
			if d.Change.Cause == inventory.CauseAdjust {
				assert.Equal(t, 1, d.Quantity)
				assert.Equal(t, 3, d.Change.PreviousQuantity)
				assert.Equal(t, 1499, d.PriceCents, "the item as it stands after the change")
			}
		}
	})
	t.Run("delete", func(t *testing.T) {
		res := env.Do("DELETE", "/v1/inventory/"+id+"?storeId="+s.ID, nil, s.Staff.Token)
		require.Equal(t, http.StatusOK, res.Status, "%s", res)
		assert.Equal(t, true, res.JSON["success"])
		testenv.AssertError(t, env.Do("GET", "/v1/inventory/"+id+"?storeId="+s.ID, nil, s.Owner.Token), http.StatusNotFound, "NotFound", "")
		testenv.AssertError(t, env.Do("DELETE", "/v1/inventory/"+id+"?storeId="+s.ID, nil, s.Owner.Token), http.StatusNotFound, "NotFound", "")
		assert.EqualValues(t, 0, env.Do("GET", "/v1/stores/"+s.Slug, nil, "").JSON["inventoryCount"])
		// Created again, it has its id back and its history goes on.
		again := stock(t, env, s, ids[0], 2)
		assert.Equal(t, id, again["id"])
		h := env.Do("GET", "/v1/inventory/"+id+"/history?storeId="+s.ID, nil, s.Owner.Token)
		causes := []string{}
		for _, it := range h.JSON["items"].([]any) {
			causes = append(causes, it.(map[string]any)["cause"].(string))
		}
		assert.Equal(t, []string{"create", "delete", "adjust", "create"}, causes)
	})
}

// Many adjustments of one item at once, through the API, end exact and
// never below zero.
func TestInventory_ConcurrentAdjust(t *testing.T) {
	env := testenv.New(t)
	s := openShop(t, env, "busy-shop", 45.52, -122.68)
	ids := catalog(t, env)
	id := stock(t, env, s, ids[2], 10)["id"].(string)
	const n = 16 // each takes 1; 10 succeed, 6 are refused
	var (
		wg       sync.WaitGroup
		mu       sync.Mutex
		statuses = map[int]int{}
	)
	for range n {
		wg.Go(func() {
			res := env.Do("PUT", "/v1/inventory/"+id+"/adjust", map[string]any{"storeId": s.ID, "adjustment": -1, "reason": "rush"}, s.Owner.Token)
			mu.Lock()
			statuses[res.Status]++
			mu.Unlock()
		})
	}
	wg.Wait()
	assert.Equal(t, map[int]int{200: 10, 400: 6}, statuses)
	res := env.Do("GET", "/v1/inventory/"+id+"?storeId="+s.ID, nil, s.Owner.Token)
	assert.EqualValues(t, 0, res.JSON["quantity"])
	list := env.Do("GET", "/v1/inventory?inStockOnly=true&storeId="+s.ID, nil, s.Owner.Token)
	assert.EqualValues(t, 0, list.JSON["total"], "out of stock: off the in-stock list and its count")
	assert.Equal(t, 0, int(env.Item(t, dynamo.StoreKey(s.ID))["inStockCount"].(float64)))
}

func TestInventory_ListAndSearch(t *testing.T) {
	env := testenv.New(t)
	s := openShop(t, env, "list-shop", 45.52, -122.68)
	ids := catalog(t, env)
	for i, id := range ids {
		stock(t, env, s, id, i%2) // the wizard and the hobbit in stock
	}
	titles := func(query string) ([]string, float64) {
		t.Helper()
		res := env.Do("GET", "/v1/inventory?storeId="+s.ID+query, nil, s.Staff.Token)
		require.Equal(t, http.StatusOK, res.Status, "%s", res)
		var out []string
		for _, it := range res.JSON["items"].([]any) {
			out = append(out, it.(map[string]any)["book"].(map[string]any)["title"].(string))
		}
		assert.NotContains(t, res.JSON, "totalIsLowerBound", "exact")
		return out, res.JSON["total"].(float64)
	}
	got, total := titles("")
	assert.Equal(t, []string{"A Wizard of Earthsea", "Dune", "The Hobbit", "The Left Hand of Darkness"}, got)
	assert.EqualValues(t, 4, total)
	got, total = titles("&limit=2&offset=1")
	assert.Equal(t, []string{"Dune", "The Hobbit"}, got)
	assert.EqualValues(t, 4, total)
	got, total = titles("&inStockOnly=true")
	assert.Equal(t, []string{"A Wizard of Earthsea", "The Hobbit"}, got)
	assert.EqualValues(t, 2, total)
	got, _ = titles("&search=le%20guin")
	assert.Equal(t, []string{"A Wizard of Earthsea", "The Left Hand of Darkness"}, got)
	got, total = titles("&search=Ursula&inStockOnly=1")
	assert.Equal(t, []string{"A Wizard of Earthsea"}, got)
	assert.EqualValues(t, 1, total)
	got, _ = titles("&search=herb")
	assert.Equal(t, []string{"Dune"}, got, "a prefix")
	got, _ = titles("&search=978-0-547-92822-7")
	assert.Equal(t, []string{"The Hobbit"}, got, "an ISBN")
	got, total = titles("&search=nothing")
	assert.Empty(t, got)
	assert.EqualValues(t, 0, total)
	for _, q := range []string{"&inStockOnly=maybe", "&search=%21%21", "&limit=0", "&limit=101", "&offset=-1"} {
		assert.Equal(t, http.StatusBadRequest, env.Do("GET", "/v1/inventory?storeId="+s.ID+q, nil, s.Owner.Token).Status, q)
	}
	assert.Equal(t, http.StatusBadRequest, env.Do("GET", "/v1/inventory?storeId=nope", nil, s.Owner.Token).Status)
}

func TestAvailability(t *testing.T) {
	env := testenv.New(t)
	near := openShop(t, env, "near-shop", 45.5231, -122.6765)       // downtown Portland
	far := openShop(t, env, "far-shop", 45.6387, -122.6615)         // Vancouver WA, ~8 miles
	seattle := openShop(t, env, "seattle-shop", 47.6062, -122.3321) // ~145 miles
	ids := catalog(t, env)
	stock(t, env, near, ids[0], 2)
	stock(t, env, far, ids[0], 5)
	stock(t, env, seattle, ids[0], 1)
	stock(t, env, far, ids[1], 0) // out of stock: not available

	res := env.Do("GET", fmt.Sprintf("/v1/books/%s/availability?latitude=45.6&longitude=-122.66", ids[0]), nil, near.Staff.Token)
	require.Equal(t, http.StatusOK, res.Status, "%s", res)
	assert.Equal(t, ids[0], res.JSON["bookId"])
	avail := res.JSON["availability"].([]any)
	require.Len(t, avail, 2, "Seattle is beyond 25 miles")
	first := avail[0].(map[string]any)
	assert.Equal(t, far.ID, first["storeId"], "nearest first")
	for _, f := range []string{"storeId", "storeName", "storeSlug", "quantity", "priceCents", "condition", "distance", "addressLine1", "city", "state"} {
		assert.Contains(t, first, f)
	}
	assert.EqualValues(t, 5, first["quantity"])
	assert.Equal(t, "far-shop", first["storeSlug"])
	assert.Less(t, first["distance"].(float64), avail[1].(map[string]any)["distance"].(float64))

	res = env.Do("GET", fmt.Sprintf("/v1/books/%s/availability?latitude=45.6&longitude=-122.66&radius=200", ids[0]), nil, near.Staff.Token)
	assert.Len(t, res.JSON["availability"], 3)
	res = env.Do("GET", "/v1/books/"+ids[0]+"/availability", nil, near.Staff.Token)
	require.Len(t, res.JSON["availability"], 3, "no position: every store")
	assert.Nil(t, res.JSON["availability"].([]any)[0].(map[string]any)["distance"])
	res = env.Do("GET", "/v1/books/"+ids[1]+"/availability", nil, near.Staff.Token)
	assert.Empty(t, res.JSON["availability"], "out of stock everywhere")

	testenv.AssertError(t, env.Do("GET", "/v1/books/"+ids[0]+"/availability", nil, ""), http.StatusUnauthorized, "Unauthorized", "")
	testenv.AssertError(t, env.Do("GET", "/v1/books/00000000-0000-4000-8000-000000000000/availability", nil, near.Staff.Token), http.StatusNotFound, "NotFound", "")
	testenv.AssertError(t, env.Do("GET", "/v1/books/not-a-book/availability", nil, near.Staff.Token), http.StatusNotFound, "NotFound", "")
	for _, q := range []string{"?latitude=91&longitude=0", "?latitude=45", "?radius=10", "?latitude=45&longitude=-122&radius=0"} {
		assert.Equal(t, http.StatusBadRequest, env.Do("GET", "/v1/books/"+ids[0]+"/availability"+q, nil, near.Staff.Token).Status, q)
	}
}
