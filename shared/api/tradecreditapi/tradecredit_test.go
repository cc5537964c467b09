package tradecreditapi_test

import (
	"fmt"
	"net/http"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/bookplatform/backend/local/testenv"
	"github.com/bookplatform/backend/shared/dynamo"
	"github.com/bookplatform/backend/shared/ids"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func TestMain(m *testing.M) { testenv.Main(m) }

func change(storeID, customerID string, amount any, reason string) map[string]any {
	return map[string]any{"storeId": storeID, "customerUserId": customerID, "amountCents": amount, "reason": reason}
}

func cents(v any) int64 { return int64(v.(float64)) }

func ledgerPath(storeID, customerID string) string {
	return "/v1/trade-credit?storeId=" + storeID + "&customerUserId=" + customerID
}

// entriesOf reads every page of a customer's ledger at a store, limit
// at a time, newest first.
func entriesOf(t *testing.T, env *testenv.Env, s testenv.Shop, customerID string, limit int) (balance int64, entries []map[string]any) {
	t.Helper()
	cursor := ""
	for range 100 {
		path := fmt.Sprintf("%s&limit=%d", ledgerPath(s.ID, customerID), limit)
		if cursor != "" {
			path += "&cursor=" + cursor
		}
		res := env.Do("GET", path, nil, s.Staff.Token)
		require.Equal(t, http.StatusOK, res.Status, "%s", res)
		balance = cents(res.JSON["balanceCents"])
		for _, e := range res.JSON["entries"].([]any) {
			entries = append(entries, e.(map[string]any))
		}
		next, _ := res.JSON["nextCursor"].(string)
		assert.Equal(t, next != "", res.JSON["hasMore"])
		if next == "" {
			return balance, entries
		}
		cursor = next
	}
	t.Fatal("the ledger does not end")
	return 0, nil
}

// assertChain checks a ledger read newest first: the oldest entry's
// balance is its amount, each later one's the one before plus its
// amount, the newest's the balance, never below zero; and the times
// never go back.
func assertChain(t *testing.T, balance int64, entries []map[string]any) {
	t.Helper()
	var prev int64
	var prevAt time.Time
	for i := len(entries) - 1; i >= 0; i-- {
		e := entries[i]
		want := prev + cents(e["amountCents"])
		assert.Equal(t, want, cents(e["balanceCents"]), "entry %d (%s) of %d", len(entries)-i, e["id"], len(entries))
		assert.GreaterOrEqual(t, cents(e["balanceCents"]), int64(0))
		at, err := time.Parse(time.RFC3339Nano, e["createdAt"].(string))
		require.NoError(t, err)
		assert.False(t, at.Before(prevAt), "entry %d's time %s is before the one before it (%s)", len(entries)-i, at, prevAt)
		prev, prevAt = cents(e["balanceCents"]), at
	}
	assert.Equal(t, balance, prev, "the balance is the last entry's")
}

func TestTradeCredit_GrantCorrectRead(t *testing.T) {
	clock := testenv.NewClock(time.Date(2026, 11, 2, 15, 4, 5, 0, time.UTC))
	env := testenv.New(t, testenv.WithClock(clock))
	s := env.OpenShop(t, "credit-shop", nil)
	other := env.OpenShop(t, "credit-other", nil)
	reader := env.Signup(t, "credit_reader")

	t.Run("a customer with no credit has a zero balance and no entries", func(t *testing.T) {
		res := env.Do("GET", ledgerPath(s.ID, reader.ID), nil, s.Owner.Token)
		require.Equal(t, http.StatusOK, res.Status, "%s", res)
		assert.Equal(t, map[string]any{"storeId": s.ID, "customerUserId": reader.ID, "balanceCents": 0.0, "updatedAt": nil,
			"entries": []any{}, "nextCursor": nil, "hasMore": false}, res.JSON)
		mine := env.Do("GET", "/v1/trade-credit/me", nil, reader.Token)
		require.Equal(t, http.StatusOK, mine.Status, "%s", mine)
		assert.Equal(t, map[string]any{"balances": []any{}, "nextCursor": nil, "hasMore": false}, mine.JSON)
	})

	t.Run("staff grant: 201 with the balance and the entry", func(t *testing.T) {
		res := env.Do("POST", "/v1/trade-credit", change(s.ID, reader.ID, 2500, "  Traded in 5 paperbacks "), s.Staff.Token)
		require.Equal(t, http.StatusCreated, res.Status, "%s", res)
		assert.Equal(t, s.ID, res.JSON["storeId"])
		assert.Equal(t, reader.ID, res.JSON["customerUserId"])
		assert.EqualValues(t, 2500, res.JSON["balanceCents"])
		e := res.JSON["entry"].(map[string]any)
		_, ok := ids.Parse(e["id"].(string))
		assert.True(t, ok, "entry id %v", e["id"])
		delete(e, "id")
		assert.Equal(t, map[string]any{"storeId": s.ID, "customerUserId": reader.ID, "kind": "grant", "amountCents": 2500.0,
			"balanceCents": 2500.0, "reason": "Traded in 5 paperbacks", "actorUserId": s.Staff.ID, "saleId": nil,
			"createdAt": "2026-11-02T15:04:05.000Z"}, e)
	})

	clock.Advance(10 * time.Minute)
	t.Run("the owner corrects it: kind adjust", func(t *testing.T) {
		res := env.Do("POST", "/v1/trade-credit", change(s.ID, reader.ID, -700, "Miscounted a paperback"), s.Owner.Token)
		require.Equal(t, http.StatusCreated, res.Status, "%s", res)
		assert.EqualValues(t, 1800, res.JSON["balanceCents"])
		e := res.JSON["entry"].(map[string]any)
		assert.Equal(t, "adjust", e["kind"])
		assert.EqualValues(t, -700, e["amountCents"])
		assert.EqualValues(t, 1800, e["balanceCents"])
		assert.Equal(t, s.Owner.ID, e["actorUserId"])
	})

	t.Run("a correction below zero: 400 naming the balance, nothing written", func(t *testing.T) {
		res := env.Do("POST", "/v1/trade-credit", change(s.ID, reader.ID, -1801, "Too much"), s.Staff.Token)
		testenv.AssertError(t, res, http.StatusBadRequest, "ValidationError", "Insufficient trade credit")
		assert.EqualValues(t, 1800, testenv.ErrorOf(t, res)["details"].(map[string]any)["balanceCents"])
		assert.Contains(t, testenv.FieldErrors(t, res), "amountCents")
		balance, entries := entriesOf(t, env, s, reader.ID, 20)
		assert.EqualValues(t, 1800, balance)
		assert.Len(t, entries, 2)
	})

	t.Run("down to exactly zero is allowed", func(t *testing.T) {
		res := env.Do("POST", "/v1/trade-credit", change(s.ID, reader.ID, -1800, "Refunded in cash instead"), s.Staff.Token)
		require.Equal(t, http.StatusCreated, res.Status, "%s", res)
		assert.EqualValues(t, 0, res.JSON["balanceCents"])
		res = env.Do("POST", "/v1/trade-credit", change(s.ID, reader.ID, 1200, "Traded in a hardcover"), s.Staff.Token)
		require.Equal(t, http.StatusCreated, res.Status, "%s", res)
	})

	t.Run("the ledger: newest first, a chain, paged", func(t *testing.T) {
		res := env.Do("GET", ledgerPath(s.ID, reader.ID), nil, s.Staff.Token)
		require.Equal(t, http.StatusOK, res.Status, "%s", res)
		assert.EqualValues(t, 1200, res.JSON["balanceCents"])
		assert.Equal(t, "2026-11-02T15:14:05.000Z", res.JSON["updatedAt"])
		var reasons []string
		for _, e := range res.JSON["entries"].([]any) {
			reasons = append(reasons, e.(map[string]any)["reason"].(string))
		}
		assert.Equal(t, []string{"Traded in a hardcover", "Refunded in cash instead", "Miscounted a paperback", "Traded in 5 paperbacks"}, reasons)
		balance, paged := entriesOf(t, env, s, reader.ID, 1)
		assert.Len(t, paged, 4)
		assertChain(t, balance, paged)
	})

	t.Run("the store defaults to the caller's own", func(t *testing.T) {
		for _, token := range []string{s.Owner.Token, s.Staff.Token} {
			res := env.Do("GET", "/v1/trade-credit?customerUserId="+reader.ID, nil, token)
			require.Equal(t, http.StatusOK, res.Status, "%s", res)
			assert.Equal(t, s.ID, res.JSON["storeId"])
			assert.EqualValues(t, 1200, res.JSON["balanceCents"])
		}
		// The other store's owner, by default, reads its own: nothing.
		res := env.Do("GET", "/v1/trade-credit?customerUserId="+reader.ID, nil, other.Owner.Token)
		require.Equal(t, http.StatusOK, res.Status, "%s", res)
		assert.Equal(t, other.ID, res.JSON["storeId"])
		assert.EqualValues(t, 0, res.JSON["balanceCents"])
	})

	t.Run("the customer reads their balances at every store, with the stores' names", func(t *testing.T) {
		res := env.Do("POST", "/v1/trade-credit", change(other.ID, reader.ID, 300, "Traded in a map"), other.Staff.Token)
		require.Equal(t, http.StatusCreated, res.Status, "%s", res)
		mine := env.Do("GET", "/v1/trade-credit/me", nil, reader.Token)
		require.Equal(t, http.StatusOK, mine.Status, "%s", mine)
		want := map[string]map[string]any{
			s.ID:     {"storeId": s.ID, "storeName": "Shop credit-shop", "storeSlug": "credit-shop", "balanceCents": 1200.0, "updatedAt": "2026-11-02T15:14:05.000Z"},
			other.ID: {"storeId": other.ID, "storeName": "Shop credit-other", "storeSlug": "credit-other", "balanceCents": 300.0, "updatedAt": "2026-11-02T15:14:05.000Z"},
		}
		got := mine.JSON["balances"].([]any)
		require.Len(t, got, 2)
		assert.Less(t, got[0].(map[string]any)["storeId"], got[1].(map[string]any)["storeId"], "by store id")
		for _, b := range got {
			b := b.(map[string]any)
			assert.Equal(t, want[b["storeId"].(string)], b)
		}
		// Paged one at a time.
		first := env.Do("GET", "/v1/trade-credit/me?limit=1", nil, reader.Token)
		require.Equal(t, http.StatusOK, first.Status, "%s", first)
		require.Len(t, first.JSON["balances"], 1)
		assert.Equal(t, true, first.JSON["hasMore"])
		second := env.Do("GET", "/v1/trade-credit/me?limit=1&cursor="+first.JSON["nextCursor"].(string), nil, reader.Token)
		require.Equal(t, http.StatusOK, second.Status, "%s", second)
		require.Len(t, second.JSON["balances"], 1)
		assert.Equal(t, false, second.JSON["hasMore"])
		assert.Equal(t, got[1], second.JSON["balances"].([]any)[0])
		// Someone else's: none.
		assert.Empty(t, env.Do("GET", "/v1/trade-credit/me", nil, s.Staff.Token).JSON["balances"])
	})
}

func TestTradeCredit_Validation(t *testing.T) {
	env := testenv.New(t)
	s := env.OpenShop(t, "valid-shop", nil)
	reader := env.Signup(t, "valid_reader")
	post := func(body any) *testenv.Response { return env.Do("POST", "/v1/trade-credit", body, s.Staff.Token) }

	for _, tc := range []struct {
		name  string
		body  map[string]any
		field string
	}{
		{"amount 0", change(s.ID, reader.ID, 0, "x"), "amountCents"},
		{"amount missing", map[string]any{"storeId": s.ID, "customerUserId": reader.ID, "reason": "x"}, "amountCents"},
		{"amount a fraction", change(s.ID, reader.ID, 12.5, "x"), "amountCents"},
		{"amount a string", change(s.ID, reader.ID, "100", "x"), "amountCents"},
		{"amount over the limit", change(s.ID, reader.ID, 1_000_001, "x"), "amountCents"},
		{"amount under the limit", change(s.ID, reader.ID, -1_000_001, "x"), "amountCents"},
		{"reason missing", map[string]any{"storeId": s.ID, "customerUserId": reader.ID, "amountCents": 100}, "reason"},
		{"reason blank", change(s.ID, reader.ID, 100, "   "), "reason"},
		{"reason too long", change(s.ID, reader.ID, 100, strings.Repeat("é", 501)), "reason"},
		{"reason with a line break", change(s.ID, reader.ID, 100, "two\nlines"), "reason"},
		{"customer missing", map[string]any{"storeId": s.ID, "amountCents": 100, "reason": "x"}, "customerUserId"},
		{"customer not a UUID", change(s.ID, "reader", 100, "x"), "customerUserId"},
		{"store missing", map[string]any{"customerUserId": reader.ID, "amountCents": 100, "reason": "x"}, "storeId"},
		{"store not a UUID", change("shop", reader.ID, 100, "x"), "storeId"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			res := post(tc.body)
			testenv.AssertError(t, res, http.StatusBadRequest, "ValidationError", "")
			assert.Contains(t, testenv.FieldErrors(t, res), tc.field)
		})
	}
	t.Run("the limits themselves are allowed", func(t *testing.T) {
		res := post(change(s.ID, reader.ID, 1_000_000, strings.Repeat("é", 500)))
		require.Equal(t, http.StatusCreated, res.Status, "%s", res)
		res = post(change(s.ID, reader.ID, -1_000_000, "Back to zero"))
		require.Equal(t, http.StatusCreated, res.Status, "%s", res)
		assert.EqualValues(t, 0, res.JSON["balanceCents"])
	})
	t.Run("every bad field at once", func(t *testing.T) {
		res := post(map[string]any{"storeId": s.ID, "customerUserId": "nobody", "amountCents": 0, "reason": ""})
		testenv.AssertError(t, res, http.StatusBadRequest, "ValidationError", "")
		assert.Len(t, testenv.FieldErrors(t, res), 3)
	})
	t.Run("an unknown customer: 404, nothing written", func(t *testing.T) {
		nobody := ids.New()
		testenv.AssertError(t, post(change(s.ID, nobody, 100, "x")), http.StatusNotFound, "NotFound", "Customer not found")
		testenv.AssertError(t, env.Do("GET", ledgerPath(s.ID, nobody), nil, s.Staff.Token), http.StatusNotFound, "NotFound", "Customer not found")
		assert.Nil(t, env.Item(t, dynamo.TradeCreditBalanceKey(s.ID, nobody)), "no balance item")
	})
	t.Run("an unknown store: 404", func(t *testing.T) {
		testenv.AssertError(t, post(change(ids.New(), reader.ID, 100, "x")), http.StatusNotFound, "NotFound", "")
		testenv.AssertError(t, env.Do("GET", ledgerPath(ids.New(), reader.ID), nil, s.Staff.Token), http.StatusNotFound, "NotFound", "")
	})
	t.Run("the ledger's query", func(t *testing.T) {
		for _, path := range []string{
			"/v1/trade-credit?storeId=" + s.ID,
			"/v1/trade-credit?storeId=" + s.ID + "&customerUserId=someone",
			ledgerPath(s.ID, reader.ID) + "&limit=0",
			ledgerPath(s.ID, reader.ID) + "&limit=101",
			ledgerPath(s.ID, reader.ID) + "&cursor=not-a-cursor",
			"/v1/trade-credit?storeId=shop&customerUserId=" + reader.ID,
		} {
			testenv.AssertError(t, env.Do("GET", path, nil, s.Staff.Token), http.StatusBadRequest, "ValidationError", "")
		}
		testenv.AssertError(t, env.Do("GET", "/v1/trade-credit/me?limit=101", nil, reader.Token), http.StatusBadRequest, "ValidationError", "")
	})
}

