package posapi_test

import (
	"context"
	"fmt"
	"net/http"
	"net/url"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/bookplatform/backend/local/testenv"
	"github.com/bookplatform/backend/shared/books"
	"github.com/bookplatform/backend/shared/dynamo"
	"github.com/bookplatform/backend/shared/ids"
	"github.com/bookplatform/backend/shared/inventory"
	"github.com/bookplatform/backend/shared/pos"
	"github.com/bookplatform/backend/shared/tradecredit"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// openShop opens a store with a tax rate, a phone and a staff member
// (every part's tests share it).
func openShop(t testing.TB, env *testenv.Env, slug string, taxRate float64) testenv.Shop {
	return env.OpenShop(t, slug, map[string]any{"phone": "+1 503 555 0100", "taxRate": taxRate})
}

// stock stocks a book at the shop in a condition and returns the item's id.
func stock(t *testing.T, env *testenv.Env, s testenv.Shop, bookID string, qty, price int, condition string) string {
	t.Helper()
	res := env.Do("POST", "/v1/inventory", map[string]any{"storeId": s.ID, "bookId": bookID, "quantity": qty, "priceCents": price, "condition": condition}, s.Owner.Token)
	require.Equal(t, http.StatusCreated, res.Status, "%s", res)
	return res.JSON["id"].(string)
}

func quantityOf(t *testing.T, env *testenv.Env, s testenv.Shop, itemID string) int {
	t.Helper()
	res := env.Do("GET", "/v1/inventory/"+itemID+"?storeId="+s.ID, nil, s.Owner.Token)
	require.Equal(t, http.StatusOK, res.Status, "%s", res)
	return int(res.JSON["quantity"].(float64))
}

// world: a store at 8.25% with two catalog books stocked (a new one, 3
// copies at 1299; a used one, 2 at 850) and a third not stocked, a
// second store with its own staff, a customer and a stranger.
type world struct {
	env               *testenv.Env
	a, b              testenv.Shop
	books             []string
	newItem, usedItem string
	customer, other   testenv.Account
	credit            *dynamo.TradeCredit
}

func newWorld(t *testing.T, opts ...testenv.Option) *world {
	env := testenv.New(t, opts...)
	w := &world{env: env, a: openShop(t, env, "corner-books", 0.0825), b: openShop(t, env, "other-books", 0.05)}
	w.books = env.ImportBooks(t,
		books.Record{Title: "The Left Hand of Darkness", Authors: []string{"Ursula K. Le Guin"}, ISBN: "9780441478125"},
		books.Record{Title: "A Wizard of Earthsea", Authors: []string{"Ursula K. Le Guin"}, ISBN: "9780547773742"},
		books.Record{Title: "Dune", Authors: []string{"Frank Herbert"}, ISBN: "9780441172719"},
	)
	w.newItem = stock(t, env, w.a, w.books[0], 3, 1299, "new")
	w.usedItem = stock(t, env, w.a, w.books[1], 2, 850, "used_good")
	w.customer = env.Signup(t, "ann_reader")
	w.other = env.Signup(t, "bob_stranger")
	w.credit = dynamo.NewTradeCredit(env.App.Table)
	return w
}

// grant gives the customer trade credit at the store.
func (w *world) grant(t *testing.T, cents int64) {
	t.Helper()
	_, err := w.credit.Change(context.Background(), tradecredit.Entry{ID: ids.New(), StoreID: w.a.ID, CustomerUserID: w.customer.ID,
		Kind: tradecredit.Grant, AmountCents: cents, Reason: "traded in", ActorUserID: w.a.Owner.ID, CreatedAt: time.Now()})
	require.NoError(t, err)
}

func (w *world) balance(t *testing.T) int64 {
	t.Helper()
	b, err := w.credit.Balance(context.Background(), w.a.ID, w.customer.ID)
	require.NoError(t, err)
	return b.BalanceCents
}

func item(bookID, inventoryID string, qty, unit int, used bool) map[string]any {
	m := map[string]any{"bookId": bookID, "quantity": qty, "unitPriceCents": unit, "isUsed": used}
	if inventoryID != "" {
		m["inventoryId"] = inventoryID
	}
	return m
}

func custom(title string, qty, unit int, authors ...string) map[string]any {
	c := map[string]any{"title": title}
	if authors != nil {
		c["authors"] = authors
	}
	return map[string]any{"customItem": c, "quantity": qty, "unitPriceCents": unit, "isUsed": true}
}

func sale(storeID, method string, items ...map[string]any) map[string]any {
	return map[string]any{"storeId": storeID, "items": items, "paymentMethod": method}
}

// listSales reads the store's sales (one page) as the owner.
func (w *world) listSales(t *testing.T, query string) ([]map[string]any, *testenv.Response) {
	t.Helper()
	res := w.env.Do("GET", "/api/pos/sales?storeId="+w.a.ID+query, nil, w.a.Owner.Token)
	require.Equal(t, http.StatusOK, res.Status, "%s", res)
	var out []map[string]any
	res.Decode(&out)
	return out, res
}

// A sale of a stocked new book (2 copies), a catalog book without stock
// and a custom item, by the staff member: 201 with the spec's fields,
// tax per sale (8.25% of 4248 = 350.46 → 350), the number's form, the
// stock taken; the detail and the list show the same sale; the receipt
// is the receipt function's text.
func TestSales_CreateDetailList(t *testing.T) {
	w := newWorld(t)
	env := w.env
	body := sale(w.a.ID, "card", item(w.books[0], w.newItem, 2, 1299, false), item(w.books[2], "", 1, 950, false),
		custom("Bookmark", 2, 350, "Local Artist"))
	res := env.Do("POST", "/api/pos/sales", body, w.a.Staff.Token)
	require.Equal(t, http.StatusCreated, res.Status, "%s", res)
	s := res.JSON
	assert.Equal(t, w.a.ID, s["storeId"])
	assert.Equal(t, w.a.Staff.ID, s["staffUserId"])
	assert.Nil(t, s["customerUserId"])
	assert.Nil(t, s["customer"])
	assert.Nil(t, s["shiftId"])
	assert.Regexp(t, `^CORNERBO-\d{14}-\d{6}$`, s["saleNumber"])
	assert.EqualValues(t, 2*1299+950+2*350, s["subtotalCents"])
	assert.EqualValues(t, 350, s["taxCents"])
	assert.EqualValues(t, 4248+350, s["totalCents"])
	assert.EqualValues(t, 0, s["tradeCreditAppliedCents"])
	assert.Equal(t, "card", s["paymentMethod"])
	items := s["items"].([]any)
	require.Len(t, items, 3)
	first := items[0].(map[string]any)
	assert.Equal(t, s["id"], first["saleId"])
	assert.Equal(t, w.books[0], first["bookId"])
	assert.Equal(t, w.newItem, first["inventoryId"])
	assert.EqualValues(t, 1299, first["unitPrice"])
	assert.EqualValues(t, 1299, first["unitPriceCents"])
	assert.EqualValues(t, 2598, first["lineTotalCents"])
	assert.Equal(t, false, first["isUsed"])
	assert.Equal(t, map[string]any{"id": w.books[0], "isbn13": "9780441478125", "isbn10": "0441478123",
		"title": "The Left Hand of Darkness", "authors": []any{"Ursula K. Le Guin"}}, first["book"])
	assert.Nil(t, items[1].(map[string]any)["inventoryId"])
	third := items[2].(map[string]any)
	assert.Nil(t, third["bookId"])
	assert.Equal(t, map[string]any{"id": nil, "isbn13": nil, "isbn10": nil, "title": "Bookmark", "authors": []any{"Local Artist"}}, third["book"])
	assert.Equal(t, 1, quantityOf(t, env, w.a, w.newItem))

	id := s["id"].(string)
	detail := env.Do("GET", "/api/pos/sales/"+id, nil, w.a.Owner.Token)
	require.Equal(t, http.StatusOK, detail.Status, "%s", detail)
	assert.Equal(t, s, detail.JSON)
	list, lres := w.listSales(t, "")
	require.Len(t, list, 1)
	assert.Equal(t, s, list[0])
	assert.Empty(t, lres.Header.Get("X-Next-Cursor"))

	rec := env.Do("GET", "/api/pos/sales/"+id+"/receipt", nil, w.a.Staff.Token)
	require.Equal(t, http.StatusOK, rec.Status, "%s", rec)
	assert.Equal(t, "text/plain; charset=utf-8", rec.Header.Get("Content-Type"))
	// The body is the receipt function's rendering of the sale and its store.
	stored, err := dynamo.NewPOS(env.App.Table).Get(t.Context(), id)
	require.NoError(t, err)
	st, err := dynamo.NewBookstores(env.App.Table).GetStore(t.Context(), w.a.ID)
	require.NoError(t, err)
	assert.Equal(t, pos.Receipt(stored, pos.ReceiptStore{Name: st.Name, AddressLine1: st.AddressLine1, AddressLine2: st.AddressLine2,
		City: st.City, State: st.State, PostalCode: st.PostalCode, Phone: st.Phone}), string(rec.Body))
}

// Every rule of the body, each a 400 naming its field, and nothing
// written by any of them.
func TestSales_Validation(t *testing.T) {
	w := newWorld(t)
	env := w.env
	a := w.a
	otherItem := inventory.ItemID(w.b.ID, w.books[0])
	unstocked := inventory.ItemID(a.ID, w.books[2])
	long := strings.Repeat("x", 301)
	cases := []struct {
		name  string
		body  map[string]any
		field string
	}{
		{"no items", sale(a.ID, "cash"), "items"},
		{"too many items", sale(a.ID, "cash", func() []map[string]any {
			var out []map[string]any
			for range 26 {
				out = append(out, custom("Card", 1, 100))
			}
			return out
		}()...), "items"},
		{"neither book nor custom", sale(a.ID, "cash", map[string]any{"quantity": 1, "unitPriceCents": 100, "isUsed": false}), "items[0]"},
		{"both book and custom", sale(a.ID, "cash", map[string]any{"bookId": w.books[0], "customItem": map[string]any{"title": "X"}, "quantity": 1, "unitPriceCents": 100, "isUsed": false}), "items[0]"},
		{"book not a uuid", sale(a.ID, "cash", item("abc", "", 1, 100, false)), "items[0].bookId"},
		{"unknown book", sale(a.ID, "cash", item(ids.New(), "", 1, 100, false)), "items[0].bookId"},
		{"custom title empty", sale(a.ID, "cash", custom("   ", 1, 100)), "items[0].customItem.title"},
		{"custom title long", sale(a.ID, "cash", custom(long, 1, 100)), "items[0].customItem.title"},
		{"custom author empty", sale(a.ID, "cash", custom("Card", 1, 100, "")), "items[0].customItem.authors[0]"},
		{"custom inventory", sale(a.ID, "cash", func() map[string]any {
			m := custom("Card", 1, 100)
			m["inventoryId"] = w.newItem
			return m
		}()), "items[0].inventoryId"},
		{"another store's item", sale(a.ID, "cash", item(w.books[0], otherItem, 1, 100, false)), "items[0].inventoryId"},
		{"another book's item", sale(a.ID, "cash", item(w.books[1], w.newItem, 1, 100, false)), "items[0].inventoryId"},
		{"no such item", sale(a.ID, "cash", item(w.books[2], unstocked, 1, 100, false)), "items[0].inventoryId"},
		{"item twice", sale(a.ID, "cash", item(w.books[0], w.newItem, 1, 100, false), item(w.books[0], w.newItem, 1, 100, false)), "items[1].inventoryId"},
		{"isUsed missing", sale(a.ID, "cash", map[string]any{"bookId": w.books[2], "quantity": 1, "unitPriceCents": 100}), "items[0].isUsed"},
		{"isUsed against new", sale(a.ID, "cash", item(w.books[0], w.newItem, 1, 100, true)), "items[0].isUsed"},
		{"isUsed against used", sale(a.ID, "cash", item(w.books[1], w.usedItem, 1, 100, false)), "items[0].isUsed"},
		{"quantity 0", sale(a.ID, "cash", item(w.books[2], "", 0, 100, false)), "items[0].quantity"},
		{"quantity 1000", sale(a.ID, "cash", item(w.books[2], "", 1000, 100, false)), "items[0].quantity"},
		{"quantity not an integer", sale(a.ID, "cash", map[string]any{"bookId": w.books[2], "quantity": 1.5, "unitPriceCents": 100, "isUsed": false}), "items[0].quantity"},
		{"quantity missing", sale(a.ID, "cash", map[string]any{"bookId": w.books[2], "unitPriceCents": 100, "isUsed": false}), "items[0].quantity"},
		{"price negative", sale(a.ID, "cash", item(w.books[2], "", 1, -1, false)), "items[0].unitPriceCents"},
		{"price too high", sale(a.ID, "cash", item(w.books[2], "", 1, 10_000_001, false)), "items[0].unitPriceCents"},
		{"method missing", sale(a.ID, "", item(w.books[2], "", 1, 100, false)), "paymentMethod"},
		{"method unknown", sale(a.ID, "cheque", item(w.books[2], "", 1, 100, false)), "paymentMethod"},
		{"trade_credit without credit", sale(a.ID, "trade_credit", item(w.books[2], "", 1, 100, false)), "paymentMethod"},
		{"mixed without credit", sale(a.ID, "mixed", item(w.books[2], "", 1, 100, false)), "paymentMethod"},
		{"credit without customer", func() map[string]any {
			m := sale(a.ID, "mixed", item(w.books[2], "", 1, 100, false))
			m["tradeCreditAppliedCents"] = 50
			return m
		}(), "customerUserId"},
		{"credit negative", func() map[string]any {
			m := sale(a.ID, "cash", item(w.books[2], "", 1, 100, false))
			m["tradeCreditAppliedCents"] = -5
			return m
		}(), "tradeCreditAppliedCents"},
		{"customer not a uuid", func() map[string]any {
			m := sale(a.ID, "cash", item(w.books[2], "", 1, 100, false))
			m["customerUserId"] = "ann"
			return m
		}(), "customerUserId"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			res := env.Do("POST", "/api/pos/sales", c.body, a.Staff.Token)
			require.Equal(t, http.StatusBadRequest, res.Status, "%s", res)
			assert.Contains(t, testenv.FieldErrors(t, res), c.field, "%s", res)
		})
	}
	list, _ := w.listSales(t, "")
	assert.Empty(t, list, "no refused sale was written")
	assert.Equal(t, 3, quantityOf(t, env, a, w.newItem))
	assert.Equal(t, 2, quantityOf(t, env, a, w.usedItem))

	// An unknown customer is 404, as orders answer unknown ids.
	body := sale(a.ID, "cash", item(w.books[2], "", 1, 100, false))
	body["customerUserId"] = ids.New()
	testenv.AssertError(t, env.Do("POST", "/api/pos/sales", body, a.Staff.Token), http.StatusNotFound, "NotFound", "Customer not found")
}

