package storesapi_test

import (
	"fmt"
	"math"
	"net/http"
	"sort"
	"testing"

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
			"latitude=abc&longitude=1", "latitude=45&longitude=-122&radius=0", "latitude=45&longitude=-122&radius=101",
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