// The roles: the owner and the store's staff may grant and read; staff
// of another store, another account and no token may not; a reader
// without a store has no default store.
func TestTradeCredit_Roles(t *testing.T) {
	env := testenv.New(t)
	s := env.OpenShop(t, "role-credit-shop", nil)
	other := env.OpenShop(t, "role-credit-other", nil)
	reader := env.Signup(t, "role_reader")
	stranger := env.Signup(t, "role_stranger")

	for _, tc := range []struct {
		who   string
		token string
		want  int
	}{
		{"owner", s.Owner.Token, 201},
		{"staff of this store", s.Staff.Token, 201},
		{"staff of another store", other.Staff.Token, 403},
		{"owner of another store", other.Owner.Token, 403},
		{"another account", stranger.Token, 403},
		{"the customer", reader.Token, 403},
		{"no token", "", 401},
	} {
		t.Run("POST by "+tc.who, func(t *testing.T) {
			res := env.Do("POST", "/v1/trade-credit", change(s.ID, reader.ID, 100, "Traded in a paperback"), tc.token)
			assert.Equal(t, tc.want, res.Status, "%s", res)
		})
		want := tc.want
		if want == 201 {
			want = 200
		}
		t.Run("GET by "+tc.who, func(t *testing.T) {
			res := env.Do("GET", ledgerPath(s.ID, reader.ID), nil, tc.token)
			assert.Equal(t, want, res.Status, "%s", res)
		})
	}
	t.Run("GET without storeId by someone who staffs no store: 403", func(t *testing.T) {
		testenv.AssertError(t, env.Do("GET", "/v1/trade-credit?customerUserId="+reader.ID, nil, stranger.Token), http.StatusForbidden, "Forbidden", "")
	})
	t.Run("GET without storeId by staff of another store: their own store's ledger", func(t *testing.T) {
		res := env.Do("GET", "/v1/trade-credit?customerUserId="+reader.ID, nil, other.Staff.Token)
		require.Equal(t, http.StatusOK, res.Status, "%s", res)
		assert.Equal(t, other.ID, res.JSON["storeId"])
		assert.EqualValues(t, 0, res.JSON["balanceCents"])
	})
	t.Run("GET without storeId by staff of several stores: 400, with it: 200", func(t *testing.T) {
		both := env.Signup(t, "role_both")
		for _, sh := range []testenv.Shop{s, other} {
			require.Equal(t, http.StatusCreated, env.Do("POST", "/v1/stores/"+sh.Slug+"/staff", map[string]any{"userId": both.ID}, sh.Owner.Token).Status)
		}
		both = env.Login(t, both)
		res := env.Do("GET", "/v1/trade-credit?customerUserId="+reader.ID, nil, both.Token)
		testenv.AssertError(t, res, http.StatusBadRequest, "ValidationError", "")
		assert.Contains(t, testenv.FieldErrors(t, res), "storeId")
		assert.Equal(t, http.StatusOK, env.Do("GET", ledgerPath(other.ID, reader.ID), nil, both.Token).Status)
	})
	t.Run("/me needs a token", func(t *testing.T) {
		assert.Equal(t, http.StatusUnauthorized, env.Do("GET", "/v1/trade-credit/me", nil, "").Status)
	})
	t.Run("the two grants landed", func(t *testing.T) {
		balance, entries := entriesOf(t, env, s, reader.ID, 20)
		assert.EqualValues(t, 200, balance)
		assert.Len(t, entries, 2)
	})
}