// Trade credit: spent after tax, the methods it calls for, above the
// balance 400 with the balance, above the sale's due 400; the customer as
// at the sale on it.
func TestSales_TradeCredit(t *testing.T) {
	w := newWorld(t)
	env := w.env
	w.grant(t, 2000)
	withCredit := func(method string, applied int, items ...map[string]any) map[string]any {
		m := sale(w.a.ID, method, items...)
		m["customerUserId"], m["tradeCreditAppliedCents"] = w.customer.ID, applied
		return m
	}
	// 1000 + 8.25% = 1083: 500 of credit leaves 583 (mixed).
	res := env.Do("POST", "/api/pos/sales", withCredit("card", 500, item(w.books[2], "", 1, 1000, false)), w.a.Staff.Token)
	require.Equal(t, http.StatusBadRequest, res.Status, "%s", res)
	assert.Contains(t, testenv.FieldErrors(t, res)["paymentMethod"], "mixed")
	res = env.Do("POST", "/api/pos/sales", withCredit("trade_credit", 500, item(w.books[2], "", 1, 1000, false)), w.a.Staff.Token)
	require.Equal(t, http.StatusBadRequest, res.Status, "%s", res)
	res = env.Do("POST", "/api/pos/sales", withCredit("mixed", 1084, item(w.books[2], "", 1, 1000, false)), w.a.Staff.Token)
	require.Equal(t, http.StatusBadRequest, res.Status, "%s", res)
	assert.Contains(t, testenv.FieldErrors(t, res), "tradeCreditAppliedCents")

	res = env.Do("POST", "/api/pos/sales", withCredit("mixed", 500, item(w.books[2], "", 1, 1000, false)), w.a.Staff.Token)
	require.Equal(t, http.StatusCreated, res.Status, "%s", res)
	assert.EqualValues(t, 1083, res.JSON["subtotalCents"].(float64)+res.JSON["taxCents"].(float64))
	assert.EqualValues(t, 583, res.JSON["totalCents"])
	assert.EqualValues(t, 500, res.JSON["tradeCreditAppliedCents"])
	assert.Equal(t, w.customer.ID, res.JSON["customerUserId"])
	cust := res.JSON["customer"].(map[string]any)
	assert.Equal(t, w.customer.ID, cust["id"])
	assert.Equal(t, w.customer.Email, cust["email"])
	assert.Equal(t, int64(1500), w.balance(t))

	// The whole total from credit: trade_credit (1083), and then the
	// balance (417) is short of another such sale: 400 with the balance.
	res = env.Do("POST", "/api/pos/sales", withCredit("mixed", 1083, item(w.books[2], "", 1, 1000, false)), w.a.Staff.Token)
	require.Equal(t, http.StatusBadRequest, res.Status, "%s", res)
	assert.Contains(t, testenv.FieldErrors(t, res)["paymentMethod"], "trade_credit")
	res = env.Do("POST", "/api/pos/sales", withCredit("trade_credit", 1083, item(w.books[2], "", 1, 1000, false)), w.a.Staff.Token)
	require.Equal(t, http.StatusCreated, res.Status, "%s", res)
	assert.EqualValues(t, 0, res.JSON["totalCents"])
	assert.Equal(t, int64(417), w.balance(t))
	res = env.Do("POST", "/api/pos/sales", withCredit("trade_credit", 1083, item(w.books[2], "", 1, 1000, false)), w.a.Staff.Token)
	testenv.AssertError(t, res, http.StatusBadRequest, "ValidationError", "Insufficient trade credit")
	assert.EqualValues(t, 417, testenv.ErrorOf(t, res)["details"].(map[string]any)["balanceCents"])
	assert.Equal(t, int64(417), w.balance(t))
}

