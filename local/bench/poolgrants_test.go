package main

import (
	"context"
	"net/http"
	"slices"
	"testing"
	"time"

	"github.com/bookplatform/backend/local/testenv"
	"github.com/bookplatform/backend/shared/callstats"
	"github.com/bookplatform/backend/shared/dynamo"
	"github.com/bookplatform/backend/shared/earnings"
	"github.com/bookplatform/backend/shared/groups"
	"github.com/bookplatform/backend/shared/users"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// The monthly pool job has no route either: its handler runs here under
// a call recorder through every path it takes (payouts written, a
// deleted store skipped, a month already run), and the IAM actions its
// calls needed must be exactly what the poolpayouts function is granted,
// in both directions; its Query reads the table, so it is granted no
// index.
func TestCallGrants_poolJob(t *testing.T) {
	clock := testenv.NewClock(time.Date(2026, 11, 1, 2, 0, 0, 0, time.UTC))
	env := testenv.New(t, testenv.WithClock(clock))
	store := dynamo.NewEarnings(env.App.Table)
	var storeIDs []string
	for _, name := range []string{"pool_one", "pool_two"} {
		owner := env.Signup(t, name)
		env.SetTier(t, owner, users.TierBookstore)
		res := env.Do("POST", "/v1/stores", map[string]any{"name": name, "slug": name[5:] + "-pool", "addressLine1": "1 Main St",
			"city": "Portland", "state": "OR", "postalCode": "97209", "country": "US"}, owner.Token)
		require.Equal(t, http.StatusCreated, res.Status, "%s", res)
		storeIDs = append(storeIDs, res.JSON["id"].(string))
		if name == "pool_two" {
			require.Equal(t, http.StatusOK, env.Do("DELETE", "/v1/stores/"+name[5:]+"-pool", nil, owner.Token).Status)
		}
	}
	ctx := context.Background()
	require.NoError(t, store.AddPoolSales(ctx, "2026-10", storeIDs[0], 100, 0))
	require.NoError(t, store.AddPoolSales(ctx, "2026-10", storeIDs[1], 100, 50))

	svc := &earnings.Service{Store: store, Now: env.App.Now}
	rctx, rec := callstats.With(ctx)
	res, err := svc.HandlePool(rctx, earnings.PoolEvent{})
	require.NoError(t, err)
	assert.Equal(t, earnings.PoolResult{Month: "2026-10", PoolCents: 50, PaidCents: 25, Payouts: 1, UnpaidCents: 25}, res)
	res, err = svc.HandlePool(rctx, earnings.PoolEvent{Month: "2026-10"})
	require.NoError(t, err)
	assert.True(t, res.AlreadyDone)

	var job groups.Function
	for _, f := range groups.Functions() {
		if f.Schedule != "" && f.Name == "poolpayouts" {
			job = f
		}
	}
	require.Equal(t, "poolpayouts", job.Name)
	assert.Empty(t, job.Indexes)
	recorded := rec.Actions()
	grants := granted(job)
	for _, a := range recorded {
		if !grants[a] {
			t.Errorf("the pool job needs %s, which function %s is not granted (shared/groups/functions.go poolActions)", a, job.Name)
		}
	}
	for a := range grants {
		if !slices.Contains(recorded, a) {
			t.Errorf("function %s is granted %s, which no pool job call needed (recorded %v): remove the grant", job.Name, a, recorded)
		}
	}
}
