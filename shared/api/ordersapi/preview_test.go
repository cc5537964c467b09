package ordersapi_test

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"math"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"

	"github.com/bookplatform/backend/local/testenv"
	"github.com/bookplatform/backend/shared/api"
	"github.com/bookplatform/backend/shared/api/ordersapi"
	"github.com/bookplatform/backend/shared/books"
	"github.com/bookplatform/backend/shared/geo"
	"github.com/bookplatform/backend/shared/groups"
	"github.com/bookplatform/backend/shared/httpapi"
	"github.com/bookplatform/backend/shared/openapi"
	"github.com/bookplatform/backend/shared/orders"
	"github.com/bookplatform/backend/shared/users"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// previewEnv serves POST /v1/orders/preview through the app's real
// router, beside a testenv environment (which serves every group of
// shared/groups and is where the stores and stock are set up).
// testenv.New builds groups.All alone and takes no extra group, and this
// route joins the orders group's list only when that group is merged:
// until then the route is wrapped in a group of its own (previewGroup)
// and served on a server of its own with the environment's app (its
// table, clock and identity), its answers checked against the API
// reference of every group plus this one, as testenv checks every other
// route's against docs/openapi.json. Once shared/groups lists the route,
// the environment's own server and contract check serve it instead.
type previewEnv struct {
	*testenv.Env
	srv *httptest.Server // nil once the orders group serves the route
	t   *testing.T
}

func newPreviewEnv(t *testing.T, opts ...testenv.Option) *previewEnv {
	t.Helper()
	e := &previewEnv{Env: testenv.New(t, opts...), t: t}
	if !previewListed() {
		e.srv = httptest.NewServer(e.App.Router(previewGroup(e.App.Deps())))
		t.Cleanup(e.srv.Close)
	}
	return e
}

// previewListed reports whether a group of shared/groups serves the
// route already.
func previewListed() bool {
	for _, r := range groups.Routes() {
		if r.Method == http.MethodPost && r.Path == httpapi.V1("/orders/preview") {
			return true
		}
	}
	return false
}

// previewGroup is the test's group around the route.
func previewGroup(d api.Deps) api.Group {
	return api.Group{Name: "orderspreview", Table: []string{"dynamodb:BatchGetItem", "dynamodb:Query"},
		Routes: []httpapi.Route{ordersapi.PreviewRoute(d)}}
}

// previewContract validates answers against the reference of every
// group and the preview's.
var previewContract = sync.OnceValues(func() (*openapi.Validator, error) {
	doc, err := openapi.Document(append(groups.All(api.Deps{}), previewGroup(api.Deps{})))
	if err != nil {
		return nil, err
	}
	return openapi.NewValidator(doc)
})

// preview posts body (marshalled unless a string) with token ("": a
// guest) and checks the answer against the reference.
func (e *previewEnv) preview(body any, token string) *testenv.Response {
	e.t.Helper()
	if e.srv == nil {
		return e.Do("POST", "/v1/orders/preview", body, token)
	}
	data, ok := body.(string)
	if !ok {
		b, err := json.Marshal(body)
		require.NoError(e.t, err)
		data = string(b)
	}
	req, err := http.NewRequest("POST", e.srv.URL+"/v1/orders/preview", strings.NewReader(data))
	require.NoError(e.t, err)
	req.Header.Set("Content-Type", "application/json")
	if token != "" {
		req.Header.Set("Authorization", "Bearer "+token)
	}
	resp, err := e.srv.Client().Do(req)
	require.NoError(e.t, err)
	defer resp.Body.Close()
	raw, err := io.ReadAll(resp.Body)
	require.NoError(e.t, err)
	res := &testenv.Response{Status: resp.StatusCode, Header: resp.Header, Body: raw}
	if bytes.HasPrefix(bytes.TrimSpace(raw), []byte("{")) {
		require.NoError(e.t, json.Unmarshal(raw, &res.JSON))
	}
	v, err := previewContract()
	require.NoError(e.t, err)
	if err := v.Check("POST", "/v1/orders/preview", resp.StatusCode, resp.Header, raw); err != nil {
		e.t.Errorf("the answer does not follow the API reference:\n%v\n%s", err, res)
	}
	return res
}

// previewShop is a store as a test set it up.
type previewShop struct {
	ID, Slug, Name string
	Owner          testenv.Account
	TaxRateMicros  int64
}

