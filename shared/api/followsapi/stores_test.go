package followsapi_test

import (
	"fmt"
	"net/http"
	"strings"
	"sync"
	"testing"

	"github.com/bookplatform/backend/local/testenv"
	"github.com/bookplatform/backend/shared/dynamo"
	"github.com/bookplatform/backend/shared/users"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// openStore signs up a bookseller and opens a store with slug through the
// API; it returns the owner and the store's id.
func (w *world) openStore(t *testing.T, username, slug string) (testenv.Account, string) {
	t.Helper()
	owner := w.Signup(t, username)
	w.SetTier(t, owner, users.TierBookstore)
	res := w.Req("POST", "/v1/stores", map[string]any{
		"name": "Shop " + slug, "slug": slug, "addressLine1": "1005 W Burnside St", "city": "Portland", "state": "OR",
		"postalCode": "97209", "country": "US",
	}, owner.Token)
	require.Equal(t, http.StatusCreated, res.Status, res.String())
	return owner, res.JSON["id"].(string)
}

// storeFollowers reads a store's followerCount through its public profile
// and checks it is the stored one.
func (w *world) storeFollowers(t *testing.T, slug, storeID string) float64 {
	t.Helper()
	res := w.Req("GET", "/v1/stores/"+slug, nil, "")
	require.Equal(t, http.StatusOK, res.Status, res.String())
	assert.Equal(t, w.Item(t, dynamo.StoreKey(storeID))["followerCount"], res.JSON["followerCount"])
	return res.JSON["followerCount"].(float64)
}

func storeSlugs(t *testing.T, res *testenv.Response) []string {
	t.Helper()
	require.Equal(t, http.StatusOK, res.Status, res.String())
	var out []string
	for _, it := range res.JSON["items"].([]any) {
		out = append(out, it.(map[string]any)["slug"].(string))
	}
	return out
}

func TestFollows_Store(t *testing.T) {
	w := newWorld(t)
	owner, storeID := w.openStore(t, "shop_owner", "corner-shop")
	ann := w.Signup(t, "ann")
	path := "/v1/follows/stores/" + storeID

	t.Run("ann follows the store", func(t *testing.T) {
		res := w.Req("POST", path, nil, ann.Token)
		require.Equal(t, http.StatusOK, res.Status, res.String())
		assert.Equal(t, map[string]any{"success": true, "storeId": storeID, "isFollowing": true, "followerCount": float64(1)}, res.JSON)
		assert.EqualValues(t, 1, w.storeFollowers(t, "corner-shop", storeID))
		assert.NotNil(t, w.Item(t, dynamo.FollowKey(ann.ID, "STORE", storeID)))
		_, following := w.counts(t, ann)
		assert.Zero(t, following, "followingCount counts the readers followed, as GET /follows/following lists them")
	})
	t.Run("the state reads back", func(t *testing.T) {
		res := w.Req("GET", path, nil, ann.Token)
		require.Equal(t, http.StatusOK, res.Status, res.String())
		assert.Equal(t, map[string]any{"storeId": storeID, "isFollowing": true, "followerCount": float64(1)}, res.JSON)
		res = w.Req("GET", path, nil, owner.Token)
		require.Equal(t, http.StatusOK, res.Status, res.String())
		assert.Equal(t, false, res.JSON["isFollowing"])
	})
	t.Run("the caller's stores list it, the readers list does not", func(t *testing.T) {
		res := w.Req("GET", "/v1/follows/stores", nil, ann.Token)
		assert.Equal(t, []string{"corner-shop"}, storeSlugs(t, res))
		assert.Equal(t, map[string]any{"id": storeID, "name": "Shop corner-shop", "slug": "corner-shop"}, res.JSON["items"].([]any)[0])
		assert.Equal(t, false, res.JSON["hasMore"])
		assert.Empty(t, usernames(t, w.Req("GET", "/v1/follows/following", nil, ann.Token)))
	})
	t.Run("following twice is 400 and counts once", func(t *testing.T) {
		testenv.AssertError(t, w.Req("POST", path, nil, ann.Token), http.StatusBadRequest, "ValidationError", "Already following")
		testenv.AssertError(t, w.Req("POST", "/v1/follows/stores/"+strings.ToUpper(storeID), nil, ann.Token), http.StatusBadRequest, "ValidationError", "Already following")
		assert.EqualValues(t, 1, w.storeFollowers(t, "corner-shop", storeID))
	})
	t.Run("its owner may follow it too", func(t *testing.T) {
		res := w.Req("POST", path, nil, owner.Token)
		require.Equal(t, http.StatusOK, res.Status, res.String())
		assert.EqualValues(t, 2, res.JSON["followerCount"])
	})
	t.Run("ann unfollows", func(t *testing.T) {
		res := w.Req("DELETE", path, nil, ann.Token)
		require.Equal(t, http.StatusOK, res.Status, res.String())
		assert.Equal(t, map[string]any{"success": true, "storeId": storeID, "isFollowing": false, "followerCount": float64(1)}, res.JSON)
		assert.Nil(t, w.Item(t, dynamo.FollowKey(ann.ID, "STORE", storeID)))
		assert.Empty(t, storeSlugs(t, w.Req("GET", "/v1/follows/stores", nil, ann.Token)))
		testenv.AssertError(t, w.Req("DELETE", path, nil, ann.Token), http.StatusBadRequest, "ValidationError", "Not following")
		assert.EqualValues(t, 1, w.storeFollowers(t, "corner-shop", storeID))
	})
	t.Run("an unknown store is 404 and changes nothing", func(t *testing.T) {
		for _, m := range []string{"POST", "DELETE", "GET"} {
			for _, id := range []string{unknownID, "corner-shop", ann.ID} {
				testenv.AssertError(t, w.Req(m, "/v1/follows/stores/"+id, nil, ann.Token), http.StatusNotFound, "NotFound", "Store not found")
			}
		}
		assert.Nil(t, w.Item(t, dynamo.FollowKey(ann.ID, "STORE", unknownID)))
	})
	t.Run("without a token it is 401", func(t *testing.T) {
		testenv.AssertError(t, w.Req("POST", path, nil, ""), http.StatusUnauthorized, "Unauthorized", "")
		testenv.AssertError(t, w.Req("GET", "/v1/follows/stores", nil, ""), http.StatusUnauthorized, "Unauthorized", "")
	})
}

func TestFollows_StoresList(t *testing.T) {
	w := newWorld(t)
	ann := w.Signup(t, "ann")
	var slugs []string
	for i := range 3 {
		slug := fmt.Sprintf("shop-%d", i)
		_, id := w.openStore(t, fmt.Sprintf("owner_%d", i), slug)
		require.Equal(t, http.StatusOK, w.Req("POST", "/v1/follows/stores/"+id, nil, ann.Token).Status)
		slugs = append(slugs, slug)
	}
	newestFirst := []string{slugs[2], slugs[1], slugs[0]}

	t.Run("newest follow first, paged without skips or repeats", func(t *testing.T) {
		assert.Equal(t, newestFirst, storeSlugs(t, w.Req("GET", "/v1/follows/stores", nil, ann.Token)))
		var got []string
		for _, res := range w.ReadPages(t, "/v1/follows/stores?limit=2", ann.Token) {
			got = append(got, storeSlugs(t, res)...)
		}
		assert.Equal(t, newestFirst, got)
	})
	t.Run("a cursor of another list is refused", func(t *testing.T) {
		res := w.Req("GET", "/v1/follows/stores?limit=1", nil, ann.Token)
		cursor := res.JSON["nextCursor"].(string)
		testenv.AssertError(t, w.Req("GET", "/v1/follows/following?cursor="+cursor, nil, ann.Token), http.StatusBadRequest, "ValidationError", "Invalid cursor")
		bob := w.Signup(t, "bob")
		testenv.AssertError(t, w.Req("GET", "/v1/follows/stores?cursor="+cursor, nil, bob.Token), http.StatusBadRequest, "ValidationError", "Invalid cursor")
		testenv.AssertError(t, w.Req("GET", "/v1/follows/stores?limit=101", nil, ann.Token), http.StatusBadRequest, "ValidationError", "")
	})
}

// Many readers follow and unfollow one store at once, some tapping twice:
// the store's followerCount is the number of follows stored, because each
// follow and the count change in one transaction.
func TestFollows_StoreCountUnderConcurrency(t *testing.T) {
	w := newWorld(t)
	_, storeID := w.openStore(t, "busy_owner", "busy-shop")
	const n = 12
	fans := make([]testenv.Account, n)
	for i := range fans {
		fans[i] = w.Signup(t, fmt.Sprintf("fan_%02d", i))
	}
	// Fans 0-3 follow beforehand and unfollow in the rush.
	for _, f := range fans[:4] {
		require.Equal(t, http.StatusOK, w.Req("POST", "/v1/follows/stores/"+storeID, nil, f.Token).Status)
	}
	var wg sync.WaitGroup
	statuses := make([]int, n)
	double := make([]int, 2)
	for i, f := range fans {
		wg.Go(func() {
			method := "POST"
			if i < 4 {
				method = "DELETE"
			}
			statuses[i] = w.Do(method, "/v1/follows/stores/"+storeID, nil, f.Token).Status
		})
	}
	for i := range double {
		wg.Go(func() { double[i] = w.Do("POST", "/v1/follows/stores/"+storeID, nil, fans[n-1].Token).Status })
	}
	wg.Wait()

	// The last fan's three taps made one follow: two answers are 400.
	ok := 0
	for _, s := range append(statuses, double...) {
		if s == http.StatusOK {
			ok++
		} else {
			assert.Equal(t, http.StatusBadRequest, s)
		}
	}
	assert.Equal(t, n, ok, "every fan's change once")
	assert.EqualValues(t, n-4, w.storeFollowers(t, "busy-shop", storeID))
	stored := 0
	for _, f := range fans {
		if w.Item(t, dynamo.FollowKey(f.ID, "STORE", storeID)) != nil {
			stored++
		}
	}
	assert.Equal(t, n-4, stored)
}

// Following a store counts against follow_user with following readers:
// one budget for every follow.
func TestFollows_StoreRateLimit(t *testing.T) {
	w := newWorld(t, testenv.WithRateLimits())
	_, storeID := w.openStore(t, "rl_owner", "rl-shop")
	ann := w.Signup(t, "ann")
	bob := w.Signup(t, "bob")
	res := w.Do("POST", "/v1/follows/users/"+bob.ID, nil, ann.Token)
	require.Equal(t, http.StatusOK, res.Status, res.String())
	assert.Equal(t, "29", res.Header.Get("X-RateLimit-Remaining"))
	res = w.Do("POST", "/v1/follows/stores/"+storeID, nil, ann.Token)
	require.Equal(t, http.StatusOK, res.Status, res.String())
	assert.Equal(t, "30", res.Header.Get("X-RateLimit-Limit"))
	assert.Equal(t, "28", res.Header.Get("X-RateLimit-Remaining"))
	res = w.Do("DELETE", "/v1/follows/stores/"+storeID, nil, ann.Token)
	require.Equal(t, http.StatusOK, res.Status, res.String())
	assert.Equal(t, "27", res.Header.Get("X-RateLimit-Remaining"))
}
