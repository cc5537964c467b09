package dynamo_test

import (
	"fmt"
	"testing"
	"time"

	"github.com/bookplatform/backend/local/testenv"
	"github.com/bookplatform/backend/shared/dynamo"
	"github.com/bookplatform/backend/shared/users"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// A sign-in's counts past the account's limit: an address first seen
// there is counted apart (its first attempt 1, so it gets its check), and
// when a right password gives back an attempt the account's item took,
// the next address counted apart takes that one on the account's count,
// and only that one.
func TestAttempts_TakeLoginPastTheAccountLimit(t *testing.T) {
	env := testenv.New(t)
	store := dynamo.NewAttempts(env.App.Table)
	ctx := t.Context()
	now := time.Now()
	const window, limit, accountLimit = time.Hour, 3, 4
	keys := func(src string) users.LoginKeys {
		return users.LoginKeys{Account: "login:past@example.com", Source: src, Apart: "login-from:past@example.com|" + src}
	}
	take := func(src string) users.LoginCount {
		t.Helper()
		c, until, err := store.TakeLogin(ctx, keys(src), now, window, limit, accountLimit)
		require.NoError(t, err)
		assert.Equal(t, now.Truncate(window).Add(window), until)
		return c
	}
	for i := range accountLimit {
		assert.Equal(t, users.LoginCount{Source: 1, Account: i + 1}, take(fmt.Sprintf("10.0.0.%d", i)))
	}
	assert.Equal(t, users.LoginCount{Source: 2}, take("10.0.0.0"), "in the item: the address counts it, the account refuses")
	assert.Equal(t, users.LoginCount{Source: 1, Apart: true}, take("10.0.1.1"), "a new address: apart, its first")
	assert.Equal(t, users.LoginCount{Source: 2, Apart: true}, take("10.0.1.1"))
	assert.Equal(t, users.LoginCount{Source: 3}, take("10.0.0.0"))
	assert.Equal(t, users.LoginCount{}, take("10.0.0.0"), "the address's limit")

	require.NoError(t, store.LoginSucceeded(ctx, keys("10.0.0.1"), users.LoginCount{Source: 1, Account: 2}, true, now, window))
	assert.Equal(t, users.LoginCount{Source: 1, Account: accountLimit, Apart: true}, take("10.0.1.2"), "the attempt given back")
	assert.Equal(t, users.LoginCount{Source: 1, Apart: true}, take("10.0.1.3"), "and no more")
	assert.Equal(t, users.LoginCount{Source: 1, Apart: true}, take("10.0.0.1"), "a forgotten address is counted apart from now on")

	require.NoError(t, store.LoginSucceeded(ctx, keys("10.0.1.2"), users.LoginCount{Source: 1, Account: accountLimit, Apart: true}, true, now, window))
	assert.Equal(t, users.LoginCount{Source: 1, Account: accountLimit, Apart: true}, take("10.0.1.2"), "forgotten apart, and given back")
}
