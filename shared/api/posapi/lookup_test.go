package posapi_test

import (
	"net/http"
	"testing"

	"github.com/bookplatform/backend/local/testenv"
	"github.com/bookplatform/backend/shared/books"
	"github.com/bookplatform/backend/shared/inventory"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func lookupStock(t *testing.T, env *testenv.Env, s testenv.Shop, bookID string, quantity, price int, condition inventory.Condition) {
	t.Helper()
	res := env.Do("POST", "/v1/inventory", map[string]any{"storeId": s.ID, "bookId": bookID, "quantity": quantity,
		"priceCents": price, "condition": condition}, s.Owner.Token)
	require.Equal(t, http.StatusCreated, res.Status, "%s", res)
}

func TestLookup(t *testing.T) {
	env := testenv.New(t)
	ids := env.ImportBooks(t,
		books.Record{ISBN: "9780441478125", Title: "The Left Hand of Darkness", Authors: []string{"Ursula K. Le Guin"}},
		books.Record{ISBN: "9780807083697", Title: "Kindred", Authors: []string{"Octavia E. Butler"}},
		books.Record{ISBN: "9791090636071", Title: "Un livre 979", Authors: []string{"A. Auteur", "B. Autrice"}},
		books.Record{ISBN: "9780306406157", Title: "Sold Out"},
	)
	leftHand, kindred, nine79, soldOut := ids[0], ids[1], ids[2], ids[3]
	shop := openShop(t, env, "lookup-main", 0)
	other := openShop(t, env, "lookup-other", 0)
	lookupStock(t, env, shop, leftHand, 3, 1899, inventory.New)
	lookupStock(t, env, shop, kindred, 1, 650, inventory.UsedGood)
	lookupStock(t, env, shop, soldOut, 0, 1000, inventory.New)
	lookupStock(t, env, other, kindred, 7, 1200, inventory.New)
	get := func(barcode, query, token string) *testenv.Response {
		return env.Do("GET", "/api/pos/lookup/"+barcode+query, nil, token)
	}

	t.Run("every form of one book's barcode", func(t *testing.T) {
		want := map[string]any{
			"book": map[string]any{"id": leftHand, "isbn13": "9780441478125", "isbn10": "0441478123",
				"title": "The Left Hand of Darkness", "authors": []any{"Ursula K. Le Guin"}},
			"inventory": map[string]any{"id": inventory.ItemID(shop.ID, leftHand), "quantity": float64(3), "priceCents": float64(1899),
				"condition": "new", "isUsed": false},
		}
		for _, bc := range []string{"9780441478125", "978-0-441-47812-5", "978%200441%20478125", "0441478123", "0-441-47812-3"} {
			res := get(bc, "?storeId="+shop.ID, shop.Staff.Token)
			require.Equal(t, http.StatusOK, res.Status, "%s: %s", bc, res)
			assert.Equal(t, want, res.JSON, bc)
		}
	})
	t.Run("an ISBN-10 with an X check digit", func(t *testing.T) {
		x := env.ImportBooks(t, books.Record{ISBN: "080442957X", Title: "The X Book", Authors: []string{"Ex Ample"}})[0]
		for _, bc := range []string{"080442957X", "0-8044-2957-x", "9780804429573"} {
			res := get(bc, "", shop.Owner.Token)
			require.Equal(t, http.StatusOK, res.Status, "%s: %s", bc, res)
			assert.Equal(t, x, res.JSON["book"].(map[string]any)["id"])
			assert.Equal(t, "080442957X", res.JSON["book"].(map[string]any)["isbn10"])
			assert.Nil(t, res.JSON["inventory"], "not stocked")
		}
	})
	t.Run("a used item, and a 979 book without an ISBN-10", func(t *testing.T) {
		res := get("9780807083697", "", shop.Staff.Token)
		require.Equal(t, http.StatusOK, res.Status, "%s", res)
		assert.Equal(t, map[string]any{"id": inventory.ItemID(shop.ID, kindred), "quantity": float64(1), "priceCents": float64(650),
			"condition": "used_good", "isUsed": true}, res.JSON["inventory"])
		res = get("979-10-90636-07-1", "", shop.Staff.Token)
		require.Equal(t, http.StatusOK, res.Status, "%s", res)
		assert.Equal(t, map[string]any{"id": nine79, "isbn13": "9791090636071", "isbn10": nil, "title": "Un livre 979",
			"authors": []any{"A. Auteur", "B. Autrice"}}, res.JSON["book"])
		assert.Nil(t, res.JSON["inventory"])
	})
	t.Run("inventory null at quantity 0, and the named store's stock", func(t *testing.T) {
		res := get("9780306406157", "", shop.Staff.Token)
		require.Equal(t, http.StatusOK, res.Status, "%s", res)
		assert.Equal(t, []any{}, res.JSON["book"].(map[string]any)["authors"])
		v, present := res.JSON["inventory"]
		assert.True(t, present, "inventory is null, not absent")
		assert.Nil(t, v, "no copy in stock")
		// The other store's owner sees its own stock of Kindred.
		res = get("0807083690", "", other.Owner.Token)
		require.Equal(t, http.StatusOK, res.Status, "%s", res)
		assert.Equal(t, float64(7), res.JSON["inventory"].(map[string]any)["quantity"])
	})
	t.Run("no book matches", func(t *testing.T) {
		for _, bc := range []string{
			"9780000000002", // a valid ISBN-13 not in the catalog
			"0-00-000000-0", // a valid ISBN-10 likewise
			"036000291452",  // a valid UPC-A: the catalog keeps ISBN-13s only
			"0036000291452", // its 13-digit EAN form
			"4006381333931", // another EAN-13
		} {
			testenv.AssertError(t, get(bc, "", shop.Staff.Token), http.StatusNotFound, "NotFound", "No book matches this barcode")
		}
	})
	t.Run("a bad barcode", func(t *testing.T) {
		for _, bc := range []string{"9780441478126", "0441478124", "036000291453", "97804414781", "978044147812555", "abc", "978044147812X", "12345678"} {
			res := get(bc, "", shop.Staff.Token)
			testenv.AssertError(t, res, http.StatusBadRequest, "ValidationError", "barcode is not a valid ISBN-10, ISBN-13 or UPC-A")
			assert.Contains(t, testenv.FieldErrors(t, res), "barcode", bc)
		}
	})
	t.Run("the store", func(t *testing.T) {
		// Staff of two stores name one; without it, 400.
		require.Equal(t, http.StatusCreated, env.Do("POST", "/v1/stores/"+other.Slug+"/staff", map[string]any{"userId": shop.Staff.ID}, other.Owner.Token).Status)
		res := get("9780807083697", "", shop.Staff.Token)
		testenv.AssertError(t, res, http.StatusBadRequest, "ValidationError", "")
		assert.Contains(t, testenv.FieldErrors(t, res), "storeId")
		res = get("9780807083697", "?storeId="+other.ID, shop.Staff.Token)
		require.Equal(t, http.StatusOK, res.Status, "%s", res)
		assert.Equal(t, float64(7), res.JSON["inventory"].(map[string]any)["quantity"])
		res = get("9780807083697", "?storeId="+shop.ID, shop.Staff.Token)
		require.Equal(t, http.StatusOK, res.Status, "%s", res)
		assert.Equal(t, float64(1), res.JSON["inventory"].(map[string]any)["quantity"])
		testenv.AssertError(t, get("9780807083697", "?storeId=nope", shop.Owner.Token), http.StatusBadRequest, "ValidationError", "")
		testenv.AssertError(t, get("9780807083697", "?storeId=00000000-0000-4000-8000-000000000000", shop.Owner.Token), http.StatusNotFound, "NotFound", "")
	})
	t.Run("roles", func(t *testing.T) {
		reader := env.Signup(t, "lookup_reader")
		path := "9780441478125"
		// The owner and staff of the store; the owner and staff of
		// another store naming it; a reader; no token.
		assert.Equal(t, http.StatusOK, get(path, "?storeId="+shop.ID, shop.Owner.Token).Status)
		assert.Equal(t, http.StatusOK, get(path, "?storeId="+other.ID, other.Staff.Token).Status)
		testenv.AssertError(t, get(path, "?storeId="+shop.ID, other.Owner.Token), http.StatusForbidden, "Forbidden", "")
		testenv.AssertError(t, get(path, "?storeId="+shop.ID, other.Staff.Token), http.StatusForbidden, "Forbidden", "")
		testenv.AssertError(t, get(path, "?storeId="+shop.ID, reader.Token), http.StatusForbidden, "Forbidden", "")
		testenv.AssertError(t, get(path, "", reader.Token), http.StatusForbidden, "Forbidden", "")
		testenv.AssertError(t, get(path, "?storeId="+shop.ID, ""), http.StatusUnauthorized, "Unauthorized", "")
		// The role is checked before the barcode: a refused caller learns
		// nothing of it.
		for _, bc := range []string{"036000291452", "9780000000002", "bad"} {
			testenv.AssertError(t, get(bc, "?storeId="+shop.ID, reader.Token), http.StatusForbidden, "Forbidden", "")
			testenv.AssertError(t, get(bc, "?storeId="+shop.ID, other.Staff.Token), http.StatusForbidden, "Forbidden", "")
			testenv.AssertError(t, get(bc, "", ""), http.StatusUnauthorized, "Unauthorized", "")
		}
	})
}