// openShop opens a store through the API. A US store without latitude
// and longitude is placed at its ZIP code's centroid, as the stores
// group does; a store abroad has no position.
func (e *previewEnv) openShop(slug, postalCode, country string, taxRate float64) previewShop {
	e.t.Helper()
	owner := e.Signup(e.t, "own_"+strings.ReplaceAll(slug, "-", "_"))
	e.SetTier(e.t, owner, users.TierBookstore)
	body := map[string]any{"name": "Shop " + slug, "slug": slug, "addressLine1": "1 Main St", "city": "Somewhere",
		"postalCode": postalCode, "country": country, "taxRate": taxRate}
	if country == "US" {
		body["state"] = "OR"
	}
	res := e.Do("POST", "/v1/stores", body, owner.Token)
	require.Equal(e.t, http.StatusCreated, res.Status, "%s", res)
	return previewShop{ID: res.JSON["id"].(string), Slug: slug, Name: "Shop " + slug, Owner: owner, TaxRateMicros: int64(math.Round(taxRate * 1e6))}
}

// stock creates s's item of a book through the API and returns its id.
func (e *previewEnv) stock(s previewShop, bookID string, qty, priceCents int, condition string) string {
	e.t.Helper()
	res := e.Do("POST", "/v1/inventory", map[string]any{"storeId": s.ID, "bookId": bookID, "quantity": qty,
		"priceCents": priceCents, "condition": condition}, s.Owner.Token)
	require.Equal(e.t, http.StatusCreated, res.Status, "%s", res)
	return res.JSON["id"].(string)
}

func (e *previewEnv) catalog() []string {
	e.t.Helper()
	return e.ImportBooks(e.t,
		books.Record{Title: "The Left Hand of Darkness", Authors: []string{"Ursula K. Le Guin"}, ISBN: "9780441478125"},
		books.Record{Title: "Dune", Authors: []string{"Frank Herbert"}, ISBN: "9780441172719"},
		books.Record{Title: "The Hobbit", Authors: []string{"J. R. R. Tolkien"}, ISBN: "9780547928227"},
	)
}

// bookLine is one book of a preview request.
func bookLine(bookID string, qty any) map[string]any {
	return map[string]any{"bookId": bookID, "quantity": qty}
}

// previewPortland is a shipping address in Portland, Oregon (the near store's
// ZIP code).
var previewPortland = map[string]any{"postalCode": "97209", "country": "US"}

// availableStores returns the availableStores of a routing's item i.
func availableStores(t *testing.T, res *testenv.Response, i int) []map[string]any {
	t.Helper()
	items := res.JSON["routing"].(map[string]any)["items"].([]any)
	var out []map[string]any
	for _, s := range items[i].(map[string]any)["availableStores"].([]any) {
		out = append(out, s.(map[string]any))
	}
	return out
}

// totalsOf reads a Totals object of the answer.
func totalsOf(t *testing.T, v any) orders.Totals {
	t.Helper()
	data, err := json.Marshal(v)
	require.NoError(t, err)
	var out orders.Totals
	require.NoError(t, json.Unmarshal(data, &out))
	return out
}