// A sale that fails on its stock after passing everything else (credit
// applied, another line fine) writes nothing: no sale, no stock taken, no
// credit spent.
func TestSales_FailedSaleWritesNothing(t *testing.T) {
	w := newWorld(t)
	env := w.env
	w.grant(t, 1000)
	body := sale(w.a.ID, "mixed", item(w.books[0], w.newItem, 1, 1299, false), item(w.books[1], w.usedItem, 3, 850, true))
	body["customerUserId"], body["tradeCreditAppliedCents"] = w.customer.ID, 300
	res := env.Do("POST", "/api/pos/sales", body, w.a.Staff.Token)
	testenv.AssertError(t, res, http.StatusBadRequest, "ValidationError", "Insufficient stock")
	assert.Equal(t, "only 2 in stock", testenv.FieldErrors(t, res)["items[1].quantity"])
	assert.Equal(t, []any{w.usedItem}, testenv.ErrorOf(t, res)["details"].(map[string]any)["inventoryIds"])
	list, _ := w.listSales(t, "")
	assert.Empty(t, list)
	assert.Equal(t, 3, quantityOf(t, env, w.a, w.newItem))
	assert.Equal(t, 2, quantityOf(t, env, w.a, w.usedItem))
	assert.Equal(t, int64(1000), w.balance(t))
}

