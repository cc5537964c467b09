package earningsapi_test

import (
	"context"
	"fmt"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/bookplatform/backend/local/testenv"
	"github.com/bookplatform/backend/shared/dynamo"
	"github.com/bookplatform/backend/shared/earnings"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func TestMain(m *testing.M) { testenv.Main(m) }

// accrue writes a pending commission of an order of subtotal, as the
// order transaction does, at the default rate.
func accrue(t *testing.T, store *dynamo.Earnings, storeID, orderID string, subtotal int64, at time.Time) earnings.Commission {
	t.Helper()
	c := earnings.Commission{ID: earnings.CommissionID(orderID), StoreID: storeID, OrderID: orderID,
		OrderNumber: "BW-" + at.Format("20060102") + "-" + strings.ToUpper(orderID[len(orderID)-6:]), OrderTotalCents: subtotal + 499,
		OrderCreatedAt: at, CommissionCents: earnings.DefaultSettings.Commission(subtotal), Status: earnings.Pending, CreatedAt: at}
	require.NoError(t, store.Accrue(context.Background(), c))
	return c
}

// listAll reads every page of a payout list, limit at a time.
func listAll(t *testing.T, env *testenv.Env, path, token string, limit int) []map[string]any {
	t.Helper()
	sep := "?"
	if strings.Contains(path, "?") {
		sep = "&"
	}
	var out []map[string]any
	cursor := ""
	for range 50 {
		url := fmt.Sprintf("%s%slimit=%d", path, sep, limit)
		if cursor != "" {
			url += "&cursor=" + cursor
		}
		res := env.Do("GET", url, nil, token)
		require.Equal(t, http.StatusOK, res.Status, "%s", res)
		for _, p := range res.JSON["payouts"].([]any) {
			out = append(out, p.(map[string]any))
		}
		next, _ := res.JSON["nextCursor"].(string)
		assert.Equal(t, next != "", res.JSON["hasMore"])
		if next == "" {
			return out
		}
		cursor = next
	}
	t.Fatal("the list does not end")
	return nil
}

func cents(v any) int64 { return int64(v.(float64)) }

// sums adds a list's amounts by status.
func sums(list []map[string]any, field string) (pending, paid int64) {
	for _, p := range list {
		switch p["status"] {
		case "pending":
			pending += cents(p[field])
		case "paid":
			paid += cents(p[field])
		}
	}
	return pending, paid
}

// assertReconciles checks that GET earnings is exactly what the two
// lists hold.
func assertReconciles(t *testing.T, env *testenv.Env, s testenv.Shop) (comm, pool []map[string]any) {
	t.Helper()
	comm = listAll(t, env, "/v1/stores/"+s.Slug+"/affiliate-commissions", s.Owner.Token, 2)
	pool = listAll(t, env, "/v1/stores/"+s.Slug+"/pool-payouts", s.Owner.Token, 1)
	res := env.Do("GET", "/v1/stores/"+s.Slug+"/earnings", nil, s.Owner.Token)
	require.Equal(t, http.StatusOK, res.Status, "%s", res)
	e := res.JSON["earnings"].(map[string]any)
	cp, cpaid := sums(comm, "commissionCents")
	pp, ppaid := sums(pool, "payoutAmountCents")
	want := map[string][2]int64{"affiliateCommissions": {cp, cpaid}, "poolPayouts": {pp, ppaid}, "total": {cp + pp, cpaid + ppaid}}
	for kind, w := range want {
		got := e[kind].(map[string]any)
		assert.Equal(t, w[0], cents(got["pendingCents"]), kind)
		assert.Equal(t, w[1], cents(got["paidCents"]), kind)
		assert.Equal(t, w[0]+w[1], cents(got["totalCents"]), kind)
	}
	return comm, pool
}

func TestEarnings_TotalsAreTheListsSums(t *testing.T) {
	clock := testenv.NewClock(time.Date(2026, 10, 5, 12, 0, 0, 0, time.UTC))
	env := testenv.New(t, testenv.WithClock(clock))
	s := env.OpenShop(t, "earning-shop", nil)
	other := env.OpenShop(t, "other-shop", nil)
	store := dynamo.NewEarnings(env.App.Table)
	svc := &earnings.Service{Store: store, Now: env.App.Now}
	ctx := context.Background()

	t.Run("a store that never earned has zeros and empty lists", func(t *testing.T) {
		comm, pool := assertReconciles(t, env, s)
		assert.Empty(t, comm)
		assert.Empty(t, pool)
	})

	t0 := clock.Now()
	c1 := accrue(t, store, s.ID, "ord-000001", 2999, t0)                  // 149
	c2 := accrue(t, store, s.ID, "ord-000002", 10000, t0.Add(time.Hour))  // 500
	c3 := accrue(t, store, s.ID, "ord-000003", 4000, t0.Add(2*time.Hour)) // 200
	c4 := accrue(t, store, s.ID, "ord-000004", 1234, t0.Add(3*time.Hour)) // 61
	accrue(t, store, other.ID, "ord-000009", 99999, t0.Add(4*time.Hour))  // another store's
	require.NoError(t, store.AddPoolSales(ctx, "2026-10", s.ID, 30000, 0))
	require.NoError(t, store.AddPoolSales(ctx, "2026-10", other.ID, 10000, 0))
	require.NoError(t, store.AddPoolSales(ctx, "2026-10", other.ID, 0, 801))

	t.Run("commissions newest first, with the spec's fields", func(t *testing.T) {
		comm, _ := assertReconciles(t, env, s)
		require.Len(t, comm, 4)
		var ids []string
		for _, c := range comm {
			ids = append(ids, c["id"].(string))
		}
		assert.Equal(t, []string{c4.ID, c3.ID, c2.ID, c1.ID}, ids)
		first := comm[3]
		assert.Equal(t, "ord-000001", first["orderId"])
		assert.EqualValues(t, 149, first["commissionCents"])
		assert.Equal(t, "pending", first["status"])
		assert.Nil(t, first["paidAt"])
		assert.Equal(t, map[string]any{"orderNumber": c1.OrderNumber, "totalCents": float64(2999 + 499), "createdAt": "2026-10-05T12:00:00.000Z"}, first["order"])
		assert.Equal(t, "2026-10-05T12:00:00.000Z", first["createdAt"])
	})

	// The month is over: its pool is split, 801 cents by 30000:10000.
	clock.Set(time.Date(2026, 11, 1, 2, 0, 0, 0, time.UTC))
	s.Owner, other.Owner = env.Login(t, s.Owner), env.Login(t, other.Owner) // a month on: new tokens
	run, err := svc.RunPool(ctx, "2026-10")
	require.NoError(t, err)
	require.Len(t, run.Created, 2)

	_, err = svc.MarkCommissionPaid(ctx, s.ID, c2.OrderID, "tr_1")
	require.NoError(t, err)
	_, err = svc.MarkPoolPayoutPaid(ctx, s.ID, "2026-10", "tr_2")
	require.NoError(t, err)
	// c3's order is cancelled while pending (its record goes), c2's once
	// paid (a reversal nets against the next payout).
	require.NoError(t, store.Reverse(ctx, s.ID, c3.OrderID, clock.Now()))
	require.NoError(t, store.Reverse(ctx, s.ID, c2.OrderID, clock.Now()))

	t.Run("after payouts, payments and reversals, the totals are still the lists' sums", func(t *testing.T) {
		comm, pool := assertReconciles(t, env, s)
		require.Len(t, comm, 4, "c1, c2 (paid), c2's reversal, c4")
		assert.Equal(t, earnings.ReversalID(c2.OrderID), comm[0]["id"], "the reversal is the newest")
		assert.EqualValues(t, -500, comm[0]["commissionCents"])
		assert.Equal(t, "pending", comm[0]["status"])
		require.Len(t, pool, 1)
		assert.Equal(t, "2026-10", pool[0]["poolMonth"])
		assert.EqualValues(t, 601, pool[0]["payoutAmountCents"], "801 × 3/4, and the leftover cent (remainder 3 of 4 beats 1 of 4)")
		assert.Equal(t, "paid", pool[0]["status"])
		assert.Equal(t, "2026-11-01T02:00:00.000Z", pool[0]["paidAt"])
		e := env.Do("GET", "/v1/stores/"+s.Slug+"/earnings", nil, s.Owner.Token).JSON["earnings"].(map[string]any)
		assert.EqualValues(t, 149+61-500, e["affiliateCommissions"].(map[string]any)["pendingCents"], "the reversal nets")
		assert.EqualValues(t, 500, e["affiliateCommissions"].(map[string]any)["paidCents"])
		assert.EqualValues(t, 601, e["poolPayouts"].(map[string]any)["paidCents"])
	})

	t.Run("the status filter", func(t *testing.T) {
		pending := listAll(t, env, "/v1/stores/"+s.Slug+"/affiliate-commissions?status=pending", s.Owner.Token, 1)
		paid := listAll(t, env, "/v1/stores/"+s.Slug+"/affiliate-commissions?status=paid", s.Owner.Token, 1)
		require.Len(t, pending, 3)
		require.Len(t, paid, 1)
		assert.Equal(t, c2.ID, paid[0]["id"])
		assert.Equal(t, "2026-11-01T02:00:00.000Z", paid[0]["paidAt"])
		for _, p := range pending {
			assert.Equal(t, "pending", p["status"])
		}
		for _, bad := range []string{"refunded", "", "PAID"} {
			testenv.AssertError(t, env.Do("GET", "/v1/stores/"+s.Slug+"/affiliate-commissions?status="+bad, nil, s.Owner.Token),
				http.StatusBadRequest, "ValidationError", "status must be pending or paid")
		}
	})

	t.Run("the other store's figures are its own", func(t *testing.T) {
		comm, pool := assertReconciles(t, env, other)
		require.Len(t, comm, 1)
		require.Len(t, pool, 1)
		assert.EqualValues(t, 200, pool[0]["payoutAmountCents"])
	})
}

func TestEarnings_OwnerOnly(t *testing.T) {
	env := testenv.New(t)
	s := env.OpenShop(t, "private-shop", nil)
	reader := env.Signup(t, "just_a_reader")
	for _, path := range []string{"/earnings", "/affiliate-commissions", "/affiliate-commissions?status=paid", "/pool-payouts"} {
		url := "/v1/stores/" + s.Slug + path
		assert.Equal(t, http.StatusOK, env.Do("GET", url, nil, s.Owner.Token).Status, url)
		testenv.AssertError(t, env.Do("GET", url, nil, s.Staff.Token), http.StatusForbidden, "Forbidden", "")
		testenv.AssertError(t, env.Do("GET", url, nil, reader.Token), http.StatusForbidden, "Forbidden", "")
		testenv.AssertError(t, env.Do("GET", url, nil, ""), http.StatusUnauthorized, "Unauthorized", "")
		testenv.AssertError(t, env.Do("GET", "/v1/stores/no-such-shop"+path, nil, s.Owner.Token), http.StatusNotFound, "NotFound", "")
	}
	testenv.AssertError(t, env.Do("GET", "/v1/stores/"+s.Slug+"/pool-payouts?limit=0", nil, s.Owner.Token), http.StatusBadRequest, "ValidationError", "")
	testenv.AssertError(t, env.Do("GET", "/v1/stores/"+s.Slug+"/pool-payouts?cursor=nope", nil, s.Owner.Token), http.StatusBadRequest, "ValidationError", "")
}
