package main

import (
	"bytes"
	"context"
	"net/http"
	"testing"

	"github.com/bookplatform/backend/local/testenv"
	"github.com/bookplatform/backend/shared/config"
	"github.com/bookplatform/backend/shared/dynamo"
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

// The command runs a month's pool on the table its variables name, once.
func TestPoolPayouts(t *testing.T) {
	env := testenv.New(t)
	for k, v := range map[string]string{
		"AWS_ENDPOINT_URL_DYNAMODB": testenv.DynamoDBEndpoint(t), config.EnvTableName: env.Config.TableName,
		"AWS_ACCESS_KEY_ID": "test", "AWS_SECRET_ACCESS_KEY": "test", "AWS_REGION": testenv.Region,
		"AWS_SESSION_TOKEN": "", "AWS_PROFILE": "", "AWS_ENDPOINT_URL": "",
	} {
		t.Setenv(k, v)
	}
	owner := env.Signup(t, "pool_cmd")
	env.SetTier(t, owner, users.TierBookstore)
	res := env.Do("POST", "/v1/stores", map[string]any{"name": "Pool", "slug": "pool-cmd", "addressLine1": "1 Main St",
		"city": "Portland", "state": "OR", "postalCode": "97209", "country": "US"}, owner.Token)
	require.Equal(t, http.StatusCreated, res.Status, "%s", res)
	storeID := res.JSON["id"].(string)
	store := dynamo.NewEarnings(env.App.Table)
	require.NoError(t, store.AddPoolSales(context.Background(), "2025-01", storeID, 1000, 20))

	code, out, err := runCmd(t, "-month", "2025-01")
	require.NoError(t, err, out)
	assert.Equal(t, 0, code)
	assert.Contains(t, out, "pool 20 cents: 1 payouts written (20 cents)")
	tot, err := store.Totals(context.Background(), storeID)
	require.NoError(t, err)
	assert.EqualValues(t, 20, tot.PoolPendingCents)

	code, out, err = runCmd(t, "-month", "2025-01")
	require.NoError(t, err, out)
	assert.Equal(t, 0, code)
	assert.Contains(t, out, "already run: nothing written")

	code, _, err = runCmd(t, "-month", "2999-01")
	assert.Equal(t, 1, code)
	assert.ErrorContains(t, err, "not complete")
	code, _, _ = runCmd(t, "extra")
	assert.Equal(t, 2, code)
}