// Who may ring up and read sales: the owner and the store's staff; staff
// of another store 403 (ringing up, listing) and 404 (another store's
// sale); someone who staffs nothing 403; no token 401.
func TestSales_Roles(t *testing.T) {
	w := newWorld(t)
	env := w.env
	body := func() map[string]any { return sale(w.a.ID, "cash", item(w.books[2], "", 1, 500, false)) }
	for _, tok := range []string{w.a.Owner.Token, w.a.Staff.Token} {
		res := env.Do("POST", "/api/pos/sales", body(), tok)
		require.Equal(t, http.StatusCreated, res.Status, "%s", res)
	}
	assert.Equal(t, http.StatusForbidden, env.Do("POST", "/api/pos/sales", body(), w.b.Staff.Token).Status)
	assert.Equal(t, http.StatusForbidden, env.Do("POST", "/api/pos/sales", body(), w.b.Owner.Token).Status)
	assert.Equal(t, http.StatusForbidden, env.Do("POST", "/api/pos/sales", body(), w.other.Token).Status)
	assert.Equal(t, http.StatusUnauthorized, env.Do("POST", "/api/pos/sales", body(), "").Status)

	list, _ := w.listSales(t, "")
	require.Len(t, list, 2)
	id := list[0]["id"].(string)
	// The staff member's own store by default.
	res := env.Do("GET", "/api/pos/sales", nil, w.a.Staff.Token)
	require.Equal(t, http.StatusOK, res.Status, "%s", res)
	var own []map[string]any
	res.Decode(&own)
	assert.Len(t, own, 2)
	res = env.Do("GET", "/api/pos/sales", nil, w.b.Staff.Token)
	require.Equal(t, http.StatusOK, res.Status, "%s", res)
	assert.Equal(t, "[]", strings.TrimSpace(string(res.Body)), "the other store's staff sees its own store's (none)")
	assert.Equal(t, http.StatusForbidden, env.Do("GET", "/api/pos/sales?storeId="+w.a.ID, nil, w.b.Staff.Token).Status)
	assert.Equal(t, http.StatusForbidden, env.Do("GET", "/api/pos/sales", nil, w.other.Token).Status)
	assert.Equal(t, http.StatusUnauthorized, env.Do("GET", "/api/pos/sales", nil, "").Status)

	for _, path := range []string{"/api/pos/sales/" + id, "/api/pos/sales/" + id + "/receipt"} {
		for _, tok := range []string{w.a.Owner.Token, w.a.Staff.Token} {
			assert.Equal(t, http.StatusOK, env.Do("GET", path, nil, tok).Status, path)
		}
		testenv.AssertError(t, env.Do("GET", path, nil, w.b.Staff.Token), http.StatusNotFound, "NotFound", "Sale not found")
		testenv.AssertError(t, env.Do("GET", path, nil, w.b.Owner.Token), http.StatusNotFound, "NotFound", "Sale not found")
		assert.Equal(t, http.StatusForbidden, env.Do("GET", path, nil, w.other.Token).Status, path)
		assert.Equal(t, http.StatusUnauthorized, env.Do("GET", path, nil, "").Status, path)
	}
	for _, path := range []string{"/api/pos/sales/" + ids.New(), "/api/pos/sales/nope", "/api/pos/sales/" + ids.New() + "/receipt"} {
		testenv.AssertError(t, env.Do("GET", path, nil, w.a.Owner.Token), http.StatusNotFound, "NotFound", "Sale not found")
	}
}

