package main

import (
	"context"
	"net/http"
	"testing"

	"github.com/bookplatform/backend/local/testenv"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// The demo reader holds $25.00 of trade credit at the demo store, one
// grant by its owner; a second start grants nothing more.
func TestSeedTradeCredit(t *testing.T) {
	t.Parallel()
	env := testenv.New(t)
	ctx := context.Background()
	require.NoError(t, seedDemo(ctx, env.App))
	require.NoError(t, seedTradeCredit(ctx, env.App))
	require.NoError(t, seedTradeCredit(ctx, env.App))

	login := func(email string) string {
		res := env.Do("POST", "/v1/auth/login", map[string]any{"email": email, "password": DemoPassword}, "")
		require.Equal(t, http.StatusOK, res.Status, res.String())
		return res.JSON["token"].(string)
	}
	mine := env.Do("GET", "/v1/trade-credit/me", nil, login("reader@example.com"))
	require.Equal(t, http.StatusOK, mine.Status, mine.String())
	require.Len(t, mine.JSON["balances"], 1)
	b := mine.JSON["balances"].([]any)[0].(map[string]any)
	assert.Equal(t, "Demo Corner Books", b["storeName"])
	assert.EqualValues(t, 2500, b["balanceCents"])

	// The store's staff read it, with its one entry, by default at their
	// own store.
	readerID := env.Do("GET", "/v1/users/me", nil, login("reader@example.com")).JSON["id"].(string)
	ledger := env.Do("GET", "/v1/trade-credit?customerUserId="+readerID, nil, login("staff@example.com"))
	require.Equal(t, http.StatusOK, ledger.Status, ledger.String())
	assert.EqualValues(t, 2500, ledger.JSON["balanceCents"])
	require.Len(t, ledger.JSON["entries"], 1)
	e := ledger.JSON["entries"].([]any)[0].(map[string]any)
	assert.Equal(t, "Traded in 5 paperbacks", e["reason"])
	assert.Equal(t, "grant", e["kind"])
}
