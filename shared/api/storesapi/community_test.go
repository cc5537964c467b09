package storesapi_test

import (
	"fmt"
	"net/http"
	"sync"
	"testing"
	"time"

	"github.com/bookplatform/backend/local/testenv"
	"github.com/bookplatform/backend/shared/clubs"
	"github.com/bookplatform/backend/shared/config"
	"github.com/bookplatform/backend/shared/dynamo"
	"github.com/bookplatform/backend/shared/users"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// What connects stores to the community features, end to end with real
// stores (the clubs and challenges groups' own tests declare theirs with
// testenv.StoreHosts): who may host a club or challenge for a store, a
// store's lists of them, and what a store's deletion does to them and to
// its follows.

// community is a test world with a clock that moves a little over a
// second per request, so that what is created has distinct, ordered
// times.
type community struct {
	*testenv.Env
	clock *testenv.Clock
}

func newCommunity(t *testing.T) *community {
	t.Helper()
	clock := testenv.NewClock(time.Date(2026, 4, 6, 9, 0, 0, 0, time.UTC))
	env := testenv.New(t, testenv.WithClock(clock), testenv.WithConfig(func(c *config.Config) {
		c.AccessTokenTTL, c.RefreshTokenTTL = 30*24*time.Hour, 60*24*time.Hour
	}))
	return &community{Env: env, clock: clock}
}

func (w *community) req(method, path string, body any, token string) *testenv.Response {
	w.clock.Advance(1100 * time.Millisecond)
	return w.Do(method, path, body, token)
}

// reader signs up an account of tier.
func (w *community) reader(t *testing.T, username string, tier users.Tier) testenv.Account {
	t.Helper()
	w.clock.Advance(1100 * time.Millisecond)
	a := w.Signup(t, username)
	if tier != users.TierFree {
		w.SetTier(t, a, tier)
	}
	return a
}

// club creates a club through the API (201) and returns its id.
func (w *community) club(t *testing.T, host testenv.Account, name, storeID string, public bool) string {
	t.Helper()
	body := map[string]any{"name": name, "isPublic": public}
	if storeID != "" {
		body["storeId"] = storeID
	}
	res := w.req("POST", "/v1/clubs", body, host.Token)
	require.Equal(t, http.StatusCreated, res.Status, res.String())
	return res.JSON["id"].(string)
}

// challenge creates a challenge through the API (201) and returns its id.
func (w *community) challenge(t *testing.T, host testenv.Account, name, storeID string) string {
	t.Helper()
	body := map[string]any{"name": name, "goal": 12, "startDate": "2026-01-01", "endDate": "2026-12-31"}
	if storeID != "" {
		body["storeId"] = storeID
	}
	res := w.req("POST", "/v1/challenges", body, host.Token)
	require.Equal(t, http.StatusCreated, res.Status, res.String())
	return res.JSON["id"].(string)
}

func names(t *testing.T, res *testenv.Response, key string) []string {
	t.Helper()
	require.Equal(t, http.StatusOK, res.Status, res.String())
	out := []string{}
	for _, it := range res.JSON[key].([]any) {
		out = append(out, it.(map[string]any)["name"].(string))
	}
	return out
}

func TestStores_HostClubsAndChallenges(t *testing.T) {
	w := newCommunity(t)
	owner := w.reader(t, "host_owner", users.TierBookstore)
	storeID := newStore(t, w.Env, owner, storeBody("host-shop"))["id"].(string)
	clerk := w.reader(t, "host_clerk", users.TierPremium)
	stranger := w.reader(t, "host_stranger", users.TierPremium)
	require.Equal(t, http.StatusCreated, w.req("POST", "/v1/stores/host-shop/staff", map[string]any{"userId": clerk.ID}, owner.Token).Status)
	brief := map[string]any{"id": storeID, "name": "Corner Books host-shop", "slug": "host-shop"}

	t.Run("the owner hosts a club for the store", func(t *testing.T) {
		res := w.req("POST", "/v1/clubs", map[string]any{"name": "Owner's circle", "storeId": storeID}, owner.Token)
		require.Equal(t, http.StatusCreated, res.Status, res.String())
		assert.Equal(t, storeID, res.JSON["storeId"])
		assert.Equal(t, brief, res.JSON["store"], "no logoUrl: the store has none")
	})
	t.Run("a staff member hosts a challenge for it", func(t *testing.T) {
		res := w.req("POST", "/v1/challenges", map[string]any{"name": "Twelve", "goal": 12, "startDate": "2026-01-01", "endDate": "2026-12-31", "storeId": storeID}, clerk.Token)
		require.Equal(t, http.StatusCreated, res.Status, res.String())
		assert.Equal(t, storeID, res.JSON["storeId"])
		assert.Equal(t, brief, res.JSON["store"])
		res = w.req("POST", "/v1/clubs", map[string]any{"name": "Clerk's club", "storeId": storeID}, clerk.Token)
		require.Equal(t, http.StatusCreated, res.Status, res.String())
	})
	t.Run("the single views show the store with its logo", func(t *testing.T) {
		body, ctype := multipartBody(t, "logo", pngBytes(t))
		res := w.DoRaw("POST", "/v1/stores/host-shop/logo", ctype, body, owner.Token)
		require.Equal(t, http.StatusOK, res.Status, res.String())
		logo := res.JSON["logoUrl"].(string)
		clubID := w.club(t, owner, "With a logo", storeID, true)
		res = w.req("GET", "/v1/clubs/"+clubID, nil, "")
		require.Equal(t, http.StatusOK, res.Status, res.String())
		assert.Equal(t, map[string]any{"id": storeID, "name": "Corner Books host-shop", "slug": "host-shop", "logoUrl": logo}, res.JSON["store"])
		res = w.req("GET", "/v1/clubs?storeId="+storeID+"&limit=1", nil, "")
		require.Equal(t, http.StatusOK, res.Status, res.String())
		assert.Equal(t, brief, res.JSON["clubs"].([]any)[0].(map[string]any)["store"], "listings leave the logo out, as the spec does")
	})
	t.Run("another account is 403, an unknown store 404, and nothing is created", func(t *testing.T) {
		before := w.req("GET", "/v1/clubs?storeId="+storeID, nil, "").JSON["total"]
		testenv.AssertError(t, w.req("POST", "/v1/clubs", map[string]any{"name": "Not mine", "storeId": storeID}, stranger.Token),
			http.StatusForbidden, "Forbidden", "Only the store's owner or staff can host for the store")
		testenv.AssertError(t, w.req("POST", "/v1/challenges", map[string]any{"name": "Not mine", "goal": 1, "startDate": "2026-01-01", "endDate": "2026-01-31", "storeId": storeID}, stranger.Token),
			http.StatusForbidden, "Forbidden", "Only the store's owner or staff can host for the store")
		unknown := "00000000-0000-4000-8000-000000000000"
		testenv.AssertError(t, w.req("POST", "/v1/clubs", map[string]any{"name": "Nowhere", "storeId": unknown}, owner.Token),
			http.StatusNotFound, "NotFound", "Store not found")
		testenv.AssertError(t, w.req("POST", "/v1/challenges", map[string]any{"name": "Nowhere", "goal": 1, "startDate": "2026-01-01", "endDate": "2026-01-31", "storeId": unknown}, owner.Token),
			http.StatusNotFound, "NotFound", "Store not found")
		assert.Equal(t, before, w.req("GET", "/v1/clubs?storeId="+storeID, nil, "").JSON["total"])
	})
	t.Run("staff rights end with the membership", func(t *testing.T) {
		require.Equal(t, http.StatusOK, w.req("DELETE", "/v1/stores/host-shop/staff/"+clerk.ID, nil, owner.Token).Status)
		testenv.AssertError(t, w.req("POST", "/v1/clubs", map[string]any{"name": "Former clerk", "storeId": storeID}, clerk.Token),
			http.StatusForbidden, "Forbidden", "")
	})
	t.Run("the tier still decides first", func(t *testing.T) {
		free := w.reader(t, "free_clerk", users.TierFree)
		require.Equal(t, http.StatusCreated, w.req("POST", "/v1/stores/host-shop/staff", map[string]any{"userId": free.ID}, owner.Token).Status)
		testenv.AssertError(t, w.req("POST", "/v1/clubs", map[string]any{"name": "Free", "storeId": storeID}, free.Token),
			http.StatusForbidden, "Forbidden", "Your account's tier cannot create clubs: upgrade to premium")
	})
}

func TestStores_ClubsAndChallengesLists(t *testing.T) {
	w := newCommunity(t)
	owner := w.reader(t, "list_owner", users.TierBookstore)
	storeID := newStore(t, w.Env, owner, storeBody("list-shop"))["id"].(string)
	other := w.reader(t, "other_owner", users.TierBookstore)
	otherID := newStore(t, w.Env, other, storeBody("other-shop"))["id"].(string)
	reader := w.reader(t, "list_reader", users.TierPremium)

	w.club(t, owner, "Mysteries", storeID, true)
	w.club(t, owner, "Staff picks (closed)", storeID, false)
	w.club(t, other, "Elsewhere", otherID, true)
	w.club(t, reader, "A reader's own", "", true)
	w.club(t, owner, "Poetry", storeID, true)
	w.challenge(t, owner, "Twelve books", storeID)
	w.challenge(t, reader, "Reader's challenge", "")
	w.challenge(t, owner, "Summer reading", storeID)
	w.challenge(t, other, "Other challenge", otherID)

	t.Run("the store's clubs, newest first, private ones listed as GET /clubs lists them", func(t *testing.T) {
		res := w.req("GET", "/v1/stores/list-shop/clubs", nil, "")
		assert.Equal(t, []string{"Poetry", "Staff picks (closed)", "Mysteries"}, names(t, res, "clubs"))
		c := res.JSON["clubs"].([]any)[1].(map[string]any)
		for _, f := range []string{"id", "name", "description", "isPublic", "memberCount", "storeId", "createdAt"} {
			assert.Contains(t, c, f, "the spec's field %s", f)
		}
		assert.Equal(t, false, c["isPublic"])
		assert.Equal(t, storeID, c["storeId"])
		assert.EqualValues(t, 1, c["memberCount"])
		assert.Nil(t, res.JSON["nextCursor"])
		assert.Equal(t, false, res.JSON["hasMore"])
		assert.Equal(t, names(t, res, "clubs"), names(t, w.req("GET", "/v1/stores/list-shop/clubs", nil, reader.Token), "clubs"), "the same with a token")
		assert.Equal(t, []string{"Poetry", "Mysteries"}, names(t, w.req("GET", "/v1/stores/list-shop/clubs?isPublic=true", nil, ""), "clubs"))
		assert.Equal(t, []string{"Staff picks (closed)"}, names(t, w.req("GET", "/v1/stores/LIST-SHOP/clubs?isPublic=false", nil, ""), "clubs"))
		assert.Equal(t, []string{"Elsewhere"}, names(t, w.req("GET", "/v1/stores/other-shop/clubs", nil, ""), "clubs"))
	})
	t.Run("the store's challenges, newest first", func(t *testing.T) {
		res := w.req("GET", "/v1/stores/list-shop/challenges", nil, "")
		assert.Equal(t, []string{"Summer reading", "Twelve books"}, names(t, res, "challenges"))
		c := res.JSON["challenges"].([]any)[0].(map[string]any)
		for _, f := range []string{"id", "name", "description", "goal", "participantCount", "storeId", "createdAt"} {
			assert.Contains(t, c, f, "the spec's field %s", f)
		}
		assert.Equal(t, storeID, c["storeId"])
		assert.EqualValues(t, 12, c["goal"])
		assert.EqualValues(t, 1, c["participantCount"])
		assert.Equal(t, false, res.JSON["hasMore"])
	})
	t.Run("pages neither skip nor repeat", func(t *testing.T) {
		for _, l := range []struct{ path, key string }{{"/v1/stores/list-shop/clubs", "clubs"}, {"/v1/stores/list-shop/challenges", "challenges"}} {
			var got []string
			path := l.path + "?limit=1"
			for range 5 {
				res := w.req("GET", path, nil, "")
				got = append(got, names(t, res, l.key)...)
				next, _ := res.JSON["nextCursor"].(string)
				if next == "" {
					break
				}
				path = l.path + "?limit=1&cursor=" + next
			}
			assert.Equal(t, names(t, w.req("GET", l.path, nil, ""), l.key), got, l.path)
		}
	})
	t.Run("bad queries are 400", func(t *testing.T) {
		res := w.req("GET", "/v1/stores/list-shop/clubs?limit=1", nil, "")
		cursor := res.JSON["nextCursor"].(string)
		for _, path := range []string{
			"/v1/stores/list-shop/clubs?isPublic=yes", "/v1/stores/list-shop/clubs?limit=0", "/v1/stores/list-shop/challenges?limit=101",
			"/v1/stores/list-shop/clubs?cursor=nonsense", "/v1/stores/other-shop/clubs?cursor=" + cursor,
			"/v1/stores/list-shop/clubs?isPublic=true&cursor=" + cursor, "/v1/stores/list-shop/challenges?cursor=" + cursor,
		} {
			testenv.AssertError(t, w.req("GET", path, nil, ""), http.StatusBadRequest, "ValidationError", "")
		}
	})
	t.Run("an unknown store is 404", func(t *testing.T) {
		for _, slug := range []string{"no-such-shop", "my", "Not a slug!"} {
			testenv.AssertError(t, w.req("GET", "/v1/stores/"+slug+"/clubs", nil, ""), http.StatusNotFound, "NotFound", "Store not found")
			testenv.AssertError(t, w.req("GET", "/v1/stores/"+slug+"/challenges", nil, ""), http.StatusNotFound, "NotFound", "Store not found")
		}
	})
	t.Run("a store without any is an empty list", func(t *testing.T) {
		owner3 := w.reader(t, "quiet_owner", users.TierBookstore)
		newStore(t, w.Env, owner3, storeBody("quiet-shop"))
		assert.Empty(t, names(t, w.req("GET", "/v1/stores/quiet-shop/clubs", nil, ""), "clubs"))
		assert.Empty(t, names(t, w.req("GET", "/v1/stores/quiet-shop/challenges", nil, ""), "challenges"))
	})
}

// directoryConsistent checks, through GET /clubs, that each club
// directory's total is the number of clubs it lists and that each club
// listed belongs there: no entry was left behind or counted twice.
func directoryConsistent(t *testing.T, w *community, storeID string) {
	t.Helper()
	for _, q := range []string{
		"", "isPublic=true", "isPublic=false", "scope=user", "scope=user&isPublic=true", "scope=user&isPublic=false",
		"scope=store", "scope=store&isPublic=true", "scope=store&isPublic=false",
		"storeId=" + storeID, "storeId=" + storeID + "&isPublic=true", "storeId=" + storeID + "&isPublic=false",
	} {
		res := w.req("GET", "/v1/clubs?limit=100&"+q, nil, "")
		require.Equal(t, http.StatusOK, res.Status, res.String())
		listed := res.JSON["clubs"].([]any)
		assert.EqualValues(t, len(listed), res.JSON["total"], "GET /clubs?%s: total is the number listed", q)
		for _, it := range listed {
			c := it.(map[string]any)
			switch {
			case q == "scope=user" || q == "scope=user&isPublic=true" || q == "scope=user&isPublic=false":
				assert.Nil(t, c["storeId"], "GET /clubs?%s lists %s", q, c["name"])
			case q != "" && q != "isPublic=true" && q != "isPublic=false":
				assert.NotNil(t, c["storeId"], "GET /clubs?%s lists %s", q, c["name"])
			}
		}
	}
}

// Deleting a store lets its clubs and challenges go (they stay, their
// hosts' own, in the readers' directories) and removes its follows:
// nothing is left pointing at the store.
func TestStores_DeleteLetsClubsAndChallengesGo(t *testing.T) {
	w := newCommunity(t)
	owner := w.reader(t, "gone_owner", users.TierBookstore)
	storeID := newStore(t, w.Env, owner, storeBody("gone-shop"))["id"].(string)
	clerk := w.reader(t, "gone_clerk", users.TierPremium)
	require.Equal(t, http.StatusCreated, w.req("POST", "/v1/stores/gone-shop/staff", map[string]any{"userId": clerk.ID}, owner.Token).Status)
	fan := w.reader(t, "gone_fan", users.TierFree)
	open := w.club(t, owner, "Open circle", storeID, true)
	closed := w.club(t, clerk, "Closed circle", storeID, false)
	challengeID := w.challenge(t, clerk, "Store challenge", storeID)
	require.Equal(t, http.StatusCreated, w.req("POST", "/v1/clubs/"+open+"/join", nil, fan.Token).Status)
	require.Equal(t, http.StatusOK, w.req("POST", "/v1/follows/stores/"+storeID, nil, fan.Token).Status)
	require.Equal(t, http.StatusOK, w.req("POST", "/v1/follows/stores/"+storeID, nil, clerk.Token).Status)
	userClubs := w.req("GET", "/v1/clubs?scope=user", nil, "").JSON["total"].(float64)

	res := w.req("DELETE", "/v1/stores/gone-shop", nil, owner.Token)
	require.Equal(t, http.StatusOK, res.Status, res.String())

	t.Run("the clubs stay, their hosts', without the store", func(t *testing.T) {
		for _, id := range []string{open, closed} {
			stored := w.Item(t, dynamo.ClubKey(id))
			require.NotNil(t, stored)
			assert.NotContains(t, stored, "storeId")
		}
		res := w.req("GET", "/v1/clubs/"+open, nil, fan.Token)
		require.Equal(t, http.StatusOK, res.Status, res.String())
		assert.Nil(t, res.JSON["storeId"])
		assert.Nil(t, res.JSON["store"])
		assert.Equal(t, owner.ID, res.JSON["hostId"])
		assert.EqualValues(t, 2, res.JSON["memberCount"], "its members stay")
		assert.Equal(t, true, res.JSON["isMember"])
		res = w.req("GET", "/v1/clubs?scope=user", nil, "")
		assert.EqualValues(t, userClubs+2, res.JSON["total"], "they are readers' clubs now")
		assert.EqualValues(t, 0, w.req("GET", "/v1/clubs?storeId="+storeID, nil, "").JSON["total"])
		for _, public := range []*bool{nil, new(true), new(false)} {
			assert.Nil(t, w.Item(t, dynamo.DirCountKey(dynamo.ClubDir(clubs.Filter{Scope: clubs.ScopeStore, StoreID: storeID, Public: public}))),
				"the store's directories are gone")
		}
		directoryConsistent(t, w, storeID)
	})
	t.Run("the challenge stays, its host's, without the store", func(t *testing.T) {
		res := w.req("GET", "/v1/challenges/"+challengeID, nil, "")
		require.Equal(t, http.StatusOK, res.Status, res.String())
		assert.Nil(t, res.JSON["storeId"])
		assert.Nil(t, res.JSON["store"])
		assert.Equal(t, clerk.ID, res.JSON["hostId"])
		assert.EqualValues(t, 0, w.req("GET", "/v1/challenges?storeId="+storeID, nil, "").JSON["total"])
		list := w.req("GET", "/v1/challenges", nil, "")
		assert.EqualValues(t, 1, list.JSON["total"])
		assert.Nil(t, list.JSON["challenges"].([]any)[0].(map[string]any)["storeId"])
		assert.Nil(t, w.Item(t, dynamo.DirCountKey(dynamo.ChallengeDir(storeID))))
	})
	t.Run("the follows are gone", func(t *testing.T) {
		for _, a := range []testenv.Account{fan, clerk} {
			assert.Nil(t, w.Item(t, dynamo.FollowKey(a.ID, "STORE", storeID)))
			res := w.req("GET", "/v1/follows/stores", nil, a.Token)
			require.Equal(t, http.StatusOK, res.Status, res.String())
			assert.Empty(t, res.JSON["items"])
		}
		testenv.AssertError(t, w.req("GET", "/v1/follows/stores/"+storeID, nil, fan.Token), http.StatusNotFound, "NotFound", "Store not found")
		testenv.AssertError(t, w.req("POST", "/v1/follows/stores/"+storeID, nil, fan.Token), http.StatusNotFound, "NotFound", "Store not found")
	})
	t.Run("its lists are 404, and nothing can be hosted for it", func(t *testing.T) {
		testenv.AssertError(t, w.req("GET", "/v1/stores/gone-shop/clubs", nil, ""), http.StatusNotFound, "NotFound", "Store not found")
		testenv.AssertError(t, w.req("GET", "/v1/stores/gone-shop/challenges", nil, ""), http.StatusNotFound, "NotFound", "Store not found")
		testenv.AssertError(t, w.req("POST", "/v1/clubs", map[string]any{"name": "Late", "storeId": storeID}, owner.Token), http.StatusNotFound, "NotFound", "Store not found")
	})
	t.Run("their hosts still manage them; the counts stay exact", func(t *testing.T) {
		res := w.req("PUT", "/v1/clubs/"+closed, map[string]any{"isPublic": true}, clerk.Token)
		require.Equal(t, http.StatusOK, res.Status, res.String())
		require.Equal(t, http.StatusOK, w.req("DELETE", "/v1/clubs/"+open, nil, owner.Token).Status)
		require.Equal(t, http.StatusOK, w.req("DELETE", "/v1/challenges/"+challengeID, nil, clerk.Token).Status)
		directoryConsistent(t, w, storeID)
		assert.EqualValues(t, userClubs+1, w.req("GET", "/v1/clubs?scope=user", nil, "").JSON["total"])
		assert.EqualValues(t, 0, w.req("GET", "/v1/challenges", nil, "").JSON["total"])
	})
}

// A store's deletion racing its hosts, who flip their clubs' visibility
// and delete a club and a challenge at the same moment: whichever
// transaction comes second finds the club or challenge changed and reads
// it again, so every directory's count stays the number of its entries.
func TestStores_DeleteRacingClubChanges(t *testing.T) {
	w := newCommunity(t)
	owner := w.reader(t, "race_owner", users.TierBookstore)
	storeID := newStore(t, w.Env, owner, storeBody("race-shop"))["id"].(string)
	var clubIDs []string
	for i := range 6 {
		clubIDs = append(clubIDs, w.club(t, owner, fmt.Sprintf("Club %d", i), storeID, i%2 == 0))
	}
	doomedClub := w.club(t, owner, "Doomed", storeID, true)
	doomedChallenge := w.challenge(t, owner, "Doomed challenge", storeID)
	kept := w.challenge(t, owner, "Kept challenge", storeID)

	var wg sync.WaitGroup
	var deleted int
	wg.Go(func() { deleted = w.Do("DELETE", "/v1/stores/race-shop", nil, owner.Token).Status })
	for i, id := range clubIDs {
		wg.Go(func() {
			for flip := range 3 {
				res := w.Do("PUT", "/v1/clubs/"+id, map[string]any{"isPublic": (i+flip)%2 == 1}, owner.Token)
				assert.Equal(t, http.StatusOK, res.Status, res.String())
			}
		})
	}
	wg.Go(func() {
		assert.Equal(t, http.StatusOK, w.Do("DELETE", "/v1/clubs/"+doomedClub, nil, owner.Token).Status)
	})
	wg.Go(func() {
		assert.Equal(t, http.StatusOK, w.Do("DELETE", "/v1/challenges/"+doomedChallenge, nil, owner.Token).Status)
	})
	wg.Wait()
	require.Equal(t, http.StatusOK, deleted)

	directoryConsistent(t, w, storeID)
	res := w.req("GET", "/v1/clubs?scope=user&limit=100", nil, "")
	assert.EqualValues(t, len(clubIDs), res.JSON["total"], "every club that was not deleted is a reader's club now")
	for _, id := range clubIDs {
		assert.NotContains(t, w.Item(t, dynamo.ClubKey(id)), "storeId")
	}
	list := w.req("GET", "/v1/challenges", nil, "")
	assert.Equal(t, []string{"Kept challenge"}, names(t, list, "challenges"))
	assert.EqualValues(t, 1, list.JSON["total"])
	assert.NotContains(t, w.Item(t, dynamo.ChallengeKey(kept)), "storeId")
}