// Eight counters sell the last copy at once: exactly one sale, the rest
// 400 Insufficient stock, the quantity 0, never below.
func TestSales_LastCopyConcurrently(t *testing.T) {
	w := newWorld(t)
	env := w.env
	last := stock(t, env, w.a, w.books[2], 1, 999, "used_good")
	const n = 8
	statuses := make([]int, n)
	var wg sync.WaitGroup
	for i := range n {
		wg.Add(1)
		go func() {
			defer wg.Done()
			tok := w.a.Staff.Token
			if i%2 == 1 {
				tok = w.a.Owner.Token
			}
			res := env.Do("POST", "/api/pos/sales", sale(w.a.ID, "cash", item(w.books[2], last, 1, 999, true)), tok)
			statuses[i] = res.Status
			if res.Status == http.StatusBadRequest && !strings.Contains(string(res.Body), "Insufficient stock") {
				t.Errorf("refusal is not Insufficient stock: %s", res)
			}
		}()
	}
	wg.Wait()
	ok := 0
	for _, s := range statuses {
		if s == http.StatusCreated {
			ok++
		} else {
			assert.Equal(t, http.StatusBadRequest, s)
		}
	}
	assert.Equal(t, 1, ok, "exactly one sale of the last copy: %v", statuses)
	assert.Equal(t, 0, quantityOf(t, env, w.a, last))
	list, _ := w.listSales(t, "")
	assert.Len(t, list, 1)
}

