package adminapi_test

import (
	"context"
	"net/http"
	"testing"
	"time"

	"github.com/bookplatform/backend/local/testenv"
	"github.com/bookplatform/backend/shared/books"
	"github.com/bookplatform/backend/shared/dynamo"
	"github.com/bookplatform/backend/shared/earnings"
	gdynamo "github.com/guregu/dynamo/v2"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// auditEntries are the audit items stored about one target (GSI2),
// oldest first.
func auditEntries(t *testing.T, env *testenv.Env, targetType, targetID string) []map[string]any {
	t.Helper()
	var out []map[string]any
	err := gdynamo.NewFromIface(env.App.Table.DB).Table(env.App.Table.Table).
		Get("GSI2PK", "AUDITON#"+targetType+"#"+targetID).Index("GSI2").All(context.Background(), &out)
	require.NoError(t, err)
	return out
}

// moneyWorld: a store with its owner, a reader and an operator.
type moneyWorld struct {
	env              *testenv.Env
	shop             testenv.Shop
	reader, operator testenv.Account
}

func newMoneyWorld(t *testing.T, slug string) *moneyWorld {
	env := testenv.New(t)
	w := &moneyWorld{env: env, shop: env.OpenShop(t, slug, nil), reader: env.Signup(t, "rd_"+slug[:4]), operator: env.Signup(t, "op_"+slug[:4])}
	env.MakeOperator(t, w.operator)
	return w
}

// Marking payouts paid: only operators; the record and the store's
// totals move in one transaction with the audit entry; every refusal.
func TestMoney_PayoutsMarkedPaid(t *testing.T) {
	w := newMoneyWorld(t, "paid-books")
	env, ctx := w.env, context.Background()
	store := dynamo.NewEarnings(env.App.Table)
	orderID := "0193a8c4-2f6e-7d1a-9b3c-000000000001"
	require.NoError(t, store.Accrue(ctx, earnings.Commission{ID: earnings.CommissionID(orderID), StoreID: w.shop.ID, OrderID: orderID,
		OrderNumber: "BW-20261001-AAAAAA", OrderTotalCents: 4000, OrderCreatedAt: time.Now(), CommissionCents: 200,
		Status: earnings.Pending, CreatedAt: time.Now()}))
	require.NoError(t, store.PutPoolPayout(ctx, earnings.PoolPayout{ID: earnings.PoolPayoutID("2026-10", w.shop.ID), StoreID: w.shop.ID,
		Month: "2026-10", PayoutAmountCents: 600, Status: earnings.Pending, CreatedAt: time.Now()}))
	com := "/v1/admin/stores/" + w.shop.ID + "/payouts/orders/" + orderID + "/paid"
	pool := "/v1/admin/stores/" + w.shop.ID + "/payouts/pool/2026-10/paid"
	body := map[string]any{"reference": " tr_123 ", "reason": "October transfer"}

	t.Run("only operators", func(t *testing.T) {
		for _, path := range []string{com, pool} {
			assert.Equal(t, http.StatusUnauthorized, env.Do("POST", path, body, "").Status)
			assert.Equal(t, http.StatusForbidden, env.Do("POST", path, body, w.reader.Token).Status)
			assert.Equal(t, http.StatusForbidden, env.Do("POST", path, body, w.shop.Owner.Token).Status, "not the store's owner either")
		}
		assert.Equal(t, int64(200), totals(t, store, w.shop.ID).AffiliatePendingCents, "nothing moved")
	})
	t.Run("bad requests", func(t *testing.T) {
		testenv.AssertError(t, env.Do("POST", com, map[string]any{"reference": "  "}, w.operator.Token), 400, "ValidationError", "")
		res := env.Do("POST", "/v1/admin/stores/"+w.shop.ID+"/payouts/pool/2026-13/paid", body, w.operator.Token)
		require.Equal(t, http.StatusBadRequest, res.Status, "%s", res)
		assert.Contains(t, testenv.FieldErrors(t, res), "month")
		long := make([]byte, 201)
		for i := range long {
			long[i] = 'x'
		}
		assert.Equal(t, http.StatusBadRequest, env.Do("POST", pool, map[string]any{"reference": string(long)}, w.operator.Token).Status)
	})
	t.Run("unknown store or record", func(t *testing.T) {
		other := "0193a8c4-2f6e-7d1a-9b3c-0000000000ff"
		assert.Equal(t, http.StatusNotFound, env.Do("POST", "/v1/admin/stores/"+other+"/payouts/orders/"+orderID+"/paid", body, w.operator.Token).Status)
		assert.Equal(t, http.StatusNotFound, env.Do("POST", "/v1/admin/stores/"+w.shop.ID+"/payouts/orders/"+other+"/paid", body, w.operator.Token).Status)
		assert.Equal(t, http.StatusNotFound, env.Do("POST", "/v1/admin/stores/"+w.shop.ID+"/payouts/pool/2026-09/paid", body, w.operator.Token).Status)
	})
	t.Run("paid once, with its audit entry", func(t *testing.T) {
		res := env.Do("POST", com, body, w.operator.Token)
		require.Equal(t, http.StatusOK, res.Status, "%s", res)
		assert.Equal(t, "paid", res.JSON["status"])
		assert.Equal(t, "tr_123", res.JSON["paidReference"])
		assert.EqualValues(t, 200, res.JSON["commissionCents"])
		res = env.Do("POST", pool, body, w.operator.Token)
		require.Equal(t, http.StatusOK, res.Status, "%s", res)
		assert.Equal(t, "paid", res.JSON["status"])
		assert.Equal(t, earnings.Totals{AffiliatePaidCents: 200, PoolPaidCents: 600}, totals(t, store, w.shop.ID))

		for _, target := range []string{earnings.CommissionID(orderID), earnings.PoolPayoutID("2026-10", w.shop.ID)} {
			es := auditEntries(t, env, "payout", target)
			require.Len(t, es, 1, target)
			e := es[0]
			assert.Equal(t, "payout.paid", e["action"])
			assert.Equal(t, w.operator.ID, e["actorId"])
			assert.Equal(t, "October transfer", e["reason"])
			assert.Equal(t, "tr_123", e["detail"].(map[string]any)["reference"])
			assert.Nil(t, e["apart"], "written in the action's transaction")
		}

		again := env.Do("POST", com, body, w.operator.Token)
		testenv.AssertError(t, again, 400, "ValidationError", "The payout record is paid already")
		assert.Equal(t, http.StatusBadRequest, env.Do("POST", pool, body, w.operator.Token).Status)
		assert.Len(t, auditEntries(t, env, "payout", earnings.CommissionID(orderID)), 1, "a refusal writes no entry")
		assert.Equal(t, earnings.Totals{AffiliatePaidCents: 200, PoolPaidCents: 600}, totals(t, store, w.shop.ID))
	})
	t.Run("a reversal marked paid is its own entry's target", func(t *testing.T) {
		// The paid commission's order is refunded: its reversal is the
		// pending record, and marking the order paid settles it.
		require.NoError(t, store.Reverse(ctx, w.shop.ID, orderID, time.Now()))
		res := env.Do("POST", com, map[string]any{"reference": "tr_back", "reason": "clawed back"}, w.operator.Token)
		require.Equal(t, http.StatusOK, res.Status, "%s", res)
		assert.Equal(t, earnings.ReversalID(orderID), res.JSON["id"])
		assert.Equal(t, true, res.JSON["reversal"])
		assert.EqualValues(t, -200, res.JSON["commissionCents"])
		assert.Equal(t, earnings.Totals{PoolPaidCents: 600}, totals(t, store, w.shop.ID))

		assert.Len(t, auditEntries(t, env, "payout", earnings.CommissionID(orderID)), 1, "the commission's entry alone")
		es := auditEntries(t, env, "payout", earnings.ReversalID(orderID))
		require.Len(t, es, 1, "the reversal's entry names the reversal")
		assert.Equal(t, earnings.ReversalID(orderID), es[0]["targetId"])
		assert.Equal(t, "reversal", es[0]["detail"].(map[string]any)["kind"])
		assert.Equal(t, "tr_back", es[0]["detail"].(map[string]any)["reference"])
		assert.Nil(t, es[0]["apart"], "written in the action's transaction")
		testenv.AssertError(t, env.Do("POST", com, body, w.operator.Token), 400, "ValidationError", "The payout record is paid already")
	})
}

func totals(t *testing.T, store *dynamo.Earnings, storeID string) earnings.Totals {
	t.Helper()
	tt, err := store.Totals(context.Background(), storeID)
	require.NoError(t, err)
	return tt
}

// A refund after delivery goes through the payment provider once, moves
// the order to refunded with its commission reversed and the audit
// entry in the same transaction; an order still at its store is the
// owner's to cancel (409); every refusal.
func TestMoney_RefundAfterDelivery(t *testing.T) {
	w := newMoneyWorld(t, "refund-books")
	env := w.env
	bk := env.ImportBooks(t, books.Record{Title: "Dune", Authors: []string{"Frank Herbert"}, ISBN: "9780441172719"})
	res := env.Do("POST", "/v1/inventory", map[string]any{"storeId": w.shop.ID, "bookId": bk[0], "quantity": 5, "priceCents": 2000, "condition": "new"}, w.shop.Owner.Token)
	require.Equal(t, http.StatusCreated, res.Status, "%s", res)
	item := res.JSON["id"].(string)
	// The reader's home store is the shop: the order earns it a commission.
	require.Equal(t, http.StatusOK, env.Do("PUT", "/v1/users/me/home-store", map[string]any{"storeId": w.shop.ID}, w.reader.Token).Status)
	order := func() (string, string) {
		res := env.Do("POST", "/v1/orders", map[string]any{"items": []any{map[string]any{"inventoryId": item, "quantity": 1}},
			"paymentMethodId": "pm_card_visa", "fulfilment": "pickup"}, w.reader.Token)
		require.Equal(t, http.StatusCreated, res.Status, "%s", res)
		id, sess := res.JSON["id"].(string), res.JSON["checkoutSessionId"].(string)
		require.Equal(t, http.StatusOK, env.Do("POST", "/v1/orders/confirm", map[string]any{"sessionId": sess}, "").Status)
		return id, sess
	}
	step := func(id, s string) {
		res := env.Do("POST", "/v1/stores/"+w.shop.Slug+"/orders/"+id+"/"+s, nil, w.shop.Owner.Token)
		require.Equal(t, http.StatusOK, res.Status, "%s", res)
	}
	delivered, sess := order()
	step(delivered, "ready-for-pickup")
	step(delivered, "picked-up")
	waiting, _ := order()
	refund := func(id string) string { return "/v1/admin/orders/" + id + "/refund" }
	body := map[string]any{"reason": "damaged in the store's bag"}
	store := dynamo.NewEarnings(env.App.Table)
	before := totals(t, store, w.shop.ID)
	require.Positive(t, before.AffiliatePendingCents)

	t.Run("only operators", func(t *testing.T) {
		assert.Equal(t, http.StatusUnauthorized, env.Do("POST", refund(delivered), body, "").Status)
		assert.Equal(t, http.StatusForbidden, env.Do("POST", refund(delivered), body, w.reader.Token).Status)
		assert.Equal(t, http.StatusForbidden, env.Do("POST", refund(delivered), body, w.shop.Owner.Token).Status)
	})
	t.Run("refusals", func(t *testing.T) {
		assert.Equal(t, http.StatusBadRequest, env.Do("POST", refund(delivered), map[string]any{"reason": " "}, w.operator.Token).Status)
		assert.Equal(t, http.StatusBadRequest, env.Do("POST", refund(delivered), map[string]any{"reason": "x", "amountCents": 1}, w.operator.Token).Status,
			"partial refunds are not supported")
		assert.Equal(t, http.StatusNotFound, env.Do("POST", refund("0193a8c4-2f6e-7d1a-9b3c-5e7f9a1b3c5d"), body, w.operator.Token).Status)
		res := env.Do("POST", refund(waiting), body, w.operator.Token)
		testenv.AssertError(t, res, 409, "Conflict", "")
		in, _ := env.Payments.Intent(sess)
		assert.Zero(t, in.RefundedCents, "nothing refunded")
	})
	t.Run("refunded once, with its audit entry", func(t *testing.T) {
		o := env.Do("GET", "/v1/orders/"+delivered, nil, w.reader.Token)
		res := env.Do("POST", refund(delivered), map[string]any{"reason": "damaged in the store's bag", "amountCents": o.JSON["totalCents"]}, w.operator.Token)
		require.Equal(t, http.StatusOK, res.Status, "%s", res)
		assert.Equal(t, "refunded", res.JSON["status"])
		assert.Equal(t, "refunded", res.JSON["paymentStatus"])
		in, _ := env.Payments.Intent(sess)
		assert.Equal(t, in.CapturedCents, in.RefundedCents, "refunded in full at the provider")
		after := totals(t, store, w.shop.ID)
		assert.Less(t, after.AffiliatePendingCents, before.AffiliatePendingCents, "the commission is reversed")

		es := auditEntries(t, env, "order", delivered)
		require.Len(t, es, 1)
		assert.Equal(t, "order.refund", es[0]["action"])
		assert.Equal(t, w.operator.ID, es[0]["actorId"])
		assert.Equal(t, "damaged in the store's bag", es[0]["reason"])
		assert.Nil(t, es[0]["apart"], "written in the refund's transaction")

		again := env.Do("POST", refund(delivered), body, w.operator.Token)
		testenv.AssertError(t, again, 409, "Conflict", "Order is refunded already")
		in2, _ := env.Payments.Intent(sess)
		assert.Equal(t, in.RefundedCents, in2.RefundedCents, "twice is once")
		assert.Equal(t, after, totals(t, store, w.shop.ID))
		assert.Len(t, auditEntries(t, env, "order", delivered), 1)
	})
}