// A counter's retry of a grant with the same Idempotency-Key gets the
// first answer; the credit is given once.
func TestTradeCredit_IdempotentGrant(t *testing.T) {
	env := testenv.New(t)
	s := env.OpenShop(t, "idem-credit-shop", nil)
	reader := env.Signup(t, "idem_reader")
	h := map[string]string{"Authorization": "Bearer " + s.Staff.Token, "Idempotency-Key": "grant-0001"}
	body := change(s.ID, reader.ID, 1500, "Traded in 3 paperbacks")
	first := env.DoHeaders("POST", "/v1/trade-credit", body, h)
	require.Equal(t, http.StatusCreated, first.Status, "%s", first)
	again := env.DoHeaders("POST", "/v1/trade-credit", body, h)
	require.Equal(t, http.StatusCreated, again.Status, "%s", again)
	assert.Equal(t, "true", again.Header.Get("Idempotent-Replayed"))
	assert.Equal(t, first.JSON, again.JSON)
	balance, entries := entriesOf(t, env, s, reader.ID, 20)
	assert.EqualValues(t, 1500, balance)
	assert.Len(t, entries, 1)
	// Without the key, a second request is a second grant.
	require.Equal(t, http.StatusCreated, env.Do("POST", "/v1/trade-credit", body, s.Staff.Token).Status)
	balance, _ = entriesOf(t, env, s, reader.ID, 20)
	assert.EqualValues(t, 3000, balance)
}

