package dynamo_test

import (
	"fmt"
	"math/rand/v2"
	"strings"
	"sync"
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

// However loose the account's limit (none, or config's largest), its
// item holds the counts of at most LoginSourcesHeld addresses: the next
// ones are counted apart, each still on the account's count, so a spray
// from many addresses cannot grow the item towards DynamoDB's 400 KB.
func TestAttempts_TakeLoginHoldsFewAddresses(t *testing.T) {
	env := testenv.New(t)
	store := dynamo.NewAttempts(env.App.Table)
	ctx := t.Context()
	now := time.Now()
	const window, limit, sources = time.Hour, 3, dynamo.LoginSourcesHeld + 10
	for _, accountLimit := range []int{0, 10000} {
		t.Run(fmt.Sprint("account limit ", accountLimit), func(t *testing.T) {
			account := fmt.Sprintf("login:spray%d@example.com", accountLimit)
			keys := func(src string) users.LoginKeys {
				return users.LoginKeys{Account: account, Source: src, Apart: "login-from:" + account + "|" + src}
			}
			take := func(src string) users.LoginCount {
				t.Helper()
				c, _, err := store.TakeLogin(ctx, keys(src), now, window, limit, accountLimit)
				require.NoError(t, err)
				return c
			}
			for i := range sources {
				want := users.LoginCount{Source: 1, Account: i + 1, Apart: i >= dynamo.LoginSourcesHeld}
				require.Equal(t, want, take(fmt.Sprintf("10.1.%d.%d", i/250, i%250)), "address %d", i)
			}
			assert.Equal(t, users.LoginCount{Source: 2, Account: sources + 1}, take("10.1.0.0"), "a held address stays in the item")
			assert.Equal(t, users.LoginCount{Source: 2, Account: sources + 2, Apart: true}, take(fmt.Sprintf("10.1.0.%d", sources-1)), "one apart stays apart")

			item := env.Item(t, dynamo.AttemptKey(account, now.Truncate(window)))
			held := 0
			for name := range item {
				if strings.HasPrefix(name, "from:") {
					held++
				}
			}
			assert.Equal(t, dynamo.LoginSourcesHeld, held, "addresses held in the account's item")
			assert.EqualValues(t, sources+2, item["count"])

			// A right password from an address apart gives its attempt back
			// to the account's count.
			c := users.LoginCount{Source: 2, Account: sources + 2, Apart: true}
			require.NoError(t, store.LoginSucceeded(ctx, keys(fmt.Sprintf("10.1.0.%d", sources-1)), c, true, now, window))
			assert.EqualValues(t, sources+1, env.Item(t, dynamo.AttemptKey(account, now.Truncate(window)))["count"])
		})
	}
}

// Concurrent sign-ins from held and apart addresses with right passwords
// among them: the account's item never holds more than LoginSourcesHeld
// addresses, its count is the counted takes less those given back and
// never passes the account's limit, and no address is counted both in
// the item and apart.
func TestAttempts_TakeLoginConcurrentInvariants(t *testing.T) {
	env := testenv.New(t)
	store := dynamo.NewAttempts(env.App.Table)
	ctx := t.Context()
	now := time.Now()
	const window, limit = time.Hour, 3
	for _, accountLimit := range []int{0, 40, 10000} {
		t.Run(fmt.Sprint(accountLimit), func(t *testing.T) {
			account := fmt.Sprintf("login:conc%d@example.com", accountLimit)
			keys := func(src string) users.LoginKeys {
				return users.LoginKeys{Account: account, Source: src, Apart: "login-from:" + account + "|" + src}
			}
			var mu sync.Mutex
			counted, given, refusedByLoop := 0, 0, 0
			var wg sync.WaitGroup
			for w := range 16 {
				wg.Add(1)
				go func() {
					defer wg.Done()
					r := rand.New(rand.NewPCG(uint64(w), 7))
					for range 25 {
						src := fmt.Sprintf("10.9.0.%d", r.IntN(60))
						c, _, err := store.TakeLogin(ctx, keys(src), now, window, limit, accountLimit)
						if !assert.NoError(t, err) {
							return
						}
						mu.Lock()
						if c.Account > 0 {
							counted++
						}
						if c == (users.LoginCount{}) {
							refusedByLoop++
						}
						mu.Unlock()
						if c.Source > 0 && r.IntN(4) == 0 { // a right password
							ok := c.Account > 0
							if !assert.NoError(t, store.LoginSucceeded(ctx, keys(src), c, ok, now, window)) {
								return
							}
							if ok {
								mu.Lock()
								given++
								mu.Unlock()
							}
						}
					}
				}()
			}
			wg.Wait()
			item := env.Item(t, dynamo.AttemptKey(account, now.Truncate(window)))
			held := 0
			for name := range item {
				if !strings.HasPrefix(name, "from:") {
					continue
				}
				held++
				src := strings.TrimPrefix(name, "from:")
				apart := env.Item(t, dynamo.AttemptKey(keys(src).Apart, now.Truncate(window)))
				assert.Nil(t, apart, "address %s counted both in the item and apart", src)
			}
			assert.LessOrEqual(t, held, dynamo.LoginSourcesHeld)
			n := int(item["count"].(float64))
			assert.Equal(t, counted-given, n, "count is the counted takes less those given back")
			if accountLimit > 0 {
				assert.LessOrEqual(t, n, accountLimit)
			}
			t.Logf("held %d, count %d, counted %d, given back %d, refused (source or loop) %d", held, n, counted, given, refusedByLoop)
		})
	}
}