func TestPreview_RoutesEachBookToItsCheapestStoreInStock(t *testing.T) {
	env := newPreviewEnv(t)
	// near: in Portland (the buyer's ZIP code), dearer; far: in
	// Seattle, cheaper; abroad: cheapest, without a position, and with
	// too few copies for the quantity asked.
	near := env.openShop("near-books", "97209", "US", 0.05)
	far := env.openShop("far-books", "98101", "US", 0.1025)
	abroad := env.openShop("abroad-books", "V6B 1A1", "CA", 0)
	ids := env.catalog()
	nearLeft := env.stock(near, ids[0], 2, 1500, "new")
	farLeft := env.stock(far, ids[0], 5, 1200, "used_good")
	abroadLeft := env.stock(abroad, ids[0], 1, 1100, "new")
	nearDune := env.stock(near, ids[1], 3, 800, "new")

	body := map[string]any{"items": []any{bookLine(ids[0], 2), bookLine(ids[1], 1), bookLine(ids[2], 1)}, "shippingAddress": previewPortland}
	res := env.preview(body, "") // a guest: no token
	require.Equal(t, http.StatusOK, res.Status, "%s", res)
	routing := res.JSON["routing"].(map[string]any)
	items := routing["items"].([]any)
	require.Len(t, items, 3)

	first := items[0].(map[string]any)
	assert.Equal(t, ids[0], first["bookId"])
	assert.EqualValues(t, 2, first["quantity"])
	assert.Equal(t, map[string]any{"title": "The Left Hand of Darkness", "authors": []any{"Ursula K. Le Guin"}, "coverUrl": first["book"].(map[string]any)["coverUrl"]}, first["book"])

	t.Run("stores in stock cheapest first, then those short of the quantity", func(t *testing.T) {
		ss := availableStores(t, res, 0)
		require.Len(t, ss, 3)
		assert.Equal(t, []any{far.ID, near.ID, abroad.ID}, []any{ss[0]["storeId"], ss[1]["storeId"], ss[2]["storeId"]})
		assert.Equal(t, []any{farLeft, nearLeft, abroadLeft}, []any{ss[0]["inventoryId"], ss[1]["inventoryId"], ss[2]["inventoryId"]})
		assert.Equal(t, map[string]any{"storeId": far.ID, "storeName": far.Name, "storeSlug": far.Slug, "inventoryId": farLeft,
			"priceCents": 1200.0, "condition": "used_good", "quantityAvailable": 5.0, "inStock": true,
			"distance": ss[0]["distance"], "cheapest": true, "nearest": false}, ss[0])
		assert.Equal(t, true, ss[1]["inStock"])
		assert.Equal(t, false, ss[1]["cheapest"])
		assert.Equal(t, true, ss[1]["nearest"], "the store in the buyer's ZIP code is the nearest")
		assert.Equal(t, false, ss[2]["inStock"], "one copy for two asked")
		assert.Equal(t, false, ss[2]["cheapest"], "never chosen, though cheapest")
		assert.EqualValues(t, 1, ss[2]["quantityAvailable"])
	})
	t.Run("distance in miles, one decimal; null without a store position", func(t *testing.T) {
		ss := availableStores(t, res, 0)
		from, _ := geo.ZIP("97209")
		seattle, _ := geo.ZIP("98101")
		assert.Equal(t, math.Round(geo.Miles(from, seattle)*10)/10, ss[0]["distance"])
		assert.InDelta(t, 145, ss[0]["distance"], 10, "Portland to Seattle")
		assert.Equal(t, 0.0, ss[1]["distance"], "placed at the same centroid")
		assert.Nil(t, ss[2]["distance"])
		assert.Contains(t, string(res.Body), `"distance":null`)
	})
	t.Run("a book no store has is no error", func(t *testing.T) {
		assert.Empty(t, availableStores(t, res, 2))
		assert.Contains(t, string(res.Body), `"availableStores":[]`)
	})
	t.Run("the estimate is the chosen routing priced as an order", func(t *testing.T) {
		ship, _ := orders.DefaultPricing.PriceAll([]orders.Shipment{
			{Lines: []orders.Line{{Quantity: 2, PriceCents: 1200}}, Fulfilment: orders.Ship, TaxRateMicros: far.TaxRateMicros},
			{Lines: []orders.Line{{Quantity: 1, PriceCents: 800}}, Fulfilment: orders.Ship, TaxRateMicros: near.TaxRateMicros},
		})
		pickup, _ := orders.DefaultPricing.PriceAll([]orders.Shipment{
			{Lines: []orders.Line{{Quantity: 2, PriceCents: 1200}}, Fulfilment: orders.Pickup, TaxRateMicros: far.TaxRateMicros},
			{Lines: []orders.Line{{Quantity: 1, PriceCents: 800}}, Fulfilment: orders.Pickup, TaxRateMicros: near.TaxRateMicros},
		})
		// far: 2400 + 599 shipping, 10.25% = 307.3975 → 307;
		// near: 800 + 499, 5% = 64.95 → 65.
		assert.Equal(t, orders.Totals{SubtotalCents: 3200, ShippingCents: 1098, TaxCents: 372, TotalCents: 4670}, ship)
		options := routing["options"].(map[string]any)
		assert.Equal(t, ship, totalsOf(t, options["ship"]))
		assert.Equal(t, pickup, totalsOf(t, options["pickup"]))
		assert.Zero(t, pickup.ShippingCents)
		assert.EqualValues(t, ship.ShippingCents, routing["estimatedShippingCents"])
		assert.EqualValues(t, ship.TaxCents, routing["estimatedTaxCents"])
		assert.Equal(t, nearDune, availableStores(t, res, 1)[0]["inventoryId"])
	})
	t.Run("pickup: the estimate is the pickup option's", func(t *testing.T) {
		body := map[string]any{"items": []any{bookLine(ids[0], 2), bookLine(ids[1], 1)}, "shippingAddress": previewPortland, "fulfilment": "pickup"}
		res := env.preview(body, "")
		require.Equal(t, http.StatusOK, res.Status, "%s", res)
		routing := res.JSON["routing"].(map[string]any)
		pickup := totalsOf(t, routing["options"].(map[string]any)["pickup"])
		assert.EqualValues(t, 0, routing["estimatedShippingCents"])
		assert.EqualValues(t, pickup.TaxCents, routing["estimatedTaxCents"])
		assert.Less(t, pickup.TotalCents, totalsOf(t, routing["options"].(map[string]any)["ship"]).TotalCents)
	})
	t.Run("a reader with a token sees the same", func(t *testing.T) {
		reader := env.Signup(t, "reader")
		again := env.preview(body, reader.Token)
		require.Equal(t, http.StatusOK, again.Status, "%s", again)
		assert.JSONEq(t, string(res.Body), string(again.Body))
	})
	t.Run("a quantity only the far store has moves the choice", func(t *testing.T) {
		res := env.preview(map[string]any{"items": []any{bookLine(ids[0], 4)}, "shippingAddress": previewPortland}, "")
		require.Equal(t, http.StatusOK, res.Status, "%s", res)
		ss := availableStores(t, res, 0)
		require.Len(t, ss, 3)
		assert.Equal(t, far.ID, ss[0]["storeId"])
		assert.Equal(t, true, ss[0]["cheapest"])
		assert.Equal(t, true, ss[0]["nearest"], "the only store in stock with a distance")
		assert.Equal(t, []any{false, false}, []any{ss[1]["inStock"], ss[2]["inStock"]})
		assert.Equal(t, []any{near.ID, abroad.ID}, []any{ss[2]["storeId"], ss[1]["storeId"]}, "short stores cheapest first too")
	})
	t.Run("a ZIP code the dataset lacks: no distances, still routed", func(t *testing.T) {
		res := env.preview(map[string]any{"items": []any{bookLine(ids[0], 1)}, "shippingAddress": map[string]any{"postalCode": "00000-1234", "country": "us"}}, "")
		require.Equal(t, http.StatusOK, res.Status, "%s", res)
		ss := availableStores(t, res, 0)
		require.Len(t, ss, 3)
		assert.Equal(t, abroad.ID, ss[0]["storeId"], "one copy is enough for one")
		for _, s := range ss {
			assert.Nil(t, s["distance"])
			assert.Equal(t, false, s["nearest"])
		}
	})
}

