package challengesapi_test

import (
	"fmt"
	"github.com/bookplatform/backend/shared/api/challengesapi"
	"net/http"
	"net/url"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/bookplatform/backend/local/testenv"
	"github.com/bookplatform/backend/shared/books"
	"github.com/bookplatform/backend/shared/challenges"
	"github.com/bookplatform/backend/shared/dynamo"
	"github.com/bookplatform/backend/shared/storehost"
	"github.com/bookplatform/backend/shared/users"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func TestMain(m *testing.M) { testenv.Main(m) }

// world is a test environment with a fake clock, one book, one declared
// store and helpers for the challenges group; every request moves the
// clock on by a little over a second.
type world struct {
	*testenv.Env
	clock  *testenv.Clock
	book   string
	stores testenv.StoreHosts
}

const (
	storeID   = "5a1e0c3e-0000-4000-8000-00000000a001"
	unknownID = "00000000-0000-4000-8000-000000000000"
)

func newWorld(t *testing.T, opts ...testenv.Option) *world {
	t.Helper()
	stores := testenv.StoreHosts{
		Stores: map[string]storehost.Brief{storeID: {ID: storeID, Name: "Corner Books", Slug: "corner-books"}},
		Hosts:  map[string][]string{},
	}
	p := testenv.NewPaced(t, append([]testenv.Option{testenv.WithStoreHosts(stores)}, opts...)...)
	env := p.Env
	w := &world{Env: env, clock: p.Clock, stores: stores}
	rec := books.Record{ISBN: "9780198534532", Title: "The Hobbit", Authors: []string{"J. R. R. Tolkien"}, Language: "en"}
	w.book = env.ImportBooks(t, rec)[0]
	return w
}

func (w *world) signup(t *testing.T, username string) testenv.Account {
	t.Helper()
	w.clock.Advance(1100 * time.Millisecond)
	return w.Signup(t, username)
}

func (w *world) premium(t *testing.T, username string) testenv.Account {
	t.Helper()
	a := w.signup(t, username)
	w.SetTier(t, a, users.TierPremium)
	return a
}

func (w *world) req(method, path string, body any, token string) *testenv.Response {
	w.clock.Advance(1100 * time.Millisecond)
	return w.Do(method, path, body, token)
}

// challenge creates a challenge and returns its JSON.
func (w *world) challenge(t *testing.T, host testenv.Account, name string, goal int) map[string]any {
	t.Helper()
	res := w.req("POST", "/v1/challenges", map[string]any{
		"name": name, "goal": goal, "startDate": "2026-01-01", "endDate": "2026-12-31",
	}, host.Token)
	require.Equal(t, http.StatusCreated, res.Status, res.String())
	return res.JSON
}

func (w *world) participantCount(t *testing.T, id string) float64 {
	t.Helper()
	item := w.Item(t, dynamo.ChallengeKey(id))
	require.NotNil(t, item)
	return item["participantCount"].(float64)
}

func ids(list any) []string {
	var out []string
	for _, it := range list.([]any) {
		out = append(out, it.(map[string]any)["id"].(string))
	}
	return out
}

func TestChallenges_Create(t *testing.T) {
	w := newWorld(t)
	pam := w.premium(t, "pam")
	res := w.req("POST", "/v1/challenges", map[string]any{
		"name": " 24 in 2026 ", "description": "Two books a month.", "goal": 24, "startDate": "2026-01-01", "endDate": "2026-12-31",
	}, pam.Token)
	require.Equal(t, http.StatusCreated, res.Status, res.String())
	c := res.JSON
	id := c["id"].(string)
	assert.Equal(t, map[string]any{
		"id": id, "name": "24 in 2026", "description": "Two books a month.", "goal": 24.0,
		"startDate": "2026-01-01", "endDate": "2026-12-31", "participantCount": 1.0,
		"hostId": pam.ID, "storeId": nil, "store": nil,
		"host":          map[string]any{"id": pam.ID, "username": "pam", "displayName": "Reader pam", "avatarUrl": nil, "tier": "premium"},
		"isParticipant": true, "progress": 0.0,
		"createdAt": "2026-03-02T09:00:02.200Z", "updatedAt": "2026-03-02T09:00:02.200Z",
	}, c, "the creator hosts it and takes part")
	require.NotNil(t, w.Item(t, dynamo.ParticipantKey(id, pam.ID)))

	t.Run("bookstore tier may create; free tier is 403", func(t *testing.T) {
		bo := w.signup(t, "boris")
		w.SetTier(t, bo, users.TierBookstore)
		w.challenge(t, bo, "Shop challenge", 5)
		fred := w.signup(t, "fred")
		res := w.req("POST", "/v1/challenges", map[string]any{"name": "x", "goal": 1, "startDate": "2026-01-01", "endDate": "2026-01-02"}, fred.Token)
		testenv.AssertError(t, res, http.StatusForbidden, "Forbidden", challenges.ErrTier.Message)
	})
	ok := map[string]any{"name": "x", "goal": 3, "startDate": "2026-01-01", "endDate": "2026-01-31"}
	with := func(k string, v any) map[string]any {
		m := map[string]any{}
		for kk, vv := range ok {
			m[kk] = vv
		}
		if v == nil {
			delete(m, k)
		} else {
			m[k] = v
		}
		return m
	}
	invalid := []struct {
		name  string
		body  map[string]any
		field string
	}{
		{"missing name", with("name", nil), "name"},
		{"missing goal", with("goal", nil), "goal"},
		{"goal 0", with("goal", 0), "goal"},
		{"goal 10001", with("goal", 10001), "goal"},
		{"goal 2.5", with("goal", 2.5), "goal"},
		{"goal a string", with("goal", "12"), "goal"},
		{"missing startDate", with("startDate", nil), "startDate"},
		{"missing endDate", with("endDate", nil), "endDate"},
		{"a timestamp for a date", with("startDate", "2026-01-01T00:00:00Z"), "startDate"},
		{"a day that does not exist", with("endDate", "2026-02-29"), "endDate"},
		{"end before start", with("endDate", "2025-12-31"), "endDate"},
		{"storeId not a UUID", with("storeId", "corner"), "storeId"},
	}
	for _, iv := range invalid {
		t.Run(iv.name+" is 400", func(t *testing.T) {
			res := w.req("POST", "/v1/challenges", iv.body, pam.Token)
			testenv.AssertError(t, res, http.StatusBadRequest, "ValidationError", "")
			assert.Contains(t, testenv.FieldErrors(t, res), iv.field)
		})
	}
	t.Run("a one-day challenge is fine", func(t *testing.T) {
		res := w.req("POST", "/v1/challenges", with("endDate", "2026-01-01"), pam.Token)
		require.Equal(t, http.StatusCreated, res.Status, res.String())
	})
	t.Run("stores: unknown 404, not staff 403, staff 201", func(t *testing.T) {
		testenv.AssertError(t, w.req("POST", "/v1/challenges", with("storeId", unknownID), pam.Token), http.StatusNotFound, "NotFound", "Store not found")
		testenv.AssertError(t, w.req("POST", "/v1/challenges", with("storeId", storeID), pam.Token), http.StatusForbidden, "Forbidden", "")
		w.stores.Hosts[storeID] = []string{pam.ID}
		res := w.req("POST", "/v1/challenges", with("storeId", storeID), pam.Token)
		require.Equal(t, http.StatusCreated, res.Status, res.String())
		assert.Equal(t, storeID, res.JSON["storeId"])
		assert.Equal(t, map[string]any{"id": storeID, "name": "Corner Books", "slug": "corner-books"}, res.JSON["store"])
	})
	t.Run("a store whose deletion has begun refuses the challenge in its transaction", func(t *testing.T) {
		k := dynamo.StoreKey(storeID)
		w.PutItem(t, map[string]any{dynamo.AttrPK: k.PK, dynamo.AttrSK: k.SK, "deleting": true})
		defer w.DeleteItem(t, k)
		testenv.AssertError(t, w.req("POST", "/v1/challenges", with("storeId", storeID), pam.Token), http.StatusNotFound, "NotFound", "Store not found")
		res := w.req("GET", "/v1/challenges?storeId="+storeID, nil, "")
		require.Equal(t, http.StatusOK, res.Status, res.String())
		assert.EqualValues(t, 1, res.JSON["total"], "nothing created")
	})
	t.Run("without a token is 401", func(t *testing.T) {
		testenv.AssertError(t, w.req("POST", "/v1/challenges", ok, ""), http.StatusUnauthorized, "Unauthorized", "")
	})
	t.Run("the creator tiers are configuration", func(t *testing.T) {
		w := newWorld(t, testenv.WithEnv(challengesapi.EnvCreatorTiers, "bookstore"))
		pam := w.premium(t, "pam")
		testenv.AssertError(t, w.req("POST", "/v1/challenges", ok, pam.Token), http.StatusForbidden, "Forbidden", "")
	})
}

func TestChallenges_ListAndGet(t *testing.T) {
	w := newWorld(t)
	pam, ann := w.premium(t, "pam"), w.signup(t, "ann")
	w.stores.Hosts[storeID] = []string{pam.ID}
	var newestFirst []string
	for i := range 4 {
		newestFirst = append([]string{w.challenge(t, pam, fmt.Sprintf("C%d", i), i+1)["id"].(string)}, newestFirst...)
	}
	res := w.req("POST", "/v1/challenges", map[string]any{"name": "Shop", "goal": 6, "startDate": "2026-03-01", "endDate": "2026-05-31", "storeId": storeID}, pam.Token)
	require.Equal(t, http.StatusCreated, res.Status, res.String())
	shop := res.JSON
	newestFirst = append([]string{shop["id"].(string)}, newestFirst...)

	res = w.req("GET", "/v1/challenges", nil, "")
	require.Equal(t, http.StatusOK, res.Status, res.String())
	assert.Equal(t, 5.0, res.JSON["total"])
	assert.Equal(t, 20.0, res.JSON["limit"])
	assert.Equal(t, newestFirst, ids(res.JSON["challenges"]))
	assert.Equal(t, map[string]any{
		"id": shop["id"], "name": "Shop", "description": "", "goal": 6.0, "startDate": "2026-03-01", "endDate": "2026-05-31",
		"participantCount": 1.0, "hostId": pam.ID, "storeId": storeID, "createdAt": shop["createdAt"], "updatedAt": shop["updatedAt"],
	}, res.JSON["challenges"].([]any)[0], "the spec's listing fields")

	t.Run("offset pages and the store filter", func(t *testing.T) {
		var got []string
		for offset := 0; offset < 6; offset += 2 {
			res := w.req("GET", fmt.Sprintf("/v1/challenges?limit=2&offset=%d", offset), nil, ann.Token)
			require.Equal(t, http.StatusOK, res.Status, res.String())
			assert.Equal(t, 5.0, res.JSON["total"])
			got = append(got, ids(res.JSON["challenges"])...)
		}
		assert.Equal(t, newestFirst, got)
		res := w.req("GET", "/v1/challenges?storeId="+storeID, nil, "")
		assert.Equal(t, newestFirst[:1], ids(res.JSON["challenges"]))
		assert.Equal(t, 1.0, res.JSON["total"])
		res = w.req("GET", "/v1/challenges?storeId="+unknownID, nil, "")
		assert.Equal(t, 0.0, res.JSON["total"])
		for _, q := range []string{"storeId=corner", "storeId=", "limit=0", "offset=x"} {
			testenv.AssertError(t, w.req("GET", "/v1/challenges?"+q, nil, ""), http.StatusBadRequest, "ValidationError", "")
		}
	})
	t.Run("the single view, with and without a token", func(t *testing.T) {
		id := newestFirst[1]
		res := w.req("GET", "/v1/challenges/"+id, nil, "")
		require.Equal(t, http.StatusOK, res.Status, res.String())
		assert.Equal(t, false, res.JSON["isParticipant"])
		assert.Nil(t, res.JSON["progress"])
		assert.Contains(t, res.JSON, "progress")
		assert.Equal(t, pam.ID, res.JSON["host"].(map[string]any)["id"])
		res = w.req("GET", "/v1/challenges/"+id, nil, pam.Token)
		assert.Equal(t, true, res.JSON["isParticipant"])
		assert.Equal(t, 0.0, res.JSON["progress"])
		testenv.AssertError(t, w.req("GET", "/v1/challenges/"+unknownID, nil, ""), http.StatusNotFound, "NotFound", "Challenge not found")
		testenv.AssertError(t, w.req("GET", "/v1/challenges/nope", nil, ""), http.StatusNotFound, "NotFound", "Challenge not found")
	})
}

func TestChallenges_UpdateAndDelete(t *testing.T) {
	w := newWorld(t)
	pam, ann := w.premium(t, "pam"), w.signup(t, "ann")
	c := w.challenge(t, pam, "Summer", 10)
	id := c["id"].(string)
	res := w.req("POST", "/v1/challenges/"+id+"/join", nil, ann.Token)
	require.Equal(t, http.StatusCreated, res.Status, res.String())

	res = w.req("PUT", "/v1/challenges/"+id, map[string]any{"name": "Long summer", "goal": 12, "startDate": "2026-06-01"}, pam.Token)
	require.Equal(t, http.StatusOK, res.Status, res.String())
	assert.Equal(t, map[string]any{
		"id": id, "name": "Long summer", "description": "", "goal": 12.0, "startDate": "2026-06-01", "endDate": "2026-12-31",
		"participantCount": 2.0, "hostId": pam.ID, "storeId": nil, "createdAt": c["createdAt"], "updatedAt": res.JSON["updatedAt"],
	}, res.JSON)

	t.Run("a date changed alone stays within the stored period", func(t *testing.T) {
		res := w.req("PUT", "/v1/challenges/"+id, map[string]any{"startDate": "2027-01-01"}, pam.Token)
		testenv.AssertError(t, res, http.StatusBadRequest, "ValidationError", "")
		assert.Contains(t, testenv.FieldErrors(t, res), "endDate")
		testenv.AssertError(t, w.req("PUT", "/v1/challenges/"+id, map[string]any{"endDate": "2026-05-31"}, pam.Token), http.StatusBadRequest, "ValidationError", "")
		testenv.AssertError(t, w.req("PUT", "/v1/challenges/"+id, map[string]any{"startDate": "2026-09-01", "endDate": "2026-08-01"}, pam.Token), http.StatusBadRequest, "ValidationError", "")
		res = w.req("PUT", "/v1/challenges/"+id, map[string]any{"startDate": "2027-01-01", "endDate": "2027-03-01"}, pam.Token)
		require.Equal(t, http.StatusOK, res.Status, res.String())
		assert.Equal(t, "2027-03-01", res.JSON["endDate"])
	})
	for name, body := range map[string]map[string]any{
		"goal 0": {"goal": 0}, "blank name": {"name": " "}, "bad date": {"endDate": "soon"},
	} {
		t.Run(name+" is 400", func(t *testing.T) {
			testenv.AssertError(t, w.req("PUT", "/v1/challenges/"+id, body, pam.Token), http.StatusBadRequest, "ValidationError", "")
		})
	}
	t.Run("only the host updates and deletes; unknown is 404", func(t *testing.T) {
		testenv.AssertError(t, w.req("PUT", "/v1/challenges/"+id, map[string]any{"goal": 1}, ann.Token), http.StatusForbidden, "Forbidden", challenges.ErrNotHost.Message)
		testenv.AssertError(t, w.req("DELETE", "/v1/challenges/"+id, nil, ann.Token), http.StatusForbidden, "Forbidden", challenges.ErrNotHost.Message)
		testenv.AssertError(t, w.req("PUT", "/v1/challenges/"+unknownID, map[string]any{"goal": 1}, pam.Token), http.StatusNotFound, "NotFound", "")
		testenv.AssertError(t, w.req("DELETE", "/v1/challenges/"+unknownID, nil, pam.Token), http.StatusNotFound, "NotFound", "")
	})
	t.Run("delete removes the challenge, its participants and its listing; its lines stay", func(t *testing.T) {
		res := w.req("POST", "/v1/lines", map[string]any{"bookId": w.book, "content": "Page one.", "challengeId": id}, ann.Token)
		require.Equal(t, http.StatusCreated, res.Status, res.String())
		lineID := res.JSON["id"].(string)
		res = w.req("DELETE", "/v1/challenges/"+id, nil, pam.Token)
		require.Equal(t, http.StatusOK, res.Status, res.String())
		assert.Equal(t, map[string]any{"success": true, "message": "Challenge deleted"}, res.JSON)
		assert.Nil(t, w.Item(t, dynamo.ChallengeKey(id)))
		assert.Nil(t, w.Item(t, dynamo.ParticipantKey(id, ann.ID)))
		assert.Nil(t, w.Item(t, dynamo.ParticipantKey(id, pam.ID)))
		res = w.req("GET", "/v1/challenges", nil, "")
		assert.Equal(t, 0.0, res.JSON["total"])
		res = w.req("GET", "/v1/users/me/challenges", nil, ann.Token)
		assert.Equal(t, []any{}, res.JSON["challenges"])
		res = w.req("GET", "/v1/lines/"+lineID, nil, pam.Token)
		require.Equal(t, http.StatusOK, res.Status, res.String())
		testenv.AssertError(t, w.req("GET", "/v1/lines/challenge/"+id, nil, ann.Token), http.StatusNotFound, "NotFound", "Challenge not found")
		testenv.AssertError(t, w.req("DELETE", "/v1/challenges/"+id, nil, pam.Token), http.StatusNotFound, "NotFound", "")
	})
}

func TestChallenges_JoinLeaveProgress(t *testing.T) {
	w := newWorld(t)
	pam, ann, bob := w.premium(t, "pam"), w.signup(t, "ann"), w.signup(t, "bob")
	id := w.challenge(t, pam, "Ten", 10)["id"].(string)

	res := w.req("POST", "/v1/challenges/"+id+"/join", nil, ann.Token)
	require.Equal(t, http.StatusCreated, res.Status, res.String())
	p := res.JSON["participation"].(map[string]any)
	assert.Equal(t, map[string]any{"success": true, "participation": map[string]any{
		"challengeId": id, "userId": ann.ID, "progress": 0.0, "joinedAt": p["joinedAt"], "updatedAt": p["joinedAt"],
	}}, res.JSON)
	assert.Equal(t, 2.0, w.participantCount(t, id))

	t.Run("joining twice is 400; unknown is 404", func(t *testing.T) {
		testenv.AssertError(t, w.req("POST", "/v1/challenges/"+id+"/join", nil, ann.Token), http.StatusBadRequest, "ValidationError", challenges.ErrAlreadyParticipant.Message)
		testenv.AssertError(t, w.req("POST", "/v1/challenges/"+unknownID+"/join", nil, ann.Token), http.StatusNotFound, "NotFound", "")
		assert.Equal(t, 2.0, w.participantCount(t, id))
	})
	t.Run("progress: a total of books finished, completed at the goal", func(t *testing.T) {
		res := w.req("PUT", "/v1/challenges/"+id+"/progress", map[string]any{"progress": 4}, ann.Token)
		require.Equal(t, http.StatusOK, res.Status, res.String())
		assert.Equal(t, 4.0, res.JSON["participation"].(map[string]any)["progress"])
		assert.Equal(t, 10.0, res.JSON["goal"])
		assert.Equal(t, false, res.JSON["completed"])
		res = w.req("PUT", "/v1/challenges/"+id+"/progress", map[string]any{"progress": 11}, ann.Token)
		require.Equal(t, http.StatusOK, res.Status, res.String())
		assert.Equal(t, true, res.JSON["completed"])
		assert.NotEqual(t, res.JSON["participation"].(map[string]any)["joinedAt"], res.JSON["participation"].(map[string]any)["updatedAt"])
	})
	t.Run("progress errors", func(t *testing.T) {
		testenv.AssertError(t, w.req("PUT", "/v1/challenges/"+id+"/progress", map[string]any{"progress": 1}, bob.Token), http.StatusForbidden, "Forbidden", challenges.ErrJoinFirst.Message)
		testenv.AssertError(t, w.req("PUT", "/v1/challenges/"+unknownID+"/progress", map[string]any{"progress": 1}, ann.Token), http.StatusNotFound, "NotFound", "")
		for _, body := range []map[string]any{{}, {"progress": -1}, {"progress": 100001}, {"progress": 1.5}, {"progress": nil}} {
			res := w.req("PUT", "/v1/challenges/"+id+"/progress", body, ann.Token)
			testenv.AssertError(t, res, http.StatusBadRequest, "ValidationError", "")
			assert.Contains(t, testenv.FieldErrors(t, res), "progress")
		}
		assert.Equal(t, 11.0, w.Item(t, dynamo.ParticipantKey(id, ann.ID))["progress"])
	})
	t.Run("leave; leaving again is 400; the host cannot leave", func(t *testing.T) {
		res := w.req("DELETE", "/v1/challenges/"+id+"/leave", nil, ann.Token)
		require.Equal(t, http.StatusOK, res.Status, res.String())
		assert.Equal(t, 1.0, w.participantCount(t, id))
		testenv.AssertError(t, w.req("DELETE", "/v1/challenges/"+id+"/leave", nil, ann.Token), http.StatusBadRequest, "ValidationError", challenges.ErrNotParticipant.Message)
		testenv.AssertError(t, w.req("DELETE", "/v1/challenges/"+id+"/leave", nil, pam.Token), http.StatusBadRequest, "ValidationError", challenges.ErrHostCannotLeave.Message)
		testenv.AssertError(t, w.req("DELETE", "/v1/challenges/"+unknownID+"/leave", nil, ann.Token), http.StatusNotFound, "NotFound", "")
		assert.Equal(t, 1.0, w.participantCount(t, id))
	})
}

func TestChallenges_Participants(t *testing.T) {
	w := newWorld(t)
	pam := w.premium(t, "pam")
	id := w.challenge(t, pam, "Race", 5)["id"].(string)
	var rs []testenv.Account
	for i := range 4 {
		a := w.signup(t, fmt.Sprintf("runner%d", i))
		require.Equal(t, http.StatusCreated, w.req("POST", "/v1/challenges/"+id+"/join", nil, a.Token).Status)
		rs = append(rs, a)
	}
	// runner2 reaches 3 before runner0 does; runner3 finishes.
	for _, step := range []struct {
		a testenv.Account
		n int
	}{{rs[2], 3}, {rs[0], 3}, {rs[3], 6}, {rs[1], 1}} {
		require.Equal(t, http.StatusOK, w.req("PUT", "/v1/challenges/"+id+"/progress", map[string]any{"progress": step.n}, step.a.Token).Status)
	}

	res := w.req("GET", "/v1/challenges/"+id+"/participants", nil, "")
	require.Equal(t, http.StatusOK, res.Status, res.String())
	var order []string
	for _, it := range res.JSON["items"].([]any) {
		order = append(order, it.(map[string]any)["userId"].(string))
	}
	assert.Equal(t, []string{rs[3].ID, rs[2].ID, rs[0].ID, rs[1].ID, pam.ID}, order, "most books first; a tie goes to who got there first")
	top := res.JSON["items"].([]any)[0].(map[string]any)
	assert.Equal(t, 6.0, top["progress"])
	assert.Equal(t, true, top["completed"])
	assert.Equal(t, "runner3", top["user"].(map[string]any)["username"])
	assert.Equal(t, "free", top["user"].(map[string]any)["tier"])

	t.Run("pages follow the order", func(t *testing.T) {
		res := w.req("GET", "/v1/challenges/"+id+"/participants?limit=3", nil, pam.Token)
		require.Equal(t, true, res.JSON["hasMore"])
		res = w.req("GET", "/v1/challenges/"+id+"/participants?limit=3&cursor="+url.QueryEscape(res.JSON["nextCursor"].(string)), nil, pam.Token)
		require.Equal(t, http.StatusOK, res.Status, res.String())
		var rest []string
		for _, it := range res.JSON["items"].([]any) {
			rest = append(rest, it.(map[string]any)["userId"].(string))
		}
		assert.Equal(t, []string{rs[1].ID, pam.ID}, rest)
		assert.Equal(t, false, res.JSON["hasMore"])
	})
	t.Run("unknown challenge 404, a bad cursor 400", func(t *testing.T) {
		testenv.AssertError(t, w.req("GET", "/v1/challenges/"+unknownID+"/participants", nil, ""), http.StatusNotFound, "NotFound", "")
		testenv.AssertError(t, w.req("GET", "/v1/challenges/"+id+"/participants?cursor=abc", nil, ""), http.StatusBadRequest, "ValidationError", "Invalid cursor")
	})
}

func TestChallenges_ReaderLists(t *testing.T) {
	w := newWorld(t)
	pam, ann := w.premium(t, "pam"), w.signup(t, "ann")
	a := w.challenge(t, pam, "A", 2)
	b := w.challenge(t, pam, "B", 3)
	require.Equal(t, http.StatusCreated, w.req("POST", "/v1/challenges/"+a["id"].(string)+"/join", nil, ann.Token).Status)
	require.Equal(t, http.StatusCreated, w.req("POST", "/v1/challenges/"+b["id"].(string)+"/join", nil, ann.Token).Status)
	require.Equal(t, http.StatusOK, w.req("PUT", "/v1/challenges/"+a["id"].(string)+"/progress", map[string]any{"progress": 1}, ann.Token).Status)

	res := w.req("GET", "/v1/users/me/challenges", nil, ann.Token)
	require.Equal(t, http.StatusOK, res.Status, res.String())
	assert.Equal(t, []any{
		map[string]any{"id": b["id"], "name": "B", "description": "", "goal": 3.0, "startDate": "2026-01-01", "endDate": "2026-12-31", "participantCount": 2.0, "hostId": pam.ID, "createdAt": b["createdAt"], "progress": 0.0},
		map[string]any{"id": a["id"], "name": "A", "description": "", "goal": 2.0, "startDate": "2026-01-01", "endDate": "2026-12-31", "participantCount": 2.0, "hostId": pam.ID, "createdAt": a["createdAt"], "progress": 1.0},
	}, res.JSON["challenges"], "latest joined first")
	assert.Equal(t, false, res.JSON["hasMore"])

	res = w.req("GET", "/v1/users/ann/challenges", nil, "")
	require.Equal(t, http.StatusOK, res.Status, res.String())
	assert.Equal(t, []any{
		map[string]any{"id": b["id"], "name": "B", "description": "", "goal": 3.0, "participantCount": 2.0, "createdAt": b["createdAt"]},
		map[string]any{"id": a["id"], "name": "A", "description": "", "goal": 2.0, "participantCount": 2.0, "createdAt": a["createdAt"]},
	}, res.JSON["challenges"])
	res = w.req("GET", "/v1/users/ann/challenges?limit=1", nil, "")
	assert.Len(t, res.JSON["challenges"], 1)
	assert.Equal(t, true, res.JSON["hasMore"])

	testenv.AssertError(t, w.req("GET", "/v1/users/nobody_here/challenges", nil, ""), http.StatusNotFound, "NotFound", "User not found")
	testenv.AssertError(t, w.req("GET", "/v1/users/me/challenges", nil, ""), http.StatusUnauthorized, "Unauthorized", "")
}

// Parallel joins and leaves keep participantCount equal to the
// participants stored.
func TestChallenges_ConcurrentJoins(t *testing.T) {
	w := newWorld(t)
	pam := w.premium(t, "pam")
	id := w.challenge(t, pam, "Crowd", 5)["id"].(string)
	var rs []testenv.Account
	for i := range 20 {
		rs = append(rs, w.signup(t, fmt.Sprintf("crowd%02d", i)))
	}
	for _, a := range rs[:5] {
		require.Equal(t, http.StatusCreated, w.req("POST", "/v1/challenges/"+id+"/join", nil, a.Token).Status)
	}
	var wg sync.WaitGroup
	for i, a := range rs {
		for range 2 { // each twice: one join wins, one is 400; the first five leave twice
			wg.Add(1)
			go func() {
				defer wg.Done()
				if i < 5 {
					w.Do("DELETE", "/v1/challenges/"+id+"/leave", nil, a.Token)
				} else {
					w.Do("POST", "/v1/challenges/"+id+"/join", nil, a.Token)
				}
			}()
		}
	}
	wg.Wait()
	assert.Equal(t, 16.0, w.participantCount(t, id))
	res := w.req("GET", "/v1/challenges/"+id+"/participants?limit=100", nil, "")
	require.Equal(t, http.StatusOK, res.Status, res.String())
	assert.Len(t, res.JSON["items"], 16, "the count is the participants stored")
	assert.False(t, strings.Contains(res.String(), rs[0].ID))
}
