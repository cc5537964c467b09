package storesapi_test

import (
	"bytes"
	"encoding/json"
	"fmt"
	"log/slog"
	"math"
	"net/http"
	"sort"
	"sync"
	"testing"
	"time"

	"github.com/bookplatform/backend/local/testenv"
	"github.com/bookplatform/backend/shared/dynamo"
	"github.com/bookplatform/backend/shared/geo"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// at is the point miles from p on a bearing (degrees).
func at(p geo.Point, miles, bearing float64) geo.Point {
	const r = 3958.7613
	rad := math.Pi / 180
	ang, b := miles/r, bearing*rad
	lat1, lng1 := p.Lat*rad, p.Lng*rad
	lat2 := math.Asin(math.Sin(lat1)*math.Cos(ang) + math.Cos(lat1)*math.Sin(ang)*math.Cos(b))
	lng2 := lng1 + math.Atan2(math.Sin(b)*math.Sin(ang)*math.Cos(lat1), math.Cos(ang)-math.Sin(lat1)*math.Sin(lat2))
	return geo.Point{Lat: lat2 / rad, Lng: lng2 / rad}
}

func TestStores_List(t *testing.T) {
	env := testenv.New(t)
	center := geo.Point{Lat: 45.5231, Lng: -122.6765}
	// name → miles from center; bearings spread around the compass so
	// several index cells and partitions are involved.
	placed := []struct {
		slug  string
		miles float64
	}{
		{"near-one", 0.4}, {"two-miles", 2}, {"five-miles", 5}, {"ten-miles", 10}, {"twenty-miles", 20},
		{"almost-25", 24.8}, {"just-over-25", 25.6}, {"forty-miles", 40}, {"ninety-miles", 90},
	}
	for i, p := range placed {
		owner := bookseller(t, env, fmt.Sprintf("geo_owner_%d", i))
		pt := at(center, p.miles, float64(i)*47)
		b := storeBody(p.slug)
		b["name"] = fmt.Sprintf("Shop %c", 'Z'-i) // names sort in the reverse order of distance
		b["latitude"], b["longitude"] = pt.Lat, pt.Lng
		newStore(t, env, owner, b)
	}
	paris := bookseller(t, env, "geo_paris")
	pb := storeBody("far-away")
	pb["country"], pb["postalCode"], pb["city"], pb["name"] = "FR", "75005", "Paris", "Aaa Paris"
	delete(pb, "state")
	newStore(t, env, paris, pb) // no coordinates: listed by name only

	query := fmt.Sprintf("/v1/stores?latitude=%f&longitude=%f", center.Lat, center.Lng)
	res := env.Do("GET", query, nil, "")
	require.Equal(t, http.StatusOK, res.Status, "%s", res)
	assert.EqualValues(t, 6, res.JSON["total"], "within the default 25 miles")
	assert.EqualValues(t, 20, res.JSON["limit"])
	assert.EqualValues(t, 0, res.JSON["offset"])
	var slugs []string
	var last float64
	for _, s := range res.JSON["stores"].([]any) {
		st := s.(map[string]any)
		slugs = append(slugs, st["slug"].(string))
		d := st["distance"].(float64)
		assert.GreaterOrEqual(t, d, last, "nearest first")
		last = d
		assert.NotContains(t, st, "taxRate")
	}
	assert.Equal(t, []string{"near-one", "two-miles", "five-miles", "ten-miles", "twenty-miles", "almost-25"}, slugs)
	first := res.JSON["stores"].([]any)[0].(map[string]any)
	assert.InDelta(t, 0.4, first["distance"], 0.05, "miles")

	t.Run("radius cuts the list", func(t *testing.T) {
		res := env.Do("GET", query+"&radius=7.5", nil, "")
		assert.EqualValues(t, 3, res.JSON["total"])
		res = env.Do("GET", query+"&radius=50", nil, "")
		assert.EqualValues(t, 8, res.JSON["total"])
		res = env.Do("GET", query+"&radius=100", nil, "")
		assert.EqualValues(t, 9, res.JSON["total"], "a wide radius reads whole partitions")
	})
	t.Run("offset pages neither skip nor repeat", func(t *testing.T) {
		var seen []string
		for offset := 0; ; offset += 2 {
			res := env.Do("GET", fmt.Sprintf("%s&radius=100&limit=2&offset=%d", query, offset), nil, "")
			require.Equal(t, http.StatusOK, res.Status, "%s", res)
			assert.EqualValues(t, 9, res.JSON["total"])
			page := res.JSON["stores"].([]any)
			if len(page) == 0 {
				break
			}
			for _, s := range page {
				seen = append(seen, s.(map[string]any)["slug"].(string))
			}
		}
		require.Len(t, seen, 9)
		assert.Equal(t, "ninety-miles", seen[8])
		assert.Equal(t, "near-one", seen[0])
	})
	t.Run("without coordinates: every store by name, no distance", func(t *testing.T) {
		res := env.Do("GET", "/v1/stores?limit=4", nil, "")
		require.Equal(t, http.StatusOK, res.Status, "%s", res)
		assert.EqualValues(t, 10, res.JSON["total"])
		var names []string
		for _, s := range res.JSON["stores"].([]any) {
			names = append(names, s.(map[string]any)["name"].(string))
			assert.NotContains(t, s, "distance")
		}
		assert.True(t, sort.StringsAreSorted(names), "%v", names)
		assert.Equal(t, "Aaa Paris", names[0], "a store without coordinates is still listed")
		all := env.Do("GET", "/v1/stores?limit=4&offset=8", nil, "")
		assert.Len(t, all.JSON["stores"], 2)
		assert.Empty(t, env.Do("GET", "/v1/stores?offset=50", nil, "").JSON["stores"])
	})
	t.Run("a search far from every store is empty, not an error", func(t *testing.T) {
		res := env.Do("GET", "/v1/stores?latitude=-33.86&longitude=151.21", nil, "")
		require.Equal(t, http.StatusOK, res.Status)
		assert.EqualValues(t, 0, res.JSON["total"])
		assert.Equal(t, []any{}, res.JSON["stores"])
	})
	t.Run("a move and a deletion show at once, in the index cells too", func(t *testing.T) {
		// forty-miles's owner moves it next to the centre (another cell).
		owner := env.Login(t, testenv.Account{Username: "geo_owner_7", Email: ownerEmail(t, env, "forty-miles")})
		res := env.Do("PUT", "/v1/stores/forty-miles", map[string]any{"latitude": center.Lat + 0.001, "longitude": center.Lng}, owner.Token)
		require.Equal(t, http.StatusOK, res.Status, "%s", res)
		res = env.Do("GET", query, nil, "")
		assert.EqualValues(t, 7, res.JSON["total"])
		assert.Equal(t, "forty-miles", res.JSON["stores"].([]any)[0].(map[string]any)["slug"])
		assert.EqualValues(t, 8, env.Do("GET", query+"&radius=50", nil, "").JSON["total"], "counted once: at its new place, not also at its old one")
		require.Equal(t, http.StatusOK, env.Do("DELETE", "/v1/stores/forty-miles", nil, owner.Token).Status)
		assert.EqualValues(t, 6, env.Do("GET", query, nil, "").JSON["total"])
		assert.EqualValues(t, 9, env.Do("GET", "/v1/stores", nil, "").JSON["total"])
	})
	t.Run("bad queries are 400", func(t *testing.T) {
		for _, q := range []string{
			"latitude=45", "longitude=-122", "radius=10", "latitude=91&longitude=0", "latitude=45&longitude=-181",
			"latitude=abc&longitude=1", "latitude=45&longitude=-122&radius=0", "latitude=45&longitude=-122&radius=12451",
			"latitude=45&longitude=-122&radius=1e9", "latitude=45&longitude=-122&radius=Inf",
			"latitude=45&longitude=-122&radius=-5", "latitude=NaN&longitude=1", "limit=0", "limit=101", "offset=-1",
		} {
			res := env.Do("GET", "/v1/stores?"+q, nil, "")
			testenv.AssertError(t, res, http.StatusBadRequest, "ValidationError", "")
		}
	})
}

// ownerEmail is the email of the owner of the store with slug.
func ownerEmail(t *testing.T, env *testenv.Env, slug string) string {
	t.Helper()
	owner := env.Do("GET", "/v1/stores/"+slug, nil, "").JSON["ownerUserId"].(string)
	return env.Item(t, dynamo.UserKey(owner))["email"].(string)
}

// accessLog keeps the router's access records (the app's "request" log
// lines) by request id: what a request cost in DynamoDB calls.
type accessLog struct {
	mu   sync.Mutex
	recs map[string]map[string]any
}

func (l *accessLog) Write(p []byte) (int, error) {
	for _, line := range bytes.Split(p, []byte("\n")) {
		var rec map[string]any
		if json.Unmarshal(line, &rec) != nil || rec["msg"] != "request" {
			continue
		}
		if id, _ := rec["requestId"].(string); id != "" {
			l.mu.Lock()
			l.recs[id] = rec
			l.mu.Unlock()
		}
	}
	return len(p), nil
}

// calls is the number of DynamoDB calls the request of res made. The
// record is written as the handler returns, a moment after the answer.
func (l *accessLog) calls(t *testing.T, res *testenv.Response) int {
	t.Helper()
	id := res.Header.Get("X-Request-Id")
	for deadline := time.Now().Add(2 * time.Second); time.Now().Before(deadline); time.Sleep(5 * time.Millisecond) {
		l.mu.Lock()
		rec, ok := l.recs[id]
		l.mu.Unlock()
		if ok {
			n, _ := rec["dynamoCalls"].(float64)
			return int(n)
		}
	}
	t.Fatalf("no access record for request %q", id)
	return 0
}

// A search reads a bounded number of index keys wherever it is centred
// and however wide it is: near a pole, where a 100-mile circle spans
// every longitude (134 BatchGetItem calls once), across the antimeridian,
// between the two demo cities 680 miles apart, and over the whole globe.
// Totals stay exact and the order is by distance.
func TestStores_ListFarAndWide(t *testing.T) {
	logs := &accessLog{recs: map[string]map[string]any{}}
	env := testenv.New(t, testenv.WithLogger(slog.New(slog.NewJSONHandler(logs, nil))))
	places := map[string]geo.Point{
		"seattle-books": {Lat: 47.6145, Lng: -122.3190}, "harbor-books": {Lat: 37.7997, Lng: -122.4077},
		"portland-books": {Lat: 45.5231, Lng: -122.6765}, "pole-books": {Lat: 89.5, Lng: 10}, "far-side-books": {Lat: 88.7, Lng: -170}, "arctic-books": {Lat: 88.9, Lng: 30},
		"svalbard-books": {Lat: 78.2232, Lng: 15.6267}, "fiji-books": {Lat: -18.1416, Lng: 178.4419},
		"samoa-books": {Lat: -13.8333, Lng: -171.7667}, "tonga-books": {Lat: -21.1394, Lng: -175.2049},
	}
	i := 0
	for slug, p := range places {
		owner := bookseller(t, env, fmt.Sprintf("wide_owner_%d", i))
		b := storeBody(slug)
		b["latitude"], b["longitude"] = p.Lat, p.Lng
		newStore(t, env, owner, b)
		i++
	}
	cases := []struct {
		name      string
		center    geo.Point
		radius    float64
		mostCalls int
	}{
		{"near the north pole, 100 miles", geo.Point{Lat: 89.4, Lng: 0}, 100, geo.MaxRanges + 1},
		{"near the north pole, 25 miles", geo.Point{Lat: 89.4, Lng: 0}, 25, geo.MaxRanges + 1},
		{"latitude 88, 100 miles", geo.Point{Lat: 88, Lng: 0}, 100, geo.MaxRanges + 1},
		{"the demo stores: Seattle to San Francisco", geo.Point{Lat: 47.6145, Lng: -122.3190}, 700, geo.MaxRanges + 1},
		{"across the antimeridian", geo.Point{Lat: -18.1416, Lng: 178.4419}, 800, geo.MaxRanges + 1},
		{"the whole globe", geo.Point{Lat: 47.6145, Lng: -122.3190}, 12450, geo.Parts + 1},
		{"Portland, 100 miles: cells, one key each", geo.Point{Lat: 45.5231, Lng: -122.6765}, 100, geo.MaxCells/100 + 1},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			type near struct {
				slug string
				d    float64
			}
			var want []near
			for slug, p := range places {
				if d := geo.Miles(c.center, p); d <= c.radius {
					want = append(want, near{slug, d})
				}
			}
			sort.Slice(want, func(i, j int) bool { return want[i].d < want[j].d })
			require.NotEmpty(t, want, "the case finds something")
			res := env.Do("GET", fmt.Sprintf("/v1/stores?latitude=%v&longitude=%v&radius=%v", c.center.Lat, c.center.Lng, c.radius), nil, "")
			require.Equal(t, http.StatusOK, res.Status, "%s", res)
			assert.EqualValues(t, len(want), res.JSON["total"])
			var got []string
			for _, s := range res.JSON["stores"].([]any) {
				got = append(got, s.(map[string]any)["slug"].(string))
			}
			var wantSlugs []string
			for _, w := range want {
				wantSlugs = append(wantSlugs, w.slug)
			}
			assert.Equal(t, wantSlugs, got, "nearest first")
			assert.LessOrEqual(t, logs.calls(t, res), c.mostCalls, "DynamoDB calls: the index reads and the page's stores")
		})
	}
	t.Run("Seattle to San Francisco, as the demo stores are", func(t *testing.T) {
		res := env.Do("GET", "/v1/stores?latitude=47.6145&longitude=-122.3190&radius=700", nil, "")
		require.Equal(t, http.StatusOK, res.Status, "%s", res)
		last := res.JSON["stores"].([]any)[2].(map[string]any)
		assert.Equal(t, "harbor-books", last["slug"])
		assert.InDelta(t, 680, last["distance"], 5)
	})
	t.Run("offset pages of a wide search neither skip nor repeat", func(t *testing.T) {
		var seen []string
		for offset := 0; offset < 20; offset += 2 {
			res := env.Do("GET", fmt.Sprintf("/v1/stores?latitude=0&longitude=0&radius=12450&limit=2&offset=%d", offset), nil, "")
			require.Equal(t, http.StatusOK, res.Status, "%s", res)
			assert.EqualValues(t, len(places), res.JSON["total"])
			for _, s := range res.JSON["stores"].([]any) {
				seen = append(seen, s.(map[string]any)["slug"].(string))
			}
		}
		assert.Len(t, seen, len(places))
		assert.ElementsMatch(t, seen, keys(places))
	})
	t.Run("a move shows in a wide search, once", func(t *testing.T) {
		owner := env.Login(t, testenv.Account{Email: ownerEmail(t, env, "svalbard-books")})
		res := env.Do("PUT", "/v1/stores/svalbard-books", map[string]any{"latitude": 47.62, "longitude": -122.35}, owner.Token)
		require.Equal(t, http.StatusOK, res.Status, "%s", res)
		res = env.Do("GET", "/v1/stores?latitude=47.6145&longitude=-122.3190&radius=700", nil, "")
		assert.EqualValues(t, 4, res.JSON["total"], "Seattle, Portland, San Francisco and the one that moved")
		res = env.Do("GET", "/v1/stores?latitude=78.2232&longitude=15.6267&radius=500", nil, "")
		assert.EqualValues(t, 0, res.JSON["total"], "gone from its old place")
		assert.EqualValues(t, len(places), env.Do("GET", "/v1/stores?latitude=0&longitude=0&radius=12450", nil, "").JSON["total"])
	})
	t.Run("a deleted store leaves the cells and the position list", func(t *testing.T) {
		id := env.Do("GET", "/v1/stores/pole-books", nil, "").JSON["id"].(string)
		key := dynamo.StorePositionKey(places["pole-books"], id)
		require.NotNil(t, env.Item(t, key))
		owner := env.Login(t, testenv.Account{Email: ownerEmail(t, env, "pole-books")})
		require.Equal(t, http.StatusOK, env.Do("DELETE", "/v1/stores/pole-books", nil, owner.Token).Status)
		assert.Nil(t, env.Item(t, key))
		assert.EqualValues(t, len(places)-1, env.Do("GET", "/v1/stores?latitude=0&longitude=0&radius=12450", nil, "").JSON["total"], "ranges")
		near := 0
		for slug, p := range places {
			if slug != "pole-books" && geo.Miles(geo.Point{Lat: 89.4, Lng: 0}, p) <= 100 {
				near++
			}
		}
		require.NotZero(t, near)
		assert.EqualValues(t, near, env.Do("GET", "/v1/stores?latitude=89.4&longitude=0&radius=100", nil, "").JSON["total"], "ranges near the pole")
		assert.EqualValues(t, 0, env.Do("GET", "/v1/stores?latitude=89.5&longitude=10&radius=1", nil, "").JSON["total"], "cells")
	})
}

