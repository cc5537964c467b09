package main

import (
	"context"
	"net/http"
	"os"
	"path/filepath"
	"testing"

	"github.com/bookplatform/backend/local/catalog"
	"github.com/bookplatform/backend/local/dynamodblocal"
	"github.com/bookplatform/backend/local/testenv"
	"github.com/bookplatform/backend/shared/books"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// Both demo stores are stocked with books of the demo catalog (in
// stock, at least 50 each, at least 20 in both, a few used), through
// the StockWriter: with history and exact counts; a second start
// changes nothing, not even what an owner changed.
func TestSeedInventory(t *testing.T) {
	t.Parallel()
	env := testenv.New(t)
	ctx := context.Background()
	require.NoError(t, seedDemo(ctx, env.App))
	root, err := dynamodblocal.ModuleRoot("")
	require.NoError(t, err)
	f, err := os.Open(filepath.Join(root, catalog.DemoFile))
	require.NoError(t, err)
	recs, _, err := books.ParseJSONLines(f)
	f.Close()
	require.NoError(t, err)
	_, err = env.App.Books.Import(ctx, recs[:demoStockSecond+demoStockPerShop+10]) // the books the stock needs
	require.NoError(t, err)
	require.NoError(t, seedInventory(ctx, env.App, root))

	login := func(email string) string {
		res := env.Do("POST", "/v1/auth/login", map[string]any{"email": email, "password": DemoPassword}, "")
		require.Equal(t, http.StatusOK, res.Status, res.String())
		return res.JSON["token"].(string)
	}
	stocked := map[string][]string{}
	for _, email := range []string{"owner@example.com", "owner2@example.com"} {
		token := login(email)
		st := env.Do("GET", "/v1/stores/my", nil, token).JSON
		storeID := st["id"].(string)
		res := env.Do("GET", "/v1/inventory?limit=100&inStockOnly=true&storeId="+storeID, nil, token)
		require.Equal(t, http.StatusOK, res.Status, res.String())
		assert.EqualValues(t, demoStockPerShop, res.JSON["total"], "every item in stock")
		assert.EqualValues(t, demoStockPerShop, st["inventoryCount"])
		used := 0
		for _, it := range res.JSON["items"].([]any) {
			m := it.(map[string]any)
			stocked[email] = append(stocked[email], m["bookId"].(string))
			if m["condition"] != "new" {
				used++
			}
		}
		assert.GreaterOrEqual(t, used, 3, "a few used")
		first := res.JSON["items"].([]any)[0].(map[string]any)
		h := env.Do("GET", "/v1/inventory/"+first["id"].(string)+"/history?storeId="+storeID, nil, token)
		require.Len(t, h.JSON["items"], 1, "its history has the stocking")
		if email == "owner@example.com" {
			// The owner sells out one title; the next start leaves it so.
			res := env.Do("PUT", "/v1/inventory/"+first["id"].(string)+"/adjust",
				map[string]any{"storeId": storeID, "adjustment": -first["quantity"].(float64), "reason": "sold out"}, token)
			require.Equal(t, http.StatusOK, res.Status, res.String())
			require.NoError(t, seedInventory(ctx, env.App, root))
			again := env.Do("GET", "/v1/inventory?limit=100&storeId="+storeID, nil, token)
			assert.EqualValues(t, demoStockPerShop, again.JSON["total"])
			assert.EqualValues(t, 0, env.Do("GET", "/v1/inventory/"+first["id"].(string)+"?storeId="+storeID, nil, token).JSON["quantity"])
		}
	}
	assert.Len(t, intersect(stocked["owner@example.com"], stocked["owner2@example.com"]), demoStockFirst+demoStockPerShop-demoStockSecond)
}

func intersect(a, b []string) []string {
	in := map[string]bool{}
	for _, x := range a {
		in[x] = true
	}
	var out []string
	for _, x := range b {
		if in[x] {
			out = append(out, x)
		}
	}
	return out
}
