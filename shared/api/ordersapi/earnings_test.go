package ordersapi_test

import (
	"net/http"
	"testing"
	"time"

	"github.com/bookplatform/backend/local/testenv"
	"github.com/bookplatform/backend/shared/dynamo"
	"github.com/bookplatform/backend/shared/earnings"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// Earnings reconcile to the orders that produced them, end to end: orders
// placed through the API accrue the attributed store's commission (5% of
// the subtotal) or feed the month's pool (2%); a cancelled order's
// commission is reversed; the earnings routes' totals are their lists'
// sums; the month's pool job splits exactly the pool the orders fed, by
// the stores' sales, and a second run pays nothing more.
func TestOrders_EarningsReconcileWithTheirOrders(t *testing.T) {
	clock := testenv.NewClock(time.Date(2026, 10, 15, 12, 0, 0, 0, time.UTC))
	env := testenv.New(t, testenv.WithClock(clock))
	a, b := openShop(t, env, "north-books", 0.0825), openShop(t, env, "south-books", 0.05)
	bk := catalog(t, env)
	inA, inA2 := stock(t, env, a, bk[0], 3, 1299), stock(t, env, a, bk[1], 2, 850)
	inB := stock(t, env, b, bk[3], 5, 2000)
	reader := env.Signup(t, "ann_reader")

	place := func(lines ...map[string]any) map[string]any {
		res := env.Do("POST", "/v1/orders", orderBody("pm_card_visa", lines...), reader.Token)
		require.Equal(t, http.StatusCreated, res.Status, "%s", res)
		require.Equal(t, http.StatusOK, env.Do("POST", "/v1/orders/confirm", map[string]any{"sessionId": res.JSON["checkoutSessionId"]}, "").Status)
		return res.JSON
	}
	// Attributed to north (the reader's home store): one kept, one
	// cancelled; then, with no home store, one from south feeds the pool.
	require.Equal(t, http.StatusOK, env.Do("PUT", "/v1/users/me/home-store", map[string]any{"storeId": a.ID}, reader.Token).Status)
	kept := place(line(inA, 2), line(inB, 1))
	cancelled := place(line(inA2, 1))
	require.Equal(t, http.StatusOK, env.Do("POST", "/v1/orders/"+cancelled["id"].(string)+"/cancel", map[string]any{"reason": "changed my mind"}, reader.Token).Status)
	require.Equal(t, http.StatusOK, env.Do("DELETE", "/v1/users/me/home-store", nil, reader.Token).Status)
	pooled := place(line(inB, 2))

	commission := int64(kept["subtotalCents"].(float64)) * 500 / 10_000
	pool := int64(pooled["subtotalCents"].(float64)) * 200 / 10_000
	require.EqualValues(t, 2*1299+2000, kept["subtotalCents"])

	sum := func(list map[string]any, field string) (n int64) {
		for _, p := range list["payouts"].([]any) {
			n += int64(p.(map[string]any)[field].(float64))
		}
		return n
	}
	earn := env.Do("GET", "/v1/stores/north-books/earnings", nil, a.Owner.Token)
	require.Equal(t, http.StatusOK, earn.Status, "%s", earn)
	aff := earn.JSON["earnings"].(map[string]any)["affiliateCommissions"].(map[string]any)
	assert.EqualValues(t, commission, aff["pendingCents"], "the kept order's commission; the cancelled one's reversed")
	list := env.Do("GET", "/v1/stores/north-books/affiliate-commissions?status=pending", nil, a.Owner.Token)
	require.Equal(t, http.StatusOK, list.Status)
	assert.Len(t, list.JSON["payouts"], 1)
	assert.Equal(t, commission, sum(list.JSON, "commissionCents"), "the list's sum is the total")
	assert.Equal(t, kept["id"], list.JSON["payouts"].([]any)[0].(map[string]any)["orderId"])
	south := env.Do("GET", "/v1/stores/south-books/earnings", nil, b.Owner.Token)
	assert.EqualValues(t, 0, south.JSON["earnings"].(map[string]any)["affiliateCommissions"].(map[string]any)["totalCents"])

	// November: October's pool is split by the stores' October sales
	// (north 2598, south 2000 + 4000), to the cent.
	clock.Set(time.Date(2026, 11, 1, 2, 0, 0, 0, time.UTC))
	a.Owner, b.Owner = env.Login(t, a.Owner), env.Login(t, b.Owner) // the tokens expired meanwhile
	svc := &earnings.Service{Store: dynamo.NewEarnings(env.App.Table), Now: env.App.Now}
	run, err := svc.RunPool(t.Context(), "2026-10")
	require.NoError(t, err)
	assert.Equal(t, pool, run.PoolCents)
	again, err := svc.RunPool(t.Context(), "2026-10")
	require.NoError(t, err)
	assert.True(t, again.AlreadyDone, "run twice, paid once")
	var paid int64
	for _, s := range []shop{a, b} {
		res := env.Do("GET", "/v1/stores/"+s.Slug+"/pool-payouts", nil, s.Owner.Token)
		require.Equal(t, http.StatusOK, res.Status)
		got := sum(res.JSON, "payoutAmountCents")
		paid += got
		e := env.Do("GET", "/v1/stores/"+s.Slug+"/earnings", nil, s.Owner.Token).JSON["earnings"].(map[string]any)
		assert.EqualValues(t, got, e["poolPayouts"].(map[string]any)["pendingCents"], "%s: the total is the list's sum", s.Slug)
	}
	assert.Equal(t, pool, paid, "the pool the orders fed, paid exactly")
	// 80 cents by 2598 : 6000 (the cancelled order's sales taken back).
	assert.EqualValues(t, 24, sum(env.Do("GET", "/v1/stores/north-books/pool-payouts", nil, a.Owner.Token).JSON, "payoutAmountCents"))
}