func keys[V any](m map[string]V) []string {
	out := make([]string, 0, len(m))
	for k := range m {
		out = append(out, k)
	}
	return out
}

// The directory by name keeps its count in an item changed in the
// transactions that add and remove listings: exact under parallel
// creations and deletions, and what GET /v1/stores answers as total.
func TestStores_DirectoryCountExactUnderConcurrency(t *testing.T) {
	env := testenv.New(t)
	const n = 12
	owners := make([]testenv.Account, n)
	for i := range owners {
		owners[i] = bookseller(t, env, fmt.Sprintf("dir_owner_%d", i))
	}
	var wg sync.WaitGroup
	var created sync.Map
	for i := range owners {
		// Two at once per owner: one wins, the other is refused and
		// counts nothing.
		for range 2 {
			wg.Go(func() {
				res := env.Do("POST", "/v1/stores", storeBody(fmt.Sprintf("dir-shop-%d", i)), owners[i].Token)
				if res.Status == http.StatusCreated {
					_, again := created.LoadOrStore(i, true)
					assert.False(t, again, "owner %d: two stores", i)
				} else {
					assert.Equal(t, http.StatusBadRequest, res.Status, "%s", res)
				}
			})
		}
	}
	wg.Wait()
	count := func() any {
		t.Helper()
		item := env.Item(t, dynamo.StoreDirCountKey())
		require.NotNil(t, item, "the directory's count item")
		return item["count"]
	}
	assert.EqualValues(t, n, count())
	assert.EqualValues(t, n, env.Do("GET", "/v1/stores", nil, "").JSON["total"])

	// Every owner deletes their store, half of them create another, all
	// at once.
	for i := range owners {
		wg.Go(func() {
			assert.Equal(t, http.StatusOK, env.Do("DELETE", fmt.Sprintf("/v1/stores/dir-shop-%d", i), nil, owners[i].Token).Status)
			if i%2 == 0 {
				assert.Equal(t, http.StatusCreated, env.Do("POST", "/v1/stores", storeBody(fmt.Sprintf("dir-again-%d", i)), owners[i].Token).Status)
			}
		})
	}
	wg.Wait()
	assert.EqualValues(t, n/2, count())
	res := env.Do("GET", "/v1/stores?limit=100", nil, "")
	assert.EqualValues(t, n/2, res.JSON["total"])
	assert.Len(t, res.JSON["stores"], n/2)
	// A repeated deletion of a store that is gone changes nothing.
	testenv.AssertError(t, env.Do("DELETE", "/v1/stores/dir-shop-1", nil, owners[1].Token), http.StatusNotFound, "NotFound", "")
	assert.EqualValues(t, n/2, count())
}

