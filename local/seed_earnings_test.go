package main

import (
	"context"
	"net/http"
	"testing"

	"github.com/bookplatform/backend/local/testenv"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// The demo store shows commissions (one paid) and a pool payout, and
// its earnings are their sums; a second start writes nothing.
func TestSeedEarnings(t *testing.T) {
	t.Parallel()
	env := testenv.New(t)
	ctx := context.Background()
	require.NoError(t, seedDemo(ctx, env.App))
	require.NoError(t, seedEarnings(ctx, env.App))
	require.NoError(t, seedEarnings(ctx, env.App))

	res := env.Do("POST", "/v1/auth/login", map[string]any{"email": "owner@example.com", "password": DemoPassword}, "")
	require.Equal(t, http.StatusOK, res.Status, res.String())
	token := res.JSON["token"].(string)
	base := "/v1/stores/demo-corner-books"
	comm := env.Do("GET", base+"/affiliate-commissions", nil, token)
	require.Equal(t, http.StatusOK, comm.Status, comm.String())
	require.Len(t, comm.JSON["payouts"], 3)
	pool := env.Do("GET", base+"/pool-payouts", nil, token)
	require.Len(t, pool.JSON["payouts"], 1)
	assert.EqualValues(t, 927, pool.JSON["payouts"].([]any)[0].(map[string]any)["payoutAmountCents"], "1236 × 3/4")
	e := env.Do("GET", base+"/earnings", nil, token).JSON["earnings"].(map[string]any)
	aff := e["affiliateCommissions"].(map[string]any)
	assert.EqualValues(t, 229, aff["paidCents"], "5% of 45.97")
	assert.EqualValues(t, 144+372, aff["pendingCents"])
	assert.EqualValues(t, 927, e["poolPayouts"].(map[string]any)["pendingCents"])
}