// Six sales spend one balance at once: as many as it covers succeed,
// the balance never goes below zero and is the grant less what they
// spent.
func TestSales_CreditConcurrently(t *testing.T) {
	w := newWorld(t)
	env := w.env
	w.grant(t, 1000)
	const n = 6
	statuses := make([]int, n)
	var wg sync.WaitGroup
	for i := range n {
		wg.Add(1)
		go func() {
			defer wg.Done()
			// 300 + 8.25% = 325 (324.75 → 325), paid 300 credit + 25.
			body := sale(w.a.ID, "mixed", custom(fmt.Sprintf("Card %d", i), 1, 300))
			body["customerUserId"], body["tradeCreditAppliedCents"] = w.customer.ID, 300
			res := env.Do("POST", "/api/pos/sales", body, w.a.Staff.Token)
			statuses[i] = res.Status
			if res.Status == http.StatusBadRequest && !strings.Contains(string(res.Body), "Insufficient trade credit") {
				t.Errorf("refusal is not Insufficient trade credit: %s", res)
			}
		}()
	}
	wg.Wait()
	ok := 0
	for _, s := range statuses {
		if s == http.StatusCreated {
			ok++
		}
	}
	assert.Equal(t, 3, ok, "%v", statuses)
	assert.Equal(t, int64(100), w.balance(t))
}