// A store at the north pole (latitude 90 is accepted) is found by every
// search that reaches it, by cells or by ranges.
func TestStores_ListFindsAStoreAtThePole(t *testing.T) {
	env := testenv.New(t)
	owner := bookseller(t, env, "pole_owner")
	b := storeBody("north-pole-books")
	b["latitude"], b["longitude"] = 90.0, 0.0
	newStore(t, env, owner, b)
	for _, q := range []string{
		"/v1/stores?latitude=89.99&longitude=0&radius=5",
		"/v1/stores?latitude=90&longitude=0&radius=1",
		"/v1/stores?latitude=85&longitude=0&radius=500",
	} {
		res := env.Do("GET", q, nil, "")
		require.Equal(t, http.StatusOK, res.Status, "%s", res)
		assert.EqualValues(t, 1, res.JSON["total"], q)
	}
}

// A table whose stores were written before the position list and the
// directory's count item (a local data directory from an older version)
// is repaired by Reindex, which the local run calls before it serves:
// wide searches find the stores, totals are exact, and a deletion counts
// down from the right number.
func TestStores_ReindexRepairsAnOlderTable(t *testing.T) {
	env := testenv.New(t)
	owner := bookseller(t, env, "legacy_owner")
	st := newStore(t, env, owner, storeBody("legacy-books"))
	loc := geo.Point{Lat: st["latitude"].(float64), Lng: st["longitude"].(float64)}
	env.DeleteItem(t, dynamo.StorePositionKey(loc, st["id"].(string)))
	env.DeleteItem(t, dynamo.StoreDirCountKey())

	n, err := dynamo.NewBookstores(env.App.Table).Reindex(t.Context())
	require.NoError(t, err)
	assert.Equal(t, 1, n)
	n, err = dynamo.NewBookstores(env.App.Table).Reindex(t.Context())
	require.NoError(t, err)
	assert.Zero(t, n, "a table with the count item is left alone")

	q := fmt.Sprintf("/v1/stores?latitude=%v&longitude=%v&radius=300", loc.Lat, loc.Lng)
	assert.EqualValues(t, 1, env.Do("GET", q, nil, "").JSON["total"], "found by ranges")
	assert.EqualValues(t, 1, env.Do("GET", "/v1/stores", nil, "").JSON["total"])
	require.Equal(t, http.StatusOK, env.Do("DELETE", "/v1/stores/legacy-books", nil, owner.Token).Status)
	assert.EqualValues(t, 0, env.Do("GET", "/v1/stores", nil, "").JSON["total"])
}