func TestPreview_SoldOutStockIsNotListed(t *testing.T) {
	env := newPreviewEnv(t)
	s := env.openShop("sold-out", "97209", "US", 0)
	ids := env.catalog()
	id := env.stock(s, ids[0], 1, 999, "new")
	body := map[string]any{"items": []any{bookLine(ids[0], 1)}, "shippingAddress": previewPortland}
	res := env.preview(body, "")
	require.Equal(t, http.StatusOK, res.Status, "%s", res)
	require.Len(t, availableStores(t, res, 0), 1)

	adj := env.Do("PUT", "/v1/inventory/"+id+"/adjust", map[string]any{"storeId": s.ID, "adjustment": -1, "reason": "sold at the till"}, s.Owner.Token)
	require.Equal(t, http.StatusOK, adj.Status, "%s", adj)
	res = env.preview(body, "")
	require.Equal(t, http.StatusOK, res.Status, "%s", res)
	assert.Empty(t, availableStores(t, res, 0))
	routing := res.JSON["routing"].(map[string]any)
	assert.Equal(t, orders.Totals{}, totalsOf(t, routing["options"].(map[string]any)["ship"]), "nothing routed, nothing to pay")
	assert.EqualValues(t, 0, routing["estimatedShippingCents"])
}

func TestPreview_PricingFromSettings(t *testing.T) {
	env := newPreviewEnv(t, testenv.WithEnv(orders.EnvShippingBaseCents, "250"), testenv.WithEnv(orders.EnvShippingPerCopyCents, "50"))
	s := env.openShop("settings-books", "97209", "US", 0)
	ids := env.catalog()
	env.stock(s, ids[0], 5, 1000, "new")
	res := env.preview(map[string]any{"items": []any{bookLine(ids[0], 3)}, "shippingAddress": previewPortland}, "")
	require.Equal(t, http.StatusOK, res.Status, "%s", res)
	assert.EqualValues(t, 250+2*50, res.JSON["routing"].(map[string]any)["estimatedShippingCents"])
}

