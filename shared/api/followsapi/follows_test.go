package followsapi_test

import (
	"fmt"
	"net/http"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/bookplatform/backend/local/testenv"
	"github.com/bookplatform/backend/shared/dynamo"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func TestMain(m *testing.M) { testenv.Main(m) }

// world is a paced environment: follows have distinct, ordered times.
type world struct{ *testenv.Paced }

func newWorld(t *testing.T, opts ...testenv.Option) *world {
	t.Helper()
	return &world{testenv.NewPaced(t, opts...)}
}

// counts reads a profile's followerCount and followingCount through the
// API, and checks they are the stored ones.
func (w *world) counts(t *testing.T, a testenv.Account) (followers, following float64) {
	t.Helper()
	res := w.Req("GET", "/v1/users/username/"+a.Username, nil, "")
	require.Equal(t, http.StatusOK, res.Status, res.String())
	stored := w.Item(t, dynamo.UserKey(a.ID))
	assert.Equal(t, stored["followerCount"], res.JSON["followerCount"])
	assert.Equal(t, stored["followingCount"], res.JSON["followingCount"])
	return res.JSON["followerCount"].(float64), res.JSON["followingCount"].(float64)
}

func usernames(t *testing.T, res *testenv.Response) []string {
	t.Helper()
	require.Equal(t, http.StatusOK, res.Status, res.String())
	var out []string
	for _, it := range res.JSON["items"].([]any) {
		out = append(out, it.(map[string]any)["username"].(string))
	}
	return out
}

const unknownID = "00000000-0000-4000-8000-000000000000"

func TestFollows_FollowAndUnfollow(t *testing.T) {
	w := newWorld(t)
	ann := w.Signup(t, "ann")
	bob := w.Signup(t, "bob")
	path := "/v1/follows/users/" + bob.ID

	t.Run("a new account has no followers", func(t *testing.T) {
		f, g := w.counts(t, bob)
		assert.Zero(t, f)
		assert.Zero(t, g)
	})
	t.Run("ann follows bob", func(t *testing.T) {
		res := w.Req("POST", path, nil, ann.Token)
		require.Equal(t, http.StatusOK, res.Status, res.String())
		assert.Equal(t, map[string]any{"success": true, "userId": bob.ID, "isFollowing": true, "followerCount": float64(1)}, res.JSON)
		f, _ := w.counts(t, bob)
		assert.EqualValues(t, 1, f)
		_, g := w.counts(t, ann)
		assert.EqualValues(t, 1, g)
		assert.NotNil(t, w.Item(t, dynamo.FollowKey(ann.ID, "USER", bob.ID)))
	})
	t.Run("the state reads back", func(t *testing.T) {
		res := w.Req("GET", path, nil, ann.Token)
		require.Equal(t, http.StatusOK, res.Status, res.String())
		assert.Equal(t, map[string]any{"userId": bob.ID, "isFollowing": true, "followerCount": float64(1)}, res.JSON)
		res = w.Req("GET", "/v1/follows/users/"+ann.ID, nil, bob.Token)
		require.Equal(t, http.StatusOK, res.Status, res.String())
		assert.Equal(t, false, res.JSON["isFollowing"])
	})
	t.Run("following twice is 400 and counts once", func(t *testing.T) {
		testenv.AssertError(t, w.Req("POST", path, nil, ann.Token), http.StatusBadRequest, "ValidationError", "Already following")
		f, _ := w.counts(t, bob)
		assert.EqualValues(t, 1, f)
	})
	t.Run("an upper-case id is the same reader", func(t *testing.T) {
		testenv.AssertError(t, w.Req("POST", "/v1/follows/users/"+strings.ToUpper(bob.ID), nil, ann.Token), http.StatusBadRequest, "ValidationError", "Already following")
	})
	t.Run("ann unfollows bob", func(t *testing.T) {
		res := w.Req("DELETE", path, nil, ann.Token)
		require.Equal(t, http.StatusOK, res.Status, res.String())
		assert.Equal(t, map[string]any{"success": true, "userId": bob.ID, "isFollowing": false, "followerCount": float64(0)}, res.JSON)
		f, _ := w.counts(t, bob)
		assert.Zero(t, f)
		_, g := w.counts(t, ann)
		assert.Zero(t, g)
		assert.Nil(t, w.Item(t, dynamo.FollowKey(ann.ID, "USER", bob.ID)))
	})
	t.Run("unfollowing when not following is 400 and counts nothing", func(t *testing.T) {
		testenv.AssertError(t, w.Req("DELETE", path, nil, ann.Token), http.StatusBadRequest, "ValidationError", "Not following")
		f, _ := w.counts(t, bob)
		assert.Zero(t, f)
	})
	t.Run("following oneself is 400", func(t *testing.T) {
		testenv.AssertError(t, w.Req("POST", "/v1/follows/users/"+ann.ID, nil, ann.Token), http.StatusBadRequest, "ValidationError", "You cannot follow yourself")
		testenv.AssertError(t, w.Req("DELETE", "/v1/follows/users/"+ann.ID, nil, ann.Token), http.StatusBadRequest, "ValidationError", "You cannot follow yourself")
		_, g := w.counts(t, ann)
		assert.Zero(t, g)
	})
	t.Run("an unknown reader is 404", func(t *testing.T) {
		for _, m := range []string{"POST", "DELETE", "GET"} {
			testenv.AssertError(t, w.Req(m, "/v1/follows/users/"+unknownID, nil, ann.Token), http.StatusNotFound, "NotFound", "User not found")
			testenv.AssertError(t, w.Req(m, "/v1/follows/users/bob", nil, ann.Token), http.StatusNotFound, "NotFound", "User not found")
		}
		_, g := w.counts(t, ann)
		assert.Zero(t, g, "a refused follow counts nothing")
	})
	t.Run("without a token it is 401", func(t *testing.T) {
		testenv.AssertError(t, w.Req("POST", path, nil, ""), http.StatusUnauthorized, "Unauthorized", "")
		testenv.AssertError(t, w.Req("GET", "/v1/follows/followers", nil, ""), http.StatusUnauthorized, "Unauthorized", "")
	})
}

func TestFollows_Lists(t *testing.T) {
	w := newWorld(t)
	star := w.Signup(t, "star")
	var fans []testenv.Account
	for i := range 5 {
		fans = append(fans, w.Signup(t, fmt.Sprintf("fan_%d", i)))
	}
	for _, f := range fans {
		require.Equal(t, http.StatusOK, w.Req("POST", "/v1/follows/users/"+star.ID, nil, f.Token).Status)
	}
	for _, f := range []testenv.Account{fans[3], fans[1]} {
		require.Equal(t, http.StatusOK, w.Req("POST", "/v1/follows/users/"+f.ID, nil, star.Token).Status)
	}

	t.Run("followers, newest follow first, as UserBriefs", func(t *testing.T) {
		res := w.Req("GET", "/v1/follows/followers", nil, star.Token)
		assert.Equal(t, []string{"fan_4", "fan_3", "fan_2", "fan_1", "fan_0"}, usernames(t, res))
		assert.Equal(t, map[string]any{"id": fans[4].ID, "username": "fan_4", "displayName": "Reader fan_4", "avatarUrl": nil},
			res.JSON["items"].([]any)[0])
		assert.Nil(t, res.JSON["nextCursor"])
		assert.Equal(t, false, res.JSON["hasMore"])
	})
	t.Run("following, newest follow first", func(t *testing.T) {
		assert.Equal(t, []string{"fan_1", "fan_3"}, usernames(t, w.Req("GET", "/v1/follows/following", nil, star.Token)))
		assert.Equal(t, []string{"star"}, usernames(t, w.Req("GET", "/v1/follows/following", nil, fans[0].Token)))
		assert.Empty(t, usernames(t, w.Req("GET", "/v1/follows/followers", nil, fans[0].Token)))
	})
	t.Run("pages neither skip nor repeat", func(t *testing.T) {
		var got []string
		for _, res := range w.ReadPages(t, "/v1/follows/followers?limit=2", star.Token) {
			got = append(got, usernames(t, res)...)
		}
		assert.Equal(t, []string{"fan_4", "fan_3", "fan_2", "fan_1", "fan_0"}, got)
	})
	t.Run("an unfollow leaves the lists", func(t *testing.T) {
		require.Equal(t, http.StatusOK, w.Req("DELETE", "/v1/follows/users/"+star.ID, nil, fans[2].Token).Status)
		assert.Equal(t, []string{"fan_4", "fan_3", "fan_1", "fan_0"}, usernames(t, w.Req("GET", "/v1/follows/followers", nil, star.Token)))
	})
	t.Run("a cursor of one list is refused by another", func(t *testing.T) {
		res := w.Req("GET", "/v1/follows/followers?limit=1", nil, star.Token)
		cursor := res.JSON["nextCursor"].(string)
		testenv.AssertError(t, w.Req("GET", "/v1/follows/following?cursor="+cursor, nil, star.Token), http.StatusBadRequest, "ValidationError", "Invalid cursor")
		testenv.AssertError(t, w.Req("GET", "/v1/follows/followers?cursor="+cursor, nil, fans[0].Token), http.StatusBadRequest, "ValidationError", "Invalid cursor")
		testenv.AssertError(t, w.Req("GET", "/v1/follows/followers?limit=0", nil, star.Token), http.StatusBadRequest, "ValidationError", "")
	})
}

// Follows and unfollows of one reader by many, at once, and the reader
// following some of them back at the same moment: every counter ends
// exact, because each follow and its two counters are one transaction.
func TestFollows_CountsUnderConcurrency(t *testing.T) {
	w := newWorld(t)
	star := w.Signup(t, "star")
	const n = 10
	fans := make([]testenv.Account, n)
	for i := range fans {
		fans[i] = w.Signup(t, fmt.Sprintf("fan_%02d", i))
	}
	// Fans 0-3 follow the star beforehand; they unfollow in the rush.
	for _, f := range fans[:4] {
		require.Equal(t, http.StatusOK, w.Req("POST", "/v1/follows/users/"+star.ID, nil, f.Token).Status)
	}

	var wg sync.WaitGroup
	statuses := make([]int, n)
	back := make([]int, 5)
	for i, f := range fans {
		wg.Go(func() {
			method := "POST"
			if i < 4 {
				method = "DELETE"
			}
			statuses[i] = w.Do(method, "/v1/follows/users/"+star.ID, nil, f.Token).Status
		})
	}
	for i := range back {
		wg.Go(func() { back[i] = w.Do("POST", "/v1/follows/users/"+fans[2*i].ID, nil, star.Token).Status })
	}
	// One fan taps follow twice at once: one follow.
	double := make([]int, 2)
	late := w.Signup(t, "double_tap")
	for i := range double {
		wg.Go(func() { double[i] = w.Do("POST", "/v1/follows/users/"+star.ID, nil, late.Token).Status })
	}
	wg.Wait()

	for i, s := range append(statuses, back...) {
		assert.Equal(t, http.StatusOK, s, "request %d", i)
	}
	assert.ElementsMatch(t, []int{http.StatusOK, http.StatusBadRequest}, double)

	followers, following := w.counts(t, star)
	assert.EqualValues(t, n-4+1, followers, "six fans and the double tap")
	assert.EqualValues(t, 5, following)
	listed := usernames(t, w.Req("GET", "/v1/follows/followers?limit=100", nil, star.Token))
	assert.Len(t, listed, n-4+1)
	for i, f := range fans {
		fFollowers, fFollowing := w.counts(t, f)
		assert.EqualValues(t, map[bool]int{true: 1}[i%2 == 0 && i < 10], fFollowers, f.Username)
		assert.EqualValues(t, map[bool]int{true: 1}[i >= 4], fFollowing, f.Username)
	}
}

func TestFollows_RateLimit(t *testing.T) {
	w := newWorld(t, testenv.WithRateLimits())
	ann := w.Signup(t, "ann")
	bob := w.Signup(t, "bob")
	path := "/v1/follows/users/" + bob.ID
	// follow_user allows 30 an hour; following and unfollowing both count.
	for i := range 30 {
		method := "POST"
		if i%2 == 1 {
			method = "DELETE"
		}
		res := w.Do(method, path, nil, ann.Token)
		require.Equal(t, http.StatusOK, res.Status, "request %d: %s", i, res)
	}
	res := w.Do("POST", path, nil, ann.Token)
	testenv.AssertError(t, res, http.StatusTooManyRequests, "TooManyRequests", "")
	assert.Equal(t, "follow_user", testenv.ErrorOf(t, res)["details"].(map[string]any)["action"])
	f, _ := w.counts(t, bob)
	assert.Zero(t, f, "the refused follow changed nothing")
	t.Run("a refused follow (400) gives its place back", func(t *testing.T) {
		w.Clock.Advance(time.Hour)
		require.Equal(t, http.StatusOK, w.Do("POST", path, nil, ann.Token).Status)
		for range 5 {
			testenv.AssertError(t, w.Do("POST", path, nil, ann.Token), http.StatusBadRequest, "ValidationError", "Already following")
		}
		res := w.Do("DELETE", path, nil, ann.Token)
		require.Equal(t, http.StatusOK, res.Status, res.String())
		assert.Equal(t, "30", res.Header.Get("X-RateLimit-Limit"))
		assert.Equal(t, "28", res.Header.Get("X-RateLimit-Remaining"), "the follow and this unfollow; not the five refusals")
	})
}

// A retried follow (its answer lost) replays the first 200 rather than
// meeting its own follow as "Already following".
func TestFollows_RetriedFollowReplays(t *testing.T) {
	w := newWorld(t)
	ann := w.Signup(t, "ann")
	bob := w.Signup(t, "bob")
	h := map[string]string{"Authorization": "Bearer " + ann.Token, "Idempotency-Key": "follow-once"}
	first := w.DoHeaders("POST", "/v1/follows/users/"+bob.ID, nil, h)
	require.Equal(t, http.StatusOK, first.Status, first.String())
	again := w.DoHeaders("POST", "/v1/follows/users/"+bob.ID, nil, h)
	require.Equal(t, http.StatusOK, again.Status, again.String())
	assert.Equal(t, "true", again.Header.Get("Idempotent-Replayed"))
	assert.JSONEq(t, string(first.Body), string(again.Body))
	f, _ := w.counts(t, bob)
	assert.EqualValues(t, 1, f)
}
