package main

import (
	"bytes"
	"net/http"
	"strings"
	"testing"

	"github.com/bookplatform/backend/local/stripelocal"
	"github.com/bookplatform/backend/local/testenv"
	"github.com/bookplatform/backend/shared/books"
	"github.com/bookplatform/backend/shared/config"
	"github.com/bookplatform/backend/shared/dynamo"
	"github.com/bookplatform/backend/shared/ids"
	"github.com/bookplatform/backend/shared/inventory"
	"github.com/bookplatform/backend/shared/orders"
	"github.com/bookplatform/backend/shared/payments"
	"github.com/bookplatform/backend/shared/users"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func TestMain(m *testing.M) { testenv.Main(m) }

// The command refunds a delivered order on the table and the provider
// its settings name (here a test environment's and its stand-in), once:
// a second run answers the refunded order.
func TestRefund(t *testing.T) {
	env := testenv.New(t)
	ctx := t.Context()
	owner := env.Signup(t, "refund_owner")
	env.SetTier(t, owner, users.TierBookstore)
	res := env.Do("POST", "/v1/stores", map[string]any{"name": "Refunds", "slug": "refunds", "addressLine1": "1 Main St",
		"city": "Portland", "state": "OR", "postalCode": "97209", "country": "US"}, owner.Token)
	require.Equal(t, http.StatusCreated, res.Status, "%s", res)
	storeID := res.JSON["id"].(string)
	bk := env.ImportBooks(t, books.Record{Title: "Dune", Authors: []string{"Frank Herbert"}, ISBN: "9780441172719"})
	set, err := dynamo.NewInventory(env.App.Table).Set(ctx, storeID, inventory.Stock{BookID: bk[0], Quantity: 2, PriceCents: 1500, Condition: inventory.New},
		inventory.Cause{Kind: inventory.CauseImport, Reason: "test"})
	require.NoError(t, err)
	p, err := payments.FromEnv(env.Config.Env(), payments.Runtime{})
	require.NoError(t, err)

	now := env.App.Now().UTC()
	o := &orders.Order{ID: ids.New(), UserID: "buyer", Status: orders.Pending, Version: 1, CreatedAt: now, UpdatedAt: now, Number: orders.NewNumber(now),
		Items:   []orders.Item{{ID: "line-1", InventoryID: set.Item.ID, BookID: bk[0], StoreID: storeID, Quantity: 1, PriceCents: 1500, Condition: "new"}},
		Parts:   []orders.Part{{StoreID: storeID, StoreSlug: "refunds", Fulfilment: orders.Pickup, Status: orders.Pending}},
		Address: nil, PaymentStatus: orders.PayAuthorized}
	o.Totals, _ = orders.DefaultPricing.PriceAll([]orders.Shipment{{Fulfilment: orders.Pickup, Lines: []orders.Line{{Quantity: 1, PriceCents: 1500}}}})
	o.Parts[0].Totals = o.Totals
	sess, err := p.Authorize(ctx, payments.Authorization{OrderID: o.ID, AmountCents: o.TotalCents, Currency: "usd", PaymentMethodID: "pm_card_visa", IdempotencyKey: o.ID})
	require.NoError(t, err)
	_, err = p.Capture(ctx, sess.ID)
	require.NoError(t, err)
	o.CheckoutSessionID = sess.ID
	st := dynamo.NewOrders(env.App.Table)
	require.NoError(t, st.Place(ctx, o, orders.StockRead{}))
	picked := *o
	picked.Status, picked.Version, picked.PaymentStatus, picked.ConfirmedAt = orders.Delivered, 2, orders.PayCaptured, &now
	picked.Parts = []orders.Part{o.Parts[0]}
	picked.Parts[0].Status = orders.PickedUp
	require.NoError(t, st.Confirm(ctx, o, &picked)) // the test's shortcut: straight to picked up

	for k, v := range map[string]string{
		"AWS_ENDPOINT_URL_DYNAMODB": testenv.DynamoDBEndpoint(t), "AWS_ACCESS_KEY_ID": "test", "AWS_SECRET_ACCESS_KEY": "test",
		"AWS_REGION": testenv.Region, config.EnvTableName: env.Config.TableName,
		payments.EnvStripeAPIBase: env.PaymentsURL, payments.EnvStripeAPIKey: stripelocal.APIKey,
	} {
		t.Setenv(k, v)
	}
	t.Setenv("AWS_PROFILE", "")
	var out bytes.Buffer
	assert.ErrorContains(t, run(ctx, []string{"refund", "-order", o.ID}, &out), "usage")
	assert.ErrorIs(t, run(ctx, []string{"refund", "-order", ids.New(), "-reason", "x"}, &out), orders.ErrNotFound)
	args := []string{"refund", "-order", o.ID, "-reason", "never collected in good condition"}
	err = run(ctx, args, &out)
	if err != nil && strings.Contains(err.Error(), "not implemented yet") {
		t.Skip("the Stripe provider's Refund comes with the payments branch: ", err)
	}
	require.NoError(t, err)
	assert.Contains(t, out.String(), "refunded")
	require.NoError(t, run(ctx, args, &out), "a second run answers the refunded order")

	in, ok := env.Payments.Intent(sess.ID)
	require.True(t, ok)
	assert.Equal(t, o.TotalCents, in.RefundedCents, "refunded once, in full")
	got, err := st.Get(ctx, o.ID)
	require.NoError(t, err)
	assert.Equal(t, orders.Refunded, got.Status)
	it, err := dynamo.NewInventory(env.App.Table).Get(ctx, storeID, set.Item.ID)
	require.NoError(t, err)
	assert.Equal(t, 1, it.Quantity, "no restock")
}
