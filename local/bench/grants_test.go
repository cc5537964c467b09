package main

import (
	"net/http/httptest"
	"slices"
	"testing"

	"github.com/bookplatform/backend/local/devserver"
	"github.com/bookplatform/backend/local/testenv"
	"github.com/bookplatform/backend/shared/groups"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// The claims of a new username and of a converted guest's email are
// items put inside the account's transaction: IAM authorizes each as
// dynamodb:PutItem, so the functions serving those routes must be granted
// it (the users function was not, and answered AccessDenied in AWS while
// every local test passed: DynamoDB Local checks no IAM).
func TestCallGrants_claimsPutInTransactions(t *testing.T) {
	env := testenv.New(t)
	requests := &requestCalls{}
	srv := httptest.NewServer(requests.wrap(devserver.Handler(env.App, groups.All(env.App.Deps()))))
	defer srv.Close()
	c := &client{Base: srv.URL, HTTP: srv.Client()}

	claims := func(route, function string, res *response, want int) {
		t.Helper()
		require.Equal(t, want, res.Status, "%s: %s", route, res.Body)
		actions := requests.actions()
		assert.Contains(t, actions, "dynamodb:PutItem", "%s puts its claim in a transaction", route)
		assert.NotContains(t, actions, "dynamodb:TransactWriteItems", "no IAM action")
		f, ok := functionOf(route)
		require.True(t, ok, route)
		assert.Equal(t, function, f.Name)
		assert.True(t, slices.Contains(f.TableActions, "dynamodb:PutItem"), "function %s is not granted dynamodb:PutItem", f.Name)
		checkGranted(t, route, actions)
	}

	signup := c.Do("POST", "/v1/auth/signup", map[string]any{
		"username": "grants_reader", "email": "grants.reader@example.com", "password": password, "displayName": "Grants",
	}, "")
	require.Equal(t, 201, signup.Status, string(signup.Body))
	token, _ := signup.JSON["token"].(string)
	requests.actions()
	claims("PUT /v1/users/me", "users",
		c.Do("PUT", "/v1/users/me", map[string]any{"username": "grants_reader2"}, token), 200)

	guest := c.Do("POST", "/v1/auth/guest", map[string]any{}, "")
	require.Equal(t, 201, guest.Status, string(guest.Body))
	guestToken, _ := guest.JSON["token"].(string)
	requests.actions()
	claims("POST /v1/auth/migrate-guest", "auth",
		c.Do("POST", "/v1/auth/migrate-guest", map[string]any{
			"username": "grants_convert", "email": "grants.convert@example.com", "password": password, "displayName": "Converted",
		}, guestToken), 200)
}