func TestPreview_Refusals(t *testing.T) {
	env := newPreviewEnv(t)
	s := env.openShop("refusal-books", "97209", "US", 0)
	ids := env.catalog()
	env.stock(s, ids[0], 5, 1000, "new")
	unknown := "00000000-0000-4000-8000-000000000000"
	body := func(edit func(map[string]any)) map[string]any {
		b := map[string]any{"items": []any{bookLine(ids[0], 1), bookLine(ids[1], 2)}, "shippingAddress": map[string]any{"postalCode": "97209", "country": "US"}}
		edit(b)
		return b
	}
	many := make([]any, 16)
	for i := range many {
		many[i] = bookLine(fmt.Sprintf("00000000-0000-4000-8000-%012d", i), 1)
	}
	for _, c := range []struct {
		name  string
		body  any
		field string
	}{
		{"quantity 0", body(func(b map[string]any) { b["items"].([]any)[1] = bookLine(ids[1], 0) }), "items[1].quantity"},
		{"quantity 100", body(func(b map[string]any) { b["items"].([]any)[1] = bookLine(ids[1], 100) }), "items[1].quantity"},
		{"negative quantity", body(func(b map[string]any) { b["items"].([]any)[0] = bookLine(ids[0], -1) }), "items[0].quantity"},
		{"decimal quantity", body(func(b map[string]any) { b["items"].([]any)[0] = bookLine(ids[0], 1.5) }), "items[0].quantity"},
		{"quantity as text", body(func(b map[string]any) { b["items"].([]any)[0] = bookLine(ids[0], "1") }), "items[0].quantity"},
		{"no quantity", body(func(b map[string]any) { b["items"].([]any)[0] = map[string]any{"bookId": ids[0]} }), "items[0].quantity"},
		{"malformed book id", body(func(b map[string]any) { b["items"].([]any)[0] = bookLine("nope", 1) }), "items[0].bookId"},
		{"no book id", body(func(b map[string]any) { b["items"].([]any)[0] = map[string]any{"quantity": 1} }), "items[0].bookId"},
		{"a book twice", body(func(b map[string]any) { b["items"].([]any)[1] = bookLine(ids[0], 1) }), "items[1].bookId"},
		{"no items", body(func(b map[string]any) { b["items"] = []any{} }), "items"},
		{"16 books", body(func(b map[string]any) { b["items"] = many }), "items"},
		{"no address", body(func(b map[string]any) { delete(b, "shippingAddress") }), "shippingAddress.postalCode"},
		{"no postal code", body(func(b map[string]any) { b["shippingAddress"] = map[string]any{"country": "US"} }), "shippingAddress.postalCode"},
		{"short ZIP", body(func(b map[string]any) { b["shippingAddress"] = map[string]any{"postalCode": "9720", "country": "US"} }), "shippingAddress.postalCode"},
		{"ZIP with letters", body(func(b map[string]any) { b["shippingAddress"] = map[string]any{"postalCode": "9720A", "country": "US"} }), "shippingAddress.postalCode"},
		{"no country", body(func(b map[string]any) { b["shippingAddress"] = map[string]any{"postalCode": "97209"} }), "shippingAddress.country"},
		{"another country", body(func(b map[string]any) {
			b["shippingAddress"] = map[string]any{"postalCode": "V6B 1A1", "country": "CA"}
		}), "shippingAddress.country"},
		{"bad fulfilment", body(func(b map[string]any) { b["fulfilment"] = "drone" }), "fulfilment"},
	} {
		res := env.preview(c.body, "")
		testenv.AssertError(t, res, http.StatusBadRequest, "ValidationError", "")
		assert.Contains(t, testenv.FieldErrors(t, res), c.field, c.name)
	}

	t.Run("unknown books are named", func(t *testing.T) {
		res := env.preview(body(func(b map[string]any) { b["items"] = []any{bookLine(ids[0], 1), bookLine(unknown, 1)} }), "")
		testenv.AssertError(t, res, http.StatusBadRequest, "ValidationError", "Unknown books: "+unknown)
		assert.Equal(t, map[string]any{"items[1].bookId": "no book has this id"}, testenv.FieldErrors(t, res))
		assert.Equal(t, []any{unknown}, testenv.ErrorOf(t, res)["details"].(map[string]any)["bookIds"])
	})
	t.Run("every bad field at once", func(t *testing.T) {
		res := env.preview(map[string]any{"items": []any{bookLine("nope", 0)}, "shippingAddress": map[string]any{"postalCode": "1", "country": "US"}, "fulfilment": "drone"}, "")
		testenv.AssertError(t, res, http.StatusBadRequest, "ValidationError", "")
		assert.Len(t, testenv.FieldErrors(t, res), 4)
	})
	t.Run("malformed body", func(t *testing.T) {
		testenv.AssertError(t, env.preview(`{"items": [`, ""), http.StatusBadRequest, "ValidationError", "")
		testenv.AssertError(t, env.preview(`{"items": {}}`, ""), http.StatusBadRequest, "ValidationError", "")
	})
}