// Twenty clerks grant at once: every grant lands, the balance is the
// exact sum, and the ledger is a chain of twenty entries.
func TestTradeCredit_ParallelGrants(t *testing.T) {
	env := testenv.New(t)
	s := env.OpenShop(t, "parallel-credit-shop", nil)
	reader := env.Signup(t, "parallel_reader")
	const n = 20
	var wg sync.WaitGroup
	statuses := make([]int, n)
	var sum int64
	for i := range n {
		sum += int64(100 + i)
		wg.Go(func() {
			token := s.Staff.Token
			if i%2 == 0 {
				token = s.Owner.Token
			}
			statuses[i] = env.Do("POST", "/v1/trade-credit", change(s.ID, reader.ID, 100+i, fmt.Sprintf("Trade-in %d", i)), token).Status
		})
	}
	wg.Wait()
	for i, st := range statuses {
		assert.Equal(t, http.StatusCreated, st, "grant %d", i)
	}
	balance, entries := entriesOf(t, env, s, reader.ID, 7)
	assert.Equal(t, sum, balance)
	require.Len(t, entries, n)
	assertChain(t, balance, entries)
}

// Corrections race on a small balance: only as many land as the balance
// holds, it never goes below zero, and the entries add up to it.
func TestTradeCredit_ParallelCorrectionsNeverBelowZero(t *testing.T) {
	env := testenv.New(t)
	s := env.OpenShop(t, "spend-credit-shop", nil)
	reader := env.Signup(t, "spend_reader")
	require.Equal(t, http.StatusCreated, env.Do("POST", "/v1/trade-credit", change(s.ID, reader.ID, 1000, "Traded in a box of paperbacks"), s.Owner.Token).Status)
	const n = 12 // 12 × 300 asked of 1000: three land
	var wg sync.WaitGroup
	statuses := make([]int, n)
	for i := range n {
		wg.Go(func() {
			statuses[i] = env.Do("POST", "/v1/trade-credit", change(s.ID, reader.ID, -300, "Spent at the counter"), s.Staff.Token).Status
		})
	}
	wg.Wait()
	landed := 0
	for i, st := range statuses {
		switch st {
		case http.StatusCreated:
			landed++
		case http.StatusBadRequest:
		default:
			t.Errorf("correction %d: HTTP %d", i, st)
		}
	}
	assert.Equal(t, 3, landed)
	balance, entries := entriesOf(t, env, s, reader.ID, 20)
	assert.EqualValues(t, 100, balance)
	require.Len(t, entries, 1+landed)
	var total int64
	for _, e := range entries {
		total += cents(e["amountCents"])
	}
	assert.Equal(t, balance, total)
	assertChain(t, balance, entries)
}
