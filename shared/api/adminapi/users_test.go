package adminapi_test

import (
	"fmt"
	"net/http"
	"regexp"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/bookplatform/backend/local/testenv"
	"github.com/bookplatform/backend/shared/books"
	"github.com/bookplatform/backend/shared/dynamo"
	"github.com/bookplatform/backend/shared/groups"
	"github.com/bookplatform/backend/shared/httpapi"
	"github.com/bookplatform/backend/shared/users"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func errCode(res *testenv.Response) string {
	e, _ := res.JSON["error"].(map[string]any)
	c, _ := e["code"].(string)
	return c
}

func errMessage(res *testenv.Response) string {
	e, _ := res.JSON["error"].(map[string]any)
	m, _ := e["message"].(string)
	return m
}

// operator signs up an account and makes it an operator.
func operator(t *testing.T, env *testenv.Env, name string) testenv.Account {
	t.Helper()
	a := env.Signup(t, name)
	env.MakeOperator(t, a)
	return a
}

var param = regexp.MustCompile(`\{[^}]+\}`)

// TestSuspension_refusedOnEveryRoute: a suspended account's token is
// refused by every route that reads a token, at the first request after
// the suspension, and sign-in and refresh refuse it; a restore lets its
// owner sign in again.
func TestSuspension_refusedOnEveryRoute(t *testing.T) {
	env := testenv.New(t)
	op := operator(t, env, "opal")
	mia := env.Signup(t, "mia")

	res := env.Do("POST", "/v1/admin/users/"+mia.ID+"/suspend", map[string]any{"reason": "Spam."}, op.Token)
	require.Equal(t, http.StatusOK, res.Status, res.String())
	assert.Equal(t, "Spam.", res.JSON["suspendReason"])
	assert.NotNil(t, res.JSON["suspendedAt"])

	n := 0
	for _, rt := range groups.Routes() {
		if rt.Auth == httpapi.AuthNone {
			continue
		}
		path := param.ReplaceAllStringFunc(rt.Path, func(string) string { return unknownID })
		var body any
		if rt.Method != http.MethodGet && rt.Method != http.MethodHead && rt.Method != http.MethodDelete {
			body = map[string]any{}
		}
		res := env.Do(rt.Method, path, body, mia.Token)
		if assert.Equal(t, http.StatusForbidden, res.Status, "%s %s: %s", rt.Method, rt.Path, res) {
			assert.Contains(t, errMessage(res), "suspended", "%s %s", rt.Method, rt.Path)
		}
		n++
	}
	assert.Greater(t, n, 100, "routes walked")

	res = env.Do("POST", "/v1/auth/login", map[string]any{"email": mia.Email, "password": testenv.Password}, "")
	assert.Equal(t, http.StatusForbidden, res.Status, res.String())
	assert.Contains(t, errMessage(res), "suspended")
	res = env.Do("POST", "/v1/auth/login", map[string]any{"email": mia.Email, "password": "wrong-password-x"}, "")
	assert.Equal(t, http.StatusUnauthorized, res.Status, "a wrong password learns nothing: %s", res)
	res = env.Do("POST", "/v1/auth/refresh", map[string]any{"refreshToken": mia.Refresh}, "")
	assert.Contains(t, []int{http.StatusUnauthorized, http.StatusForbidden}, res.Status, res.String())

	t.Run("errors", func(t *testing.T) {
		res := env.Do("POST", "/v1/admin/users/"+mia.ID+"/suspend", map[string]any{"reason": "Again."}, op.Token)
		assert.Equal(t, http.StatusConflict, res.Status, res.String())
		res = env.Do("POST", "/v1/admin/users/"+unknownID+"/suspend", map[string]any{"reason": "Who?"}, op.Token)
		assert.Equal(t, http.StatusNotFound, res.Status, res.String())
		res = env.Do("POST", "/v1/admin/users/"+op.ID+"/suspend", map[string]any{"reason": "Me."}, op.Token)
		assert.Equal(t, http.StatusConflict, res.Status, res.String())
		res = env.Do("POST", "/v1/admin/users/"+mia.ID+"/suspend", map[string]any{"reason": " "}, op.Token)
		assert.Equal(t, http.StatusBadRequest, res.Status, res.String())
		bob := env.Signup(t, "bob")
		res = env.Do("POST", "/v1/admin/users/"+mia.ID+"/restore", map[string]any{}, bob.Token)
		assert.Equal(t, http.StatusForbidden, res.Status, res.String())
	})

	res = env.Do("POST", "/v1/admin/users/"+mia.ID+"/restore", map[string]any{"reason": "Appealed."}, op.Token)
	require.Equal(t, http.StatusOK, res.Status, res.String())
	assert.Nil(t, res.JSON["suspendedAt"])
	res = env.Do("POST", "/v1/admin/users/"+mia.ID+"/restore", map[string]any{}, op.Token)
	assert.Equal(t, http.StatusConflict, res.Status, res.String())
	mia = env.Login(t, mia)
	res = env.Do("GET", "/v1/users/me", nil, mia.Token)
	assert.Equal(t, http.StatusOK, res.Status, res.String())
}

// TestSuspension_revokesSessions: the refresh token issued before the
// suspension stays dead after the restore.
func TestSuspension_revokesSessions(t *testing.T) {
	env := testenv.New(t)
	op := operator(t, env, "opal")
	mia := env.Signup(t, "mia")
	require.Equal(t, http.StatusOK, env.Do("POST", "/v1/admin/users/"+mia.ID+"/suspend", map[string]any{"reason": "Spam."}, op.Token).Status)
	require.Equal(t, http.StatusOK, env.Do("POST", "/v1/admin/users/"+mia.ID+"/restore", map[string]any{}, op.Token).Status)
	res := env.Do("POST", "/v1/auth/refresh", map[string]any{"refreshToken": mia.Refresh}, "")
	assert.Equal(t, http.StatusUnauthorized, res.Status, res.String())
}

// A session the suspension left (its revocation failed after the
// suspension was stored, or a sign-in overlapped it) ends at the restore.
func TestSuspension_restoreRevokesWhatTheSuspensionLeft(t *testing.T) {
	env := testenv.New(t)
	op := operator(t, env, "opal")
	mia := env.Signup(t, "mia")
	now := time.Now()
	require.NoError(t, dynamo.NewUsers(env.App.Table).SetSuspension(t.Context(), &users.User{ID: mia.ID}, &now, "Spam.", now)) // no revocation
	require.Equal(t, http.StatusOK, env.Do("POST", "/v1/admin/users/"+mia.ID+"/restore", map[string]any{}, op.Token).Status)
	res := env.Do("POST", "/v1/auth/refresh", map[string]any{"refreshToken": mia.Refresh}, "")
	assert.Equal(t, http.StatusUnauthorized, res.Status, res.String())
}

// Of operators suspending one account at once, one succeeds and writes
// the audit entry; the others are refused (409) and write none.
func TestSuspension_concurrentOperators(t *testing.T) {
	env := testenv.New(t)
	mia := env.Signup(t, "mia")
	ops := make([]testenv.Account, 5)
	for i := range ops {
		ops[i] = operator(t, env, fmt.Sprintf("op%d", i))
	}
	statuses := make([]int, len(ops))
	var wg sync.WaitGroup
	for i, op := range ops {
		wg.Go(func() {
			statuses[i] = env.Do("POST", "/v1/admin/users/"+mia.ID+"/suspend", map[string]any{"reason": "Spam."}, op.Token).Status
		})
	}
	wg.Wait()
	counts := map[int]int{}
	for _, st := range statuses {
		counts[st]++
	}
	assert.Equal(t, map[int]int{http.StatusOK: 1, http.StatusConflict: len(ops) - 1}, counts)
	res := env.Do("GET", "/v1/admin/audit?targetType=user&targetId="+mia.ID+"&action=user.suspend", nil, ops[0].Token)
	require.Equal(t, http.StatusOK, res.Status, res.String())
	assert.Len(t, res.JSON["items"], 1)
}

func TestTier(t *testing.T) {
	env := testenv.New(t)
	op := operator(t, env, "opal")
	mia := env.Signup(t, "mia")
	put := func(id string, body any, token string) *testenv.Response {
		return env.Do("PUT", "/v1/admin/users/"+id+"/tier", body, token)
	}
	res := put(mia.ID, map[string]any{"tier": "bookstore", "reason": "Approved by phone."}, op.Token)
	require.Equal(t, http.StatusOK, res.Status, res.String())
	own := env.Do("GET", "/v1/users/me", nil, mia.Token)
	require.Equal(t, http.StatusOK, own.Status)
	assert.Equal(t, "bookstore", own.JSON["tier"])
	for k := range own.JSON {
		if k != "updatedAt" {
			assert.Equal(t, own.JSON[k], res.JSON[k], k)
		}
	}
	assert.Len(t, res.JSON, len(own.JSON), "the own-profile shape")
	// The same tier again answers 200 (and is audited).
	assert.Equal(t, http.StatusOK, put(mia.ID, map[string]any{"tier": "bookstore"}, op.Token).Status)

	assert.Equal(t, http.StatusNotFound, put(unknownID, map[string]any{"tier": "premium"}, op.Token).Status)
	res = put(mia.ID, map[string]any{"tier": "admin"}, op.Token)
	assert.Equal(t, http.StatusBadRequest, res.Status, res.String())
	assert.Equal(t, http.StatusForbidden, put(mia.ID, map[string]any{"tier": "premium"}, mia.Token).Status)
	assert.Equal(t, http.StatusUnauthorized, put(mia.ID, map[string]any{"tier": "premium"}, "").Status)
}

func TestOperatorRole(t *testing.T) {
	env := testenv.New(t)
	op := operator(t, env, "opal")
	mia := env.Signup(t, "mia")
	res := env.Do("PUT", "/v1/admin/users/"+mia.ID+"/operator", map[string]any{"operator": true}, op.Token)
	require.Equal(t, http.StatusOK, res.Status, res.String())
	assert.Equal(t, true, res.JSON["operator"])
	// mia is an operator now: she may read the back office.
	assert.Equal(t, http.StatusOK, env.Do("GET", "/v1/admin/users/"+op.ID, nil, mia.Token).Status)
	res = env.Do("PUT", "/v1/admin/users/"+mia.ID+"/operator", map[string]any{"operator": true}, mia.Token)
	assert.Equal(t, http.StatusOK, res.Status, "granting again is no error: %s", res)
	res = env.Do("PUT", "/v1/admin/users/"+mia.ID+"/operator", map[string]any{"operator": false}, mia.Token)
	assert.Equal(t, http.StatusConflict, res.Status, res.String())
	res = env.Do("PUT", "/v1/admin/users/"+mia.ID+"/operator", map[string]any{"operator": false}, op.Token)
	require.Equal(t, http.StatusOK, res.Status, res.String())
	assert.Equal(t, false, res.JSON["operator"])
	assert.Equal(t, http.StatusForbidden, env.Do("GET", "/v1/admin/users/"+op.ID, nil, mia.Token).Status)
	assert.Equal(t, http.StatusBadRequest, env.Do("PUT", "/v1/admin/users/"+mia.ID+"/operator", map[string]any{}, op.Token).Status)
	assert.Equal(t, http.StatusNotFound, env.Do("PUT", "/v1/admin/users/"+unknownID+"/operator", map[string]any{"operator": true}, op.Token).Status)
}

func TestFindUsers(t *testing.T) {
	env := testenv.New(t)
	op := operator(t, env, "opal")
	mia := env.Signup(t, "Mia")
	for _, q := range []string{"email=" + strings.ToUpper(mia.Email), "username=mia"} {
		res := env.Do("GET", "/v1/admin/users?"+q, nil, op.Token)
		require.Equal(t, http.StatusOK, res.Status, res.String())
		items := res.JSON["items"].([]any)
		require.Len(t, items, 1, q)
		assert.Equal(t, mia.ID, items[0].(map[string]any)["id"])
	}
	res := env.Do("GET", "/v1/admin/users?username=nobody", nil, op.Token)
	require.Equal(t, http.StatusOK, res.Status, res.String())
	assert.Empty(t, res.JSON["items"])
	assert.Equal(t, http.StatusBadRequest, env.Do("GET", "/v1/admin/users", nil, op.Token).Status)
	assert.Equal(t, http.StatusBadRequest, env.Do("GET", "/v1/admin/users?username=mia&email=x@example.com", nil, op.Token).Status)
	assert.Equal(t, http.StatusForbidden, env.Do("GET", "/v1/admin/users?username=mia", nil, mia.Token).Status)
}

// TestRateLimitReset: a reader refused by create_line posts again at
// once after an operator's reset, counted from zero.
func TestRateLimitReset(t *testing.T) {
	clock := testenv.NewClock(time.Date(2026, 11, 28, 9, 0, 5, 0, time.UTC))
	env := testenv.New(t, testenv.WithClock(clock), testenv.WithRateLimits())
	book := env.ImportBooks(t, books.Record{ISBN: "9780198534532", Title: "The Hobbit", Authors: []string{"J. R. R. Tolkien"}, Language: "en"})[0]
	op := operator(t, env, "opal")
	mia := env.Signup(t, "mia")
	post := func(i int) *testenv.Response {
		return env.Do("POST", "/v1/lines", map[string]any{"bookId": book, "content": fmt.Sprintf("Line number %d.", i)}, mia.Token)
	}
	i := 0
	for ; i < 10; i++ {
		require.Equal(t, http.StatusCreated, post(i).Status)
	}
	res := post(i)
	require.Equal(t, http.StatusTooManyRequests, res.Status, res.String())

	reset := env.Do("DELETE", "/v1/admin/users/"+mia.ID+"/rate-limits?action=create_line", nil, op.Token)
	require.Equal(t, http.StatusOK, reset.Status, reset.String())
	assert.Equal(t, "create_line", reset.JSON["action"])
	assert.EqualValues(t, 1, reset.JSON["cleared"])
	res = post(i)
	require.Equal(t, http.StatusCreated, res.Status, res.String())
	assert.Equal(t, "9", res.Header.Get("X-RateLimit-Remaining"), "counted from zero")

	reset = env.Do("DELETE", "/v1/admin/users/"+mia.ID+"/rate-limits", nil, op.Token)
	require.Equal(t, http.StatusOK, reset.Status, reset.String())
	assert.Nil(t, reset.JSON["action"])

	assert.Equal(t, http.StatusBadRequest, env.Do("DELETE", "/v1/admin/users/"+mia.ID+"/rate-limits?action=nope", nil, op.Token).Status)
	assert.Equal(t, http.StatusNotFound, env.Do("DELETE", "/v1/admin/users/"+unknownID+"/rate-limits", nil, op.Token).Status)
	assert.Equal(t, http.StatusForbidden, env.Do("DELETE", "/v1/admin/users/"+mia.ID+"/rate-limits", nil, mia.Token).Status)
}

// An access token issued before a suspension stays dead after the
// restore, though its signature and expiry hold: the router answers
// 401 as for a token that does not verify. A sign-in in the very second
// of the restore works (iat and the cutoff are whole seconds), and so
// does a refresh token issued after it.
func TestSuspension_endsTheTokensIssuedBefore(t *testing.T) {
	clock := testenv.NewClock(time.Date(2026, 11, 28, 9, 0, 5, 100_000_000, time.UTC))
	env := testenv.New(t, testenv.WithClock(clock))
	op := operator(t, env, "opal")
	mia := env.Signup(t, "mia")
	// Issued in the suspension's own second, before it.
	clock.Advance(400 * time.Millisecond)
	res := env.Do("POST", "/v1/admin/users/"+mia.ID+"/suspend", map[string]any{"reason": "Spam."}, op.Token)
	require.Equal(t, http.StatusOK, res.Status, res.String())
	clock.Advance(time.Second)
	res = env.Do("POST", "/v1/admin/users/"+mia.ID+"/restore", map[string]any{"reason": "Appealed."}, op.Token)
	require.Equal(t, http.StatusOK, res.Status, res.String())

	for _, path := range []string{"/v1/users/me", "/v1/users/me/clubs"} {
		res = env.Do("GET", path, nil, mia.Token)
		testenv.AssertError(t, res, http.StatusUnauthorized, "Unauthorized", "Invalid or expired token")
	}
	res = env.Do("POST", "/v1/auth/refresh", map[string]any{"refreshToken": mia.Refresh}, "")
	assert.Equal(t, http.StatusUnauthorized, res.Status, res.String())

	clock.Advance(800 * time.Millisecond) // the restore's second still
	fresh := env.Login(t, mia)
	res = env.Do("GET", "/v1/users/me", nil, fresh.Token)
	require.Equal(t, http.StatusOK, res.Status, res.String())
	clock.Advance(2 * time.Second)
	res = env.Do("POST", "/v1/auth/refresh", map[string]any{"refreshToken": fresh.Refresh}, "")
	require.Equal(t, http.StatusOK, res.Status, res.String())
	res = env.Do("GET", "/v1/users/me", nil, res.JSON["token"].(string))
	assert.Equal(t, http.StatusOK, res.Status, res.String())
	// The old token stays dead.
	assert.Equal(t, http.StatusUnauthorized, env.Do("GET", "/v1/users/me", nil, mia.Token).Status)
}

// isOperator reads whether an account holds the role, behind the API.
func isOperator(t *testing.T, env *testenv.Env, id string) bool {
	t.Helper()
	u, err := dynamo.NewUsers(env.App.Table).GetUser(t.Context(), id)
	require.NoError(t, err)
	return u.Operator && !u.Suspended()
}

func operatorCount(t *testing.T, env *testenv.Env) int {
	t.Helper()
	n, err := dynamo.NewUsers(env.App.Table).OperatorCount(t.Context())
	require.NoError(t, err)
	return n
}

// Two operators revoking each other at once leave the platform one: the
// transaction that would take the count of working operators below one
// is refused (409), or the loser's request is no operator's any more
// (403). Rounds of it, each survivor granting a new second operator.
func TestOperatorRole_concurrentRevokesKeepOne(t *testing.T) {
	env := testenv.New(t)
	survivor := operator(t, env, "op_0")
	for round := 1; round <= 6; round++ {
		other := env.Signup(t, fmt.Sprintf("op_%d", round))
		res := env.Do("PUT", "/v1/admin/users/"+other.ID+"/operator", map[string]any{"operator": true}, survivor.Token)
		require.Equal(t, http.StatusOK, res.Status, res.String())
		require.Equal(t, 2, operatorCount(t, env))
		pair := []testenv.Account{survivor, other}
		statuses := make([]int, 2)
		bodies := make([]*testenv.Response, 2)
		var wg sync.WaitGroup
		for i, caller := range pair {
			target := pair[1-i]
			wg.Go(func() {
				bodies[i] = env.Do("PUT", "/v1/admin/users/"+target.ID+"/operator", map[string]any{"operator": false}, caller.Token)
				statuses[i] = bodies[i].Status
			})
		}
		wg.Wait()
		left := 0
		for i, a := range pair {
			if isOperator(t, env, a.ID) {
				left++
				survivor = a
			}
			if statuses[i] == http.StatusConflict {
				assert.Contains(t, errMessage(bodies[i]), "last working operator", "round %d", round)
			}
		}
		require.Equal(t, 1, left, "round %d: %v", round, statuses)
		ok, refused := 0, 0
		for _, st := range statuses {
			switch st {
			case http.StatusOK:
				ok++
			case http.StatusConflict, http.StatusForbidden:
				refused++
			}
		}
		assert.Equal(t, []int{1, 1}, []int{ok, refused}, "round %d: %v", round, statuses)
		assert.Equal(t, 1, operatorCount(t, env), "round %d", round)
	}
}

// The same for two operators suspending each other: a suspended
// operator is no working operator, and the last is not suspended.
func TestSuspension_concurrentOperatorsKeepOne(t *testing.T) {
	env := testenv.New(t)
	ann, bob := operator(t, env, "ann"), operator(t, env, "bob")
	pair := []testenv.Account{ann, bob}
	statuses := make([]int, 2)
	var wg sync.WaitGroup
	for i, caller := range pair {
		target := pair[1-i]
		wg.Go(func() {
			statuses[i] = env.Do("POST", "/v1/admin/users/"+target.ID+"/suspend", map[string]any{"reason": "Mutiny."}, caller.Token).Status
		})
	}
	wg.Wait()
	assert.Equal(t, 1, btoi(isOperator(t, env, ann.ID))+btoi(isOperator(t, env, bob.ID)), "%v", statuses)
	assert.Contains(t, statuses, http.StatusOK)
	assert.Equal(t, 1, operatorCount(t, env))
}

func btoi(b bool) int {
	if b {
		return 1
	}
	return 0
}

// A table whose count of operators was never written (made before it)
// counts its operators at the first change of the count, which then
// applies: a grant does not start the count at one, and a revoke or a
// suspension is refused only when it would leave none.
func TestOperatorRole_aTableWithoutTheCount(t *testing.T) {
	env := testenv.New(t)
	ann, bob := operator(t, env, "ann"), operator(t, env, "bob")
	carl := env.Signup(t, "carl")
	env.DeleteItem(t, dynamo.OperatorCountKey())
	res := env.Do("PUT", "/v1/admin/users/"+carl.ID+"/operator", map[string]any{"operator": true}, ann.Token)
	require.Equal(t, http.StatusOK, res.Status, res.String())
	assert.Equal(t, 3, operatorCount(t, env), "the two there and the grant")
	res = env.Do("PUT", "/v1/admin/users/"+carl.ID+"/operator", map[string]any{"operator": false}, ann.Token)
	require.Equal(t, http.StatusOK, res.Status, res.String())
	assert.Equal(t, 2, operatorCount(t, env))
	n, err := dynamo.NewUsers(env.App.Table).RecountOperators(t.Context())
	require.NoError(t, err)
	assert.Equal(t, -1, n, "counted already")

	env.DeleteItem(t, dynamo.OperatorCountKey())
	res = env.Do("POST", "/v1/admin/users/"+bob.ID+"/suspend", map[string]any{"reason": "Spam."}, ann.Token)
	require.Equal(t, http.StatusOK, res.Status, res.String())
	assert.Equal(t, 1, operatorCount(t, env))
	// bob is suspended: no working operator; his role goes without a change of the count.
	res = env.Do("PUT", "/v1/admin/users/"+bob.ID+"/operator", map[string]any{"operator": false}, ann.Token)
	require.Equal(t, http.StatusOK, res.Status, res.String())
	assert.Equal(t, 1, operatorCount(t, env))
}
