package main

import (
	"bytes"
	"context"
	"net/http"
	"testing"
	"time"

	"github.com/bookplatform/backend/local/testenv"
	"github.com/bookplatform/backend/shared/config"
	"github.com/bookplatform/backend/shared/dynamo"
	"github.com/bookplatform/backend/shared/earnings"
	"github.com/bookplatform/backend/shared/users"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func TestMain(m *testing.M) { testenv.Main(m) }

func runCmd(t *testing.T, args ...string) (int, string, error) {
	t.Helper()
	var out, errOut bytes.Buffer
	code, err := run(args, &out, &errOut)
	return code, out.String() + errOut.String(), err
}

// mark-paid moves a commission and a pool payout to paid, with the
// store's totals, once.
func TestMarkPaid(t *testing.T) {
	env := testenv.New(t)
	for k, v := range map[string]string{
		"AWS_ENDPOINT_URL_DYNAMODB": testenv.DynamoDBEndpoint(t), config.EnvTableName: env.Config.TableName,
		"AWS_ACCESS_KEY_ID": "test", "AWS_SECRET_ACCESS_KEY": "test", "AWS_REGION": testenv.Region,
		"AWS_SESSION_TOKEN": "", "AWS_PROFILE": "", "AWS_ENDPOINT_URL": "",
	} {
		t.Setenv(k, v)
	}
	owner := env.Signup(t, "paid_cmd")
	env.SetTier(t, owner, users.TierBookstore)
	res := env.Do("POST", "/v1/stores", map[string]any{"name": "Paid", "slug": "paid-cmd", "addressLine1": "1 Main St",
		"city": "Portland", "state": "OR", "postalCode": "97209", "country": "US"}, owner.Token)
	require.Equal(t, http.StatusCreated, res.Status, "%s", res)
	storeID := res.JSON["id"].(string)
	ctx := context.Background()
	store := dynamo.NewEarnings(env.App.Table)
	at := time.Date(2025, 1, 10, 0, 0, 0, 0, time.UTC)
	require.NoError(t, store.Accrue(ctx, earnings.Commission{ID: earnings.CommissionID("ord-1"), StoreID: storeID, OrderID: "ord-1",
		OrderNumber: "BW-20250110-AAAAAA", OrderTotalCents: 2000, OrderCreatedAt: at, CommissionCents: 90, Status: earnings.Pending, CreatedAt: at}))
	require.NoError(t, store.AddPoolSales(ctx, "2025-01", storeID, 1000, 20))
	_, err := (&earnings.Service{Store: store, Now: time.Now}).RunPool(ctx, "2025-01")
	require.NoError(t, err)

	code, out, err := runCmd(t, "mark-paid", "-store", storeID, "-order", "ord-1", "-reference", "tr_1")
	require.NoError(t, err, out)
	assert.Equal(t, 0, code)
	assert.Contains(t, out, `commission com_ord-1 of order ord-1 (90 cents) paid at`)
	code, out, err = runCmd(t, "mark-paid", "-store", storeID, "-pool", "2025-01", "-reference", "tr_2")
	require.NoError(t, err, out)
	assert.Equal(t, 0, code)
	tot, err := store.Totals(ctx, storeID)
	require.NoError(t, err)
	assert.Equal(t, earnings.Totals{AffiliatePaidCents: 90, PoolPaidCents: 20}, tot)
	assert.Equal(t, "tr_1", env.Item(t, dynamo.AffiliateCommissionKey(storeID, "ord-1"))["paidReference"])

	code, _, err = runCmd(t, "mark-paid", "-store", storeID, "-order", "ord-1", "-reference", "again")
	assert.Equal(t, 1, code)
	assert.ErrorIs(t, err, earnings.ErrAlreadyPaid)
	for _, args := range [][]string{
		{}, {"mark-paid", "-store", storeID, "-reference", "x"},
		{"mark-paid", "-store", storeID, "-order", "o", "-pool", "2025-01", "-reference", "x"},
		{"mark-paid", "-store", storeID, "-order", "o"},
	} {
		code, _, _ := runCmd(t, args...)
		assert.Equal(t, 2, code, "%v", args)
	}
}