// A retried sale with the same Idempotency-Key answers the first sale
// and takes its stock once.
func TestSales_IdempotentRetry(t *testing.T) {
	w := newWorld(t)
	env := w.env
	h := map[string]string{"Authorization": "Bearer " + w.a.Staff.Token, "Idempotency-Key": "counter-1-sale-42"}
	body := sale(w.a.ID, "cash", item(w.books[0], w.newItem, 2, 1299, false))
	first := env.DoHeaders("POST", "/api/pos/sales", body, h)
	require.Equal(t, http.StatusCreated, first.Status, "%s", first)
	again := env.DoHeaders("POST", "/api/pos/sales", body, h)
	require.Equal(t, http.StatusCreated, again.Status, "%s", again)
	assert.Equal(t, first.JSON["id"], again.JSON["id"])
	assert.Equal(t, first.JSON["saleNumber"], again.JSON["saleNumber"])
	assert.Equal(t, 1, quantityOf(t, env, w.a, w.newItem))
	list, _ := w.listSales(t, "")
	assert.Len(t, list, 1)
}

// The list: newest first, paged by the X-Next-Cursor header, filtered
// by staff member and by dates (days or timestamps, both inclusive);
// bad filters 400.
func TestSales_List(t *testing.T) {
	clock := testenv.NewClock(time.Date(2026, 3, 1, 9, 0, 0, 0, time.UTC))
	w := newWorld(t, testenv.WithClock(clock))
	env := w.env
	var made []string
	for i := range 5 {
		clock.Set(time.Date(2026, 3, 1+i, 10, 0, 0, 0, time.UTC))
		// A token of the clock's day (the clock jumps a day a sale).
		who := w.a.Staff
		if i%2 == 0 {
			who = w.a.Owner
		}
		res := env.Do("POST", "/api/pos/sales", sale(w.a.ID, "cash", custom("Card", 1, 100*(i+1))), env.Login(t, who).Token)
		require.Equal(t, http.StatusCreated, res.Status, "%s", res)
		made = append(made, res.JSON["id"].(string))
	}
	w.a.Owner, w.b.Staff = env.Login(t, w.a.Owner), env.Login(t, w.b.Staff)
	// Pages of 2: newest first, the cursor in the header.
	var seen []string
	query := "&limit=2"
	for range 5 {
		page, res := w.listSales(t, query)
		for _, s := range page {
			seen = append(seen, s["id"].(string))
		}
		next := res.Header.Get("X-Next-Cursor")
		if next == "" {
			break
		}
		query = "&limit=2&cursor=" + url.QueryEscape(next)
	}
	assert.Equal(t, []string{made[4], made[3], made[2], made[1], made[0]}, seen)
	_, res := w.listSales(t, "&limit=1")
	assert.Contains(t, res.Header.Get("Access-Control-Expose-Headers"), "X-Next-Cursor", "browsers may read it")

	byStaff, _ := w.listSales(t, "&staffUserId="+w.a.Staff.ID)
	assert.Len(t, byStaff, 2)
	days, _ := w.listSales(t, "&startDate=2026-03-02&endDate=2026-03-04")
	require.Len(t, days, 3)
	assert.Equal(t, made[3], days[0]["id"])
	assert.Equal(t, made[1], days[2]["id"])
	stamps, _ := w.listSales(t, "&startDate=2026-03-03T10:00:00Z&endDate="+url.QueryEscape("2026-03-04T10:00:00+00:00"))
	assert.Len(t, stamps, 2, "both ends inclusive")
	from, _ := w.listSales(t, "&startDate=2026-03-04")
	assert.Len(t, from, 2)

	for q, field := range map[string]string{
		"&limit=51": "limit", "&limit=0": "limit", "&staffUserId=x": "staffUserId", "&startDate=yesterday": "startDate",
		"&startDate=2026-03-04&endDate=2026-03-02": "endDate",
	} {
		res := env.Do("GET", "/api/pos/sales?storeId="+w.a.ID+q, nil, w.a.Owner.Token)
		require.Equal(t, http.StatusBadRequest, res.Status, "%s: %s", q, res)
		assert.Contains(t, testenv.FieldErrors(t, res), field, q)
	}
	// A cursor of another store's list is refused.
	_, res = w.listSales(t, "&limit=1")
	cur := res.Header.Get("X-Next-Cursor")
	require.NotEmpty(t, cur)
	assert.Equal(t, http.StatusBadRequest, env.Do("GET", "/api/pos/sales?cursor="+url.QueryEscape(cur), nil, w.b.Staff.Token).Status)
}
