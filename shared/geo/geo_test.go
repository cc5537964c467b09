package geo

import (
	"math"
	"math/rand/v2"
	"testing"

	"github.com/mmcloughlin/geohash"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func TestMiles(t *testing.T) {
	portland := Point{45.5152, -122.6784}
	seattle := Point{47.6062, -122.3321}
	assert.InDelta(t, 145, Miles(portland, seattle), 2)
	assert.Zero(t, Miles(portland, portland))
	assert.InDelta(t, Miles(portland, seattle), Miles(seattle, portland), 1e-9)
	assert.InDelta(t, HalfCircumference, Miles(Point{0, 0}, Point{0, 180}), 1e-6)
}

func TestZIP(t *testing.T) {
	p, ok := ZIP("97209")
	require.True(t, ok)
	assert.InDelta(t, 45.53, p.Lat, 0.01)
	assert.InDelta(t, -122.68, p.Lng, 0.01)
	q, ok := ZIP("97209-1234")
	require.True(t, ok, "ZIP+4 counts its first five digits")
	assert.Equal(t, p, q)
	for _, bad := range []string{"", "9720", "972099", "ABCDE", "00000", "97209 1234"} {
		_, ok := ZIP(bad)
		assert.False(t, ok, bad)
	}
	m, err := zips()
	require.NoError(t, err)
	assert.Len(t, m, 33120, "every ZCTA of the 2010 Gazetteer")
}

// planCenters are where the plan is hard: a metro, the equator, the
// southern hemisphere, Alaska, next to both poles, and both sides of the
// antimeridian.
var planCenters = []Point{
	{45.52, -122.68}, {40.75, -73.99}, {0.01, 0.01}, {-33.9, 151.2}, {64.8, -147.7},
	{89.5, 10}, {89.4, 0}, {88, 0}, {-89.9, 120}, {-18.14, 178.44}, {-13.83, -171.76}, {65.7, -168.1},
}

// The plan is exact where it matters: every point within the radius is in
// a cell or range it reads, for radii from half a mile to the whole globe,
// near the poles and across the antimeridian.
func TestPlan_HoldsEveryPointInTheRadius(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 2))
	for _, c := range planCenters {
		for _, radius := range []float64{0.5, 5, 25, 59, 60, 100, 150, 680, 3000, 9000, HalfCircumference, 12450} {
			plan := PlanSearch(c, radius)
			require.True(t, len(plan.Cells) > 0 || len(plan.Ranges) > 0, "center %v radius %v: an empty plan", c, radius)
			for i := range 400 {
				// A random point at most radius miles away; every tenth
				// exactly on the circle.
				d := radius * math.Sqrt(rng.Float64())
				if i%10 == 0 {
					d = radius
				}
				p := destination(c, d, rng.Float64()*2*math.Pi)
				if Miles(c, p) > radius {
					continue
				}
				assert.True(t, plan.Holds(p), "center %v radius %v: %v (hash %s) not read", c, radius, p, Hash(p))
			}
		}
	}
}

// A search reads a bounded number of keys wherever it is and however
// wide: at most MaxCells cells, or at most MaxRanges ranges (one per part
// of the position list when it meets more parts than that).
func TestPlan_IsBounded(t *testing.T) {
	rng := rand.New(rand.NewPCG(3, 4))
	check := func(c Point, radius float64) Plan {
		t.Helper()
		plan := PlanSearch(c, radius)
		assert.LessOrEqual(t, len(plan.Cells), MaxCells, "center %v radius %v", c, radius)
		parts := map[string]bool{}
		for _, r := range plan.Ranges {
			parts[r.Part()] = true
			assert.Equal(t, r.Part(), r.To[:1], "a range stays in its part")
			assert.LessOrEqual(t, r.From, r.To)
		}
		assert.LessOrEqual(t, len(plan.Ranges), max(MaxRanges, len(parts)), "center %v radius %v", c, radius)
		assert.LessOrEqual(t, len(plan.Ranges), Parts)
		return plan
	}
	for _, c := range planCenters {
		for _, radius := range []float64{0.5, 25, 100, 101, 500, 2000, 12450} {
			check(c, radius)
		}
	}
	for range 2000 {
		c := Point{rng.Float64()*180 - 90, rng.Float64()*360 - 180}
		check(c, math.Exp(rng.Float64()*math.Log(12450)))
	}

	// The review's cases: 13,312, 17,408 and 5,120 cells before.
	for _, tc := range []struct {
		c      Point
		radius float64
	}{{Point{89.4, 0}, 100}, {Point{88, 0}, 100}, {Point{89.4, 0}, 25}} {
		plan := check(tc.c, tc.radius)
		assert.Empty(t, plan.Cells, "%v: every longitude at cell precision is too many cells", tc)
		assert.LessOrEqual(t, len(plan.Ranges), MaxRanges, "%v", tc)
	}
	// The common searches keep reading cells, one key each.
	assert.LessOrEqual(t, len(check(Point{45.52, -122.68}, 25).Cells), 40)
	assert.NotEmpty(t, check(Point{45.52, -122.68}, 100).Cells)
	assert.NotEmpty(t, check(Point{47.61, -122.33}, 100).Cells)
	for _, c := range check(Point{45.52, -122.68}, 25).Cells {
		assert.Len(t, c, CellPrecision)
	}
	// The whole globe: one range per part.
	whole := check(Point{47.61, -122.33}, 12450)
	assert.Len(t, whole.Ranges, Parts)
}

// Consecutive cells of one part become one range; neighbouring ranges
// merge, fewest cells between first, until few enough; parts stay apart.
func TestMerge(t *testing.T) {
	assert.Equal(t, []Range{{"9q", "9s"}, {"9u", "9u"}, {"b0", "b1"}}, merge([]string{"9q", "9r", "9s", "9u", "b0", "b1"}, 10))
	assert.Equal(t, []Range{{"9q", "9u"}, {"b0", "b1"}}, merge([]string{"9q", "9r", "9s", "9u", "b0", "b1"}, 2))
	assert.Equal(t, []Range{{"9", "9"}, {"b", "b"}}, merge([]string{"9", "b"}, 1), "parts never merge")
	assert.Equal(t, []Range{{"9q0", "9q2"}, {"9qz", "9r1"}}, merge([]string{"9q0", "9q2", "9qz", "9r0", "9r1"}, 2))
}

func TestRangeHolds(t *testing.T) {
	r := Range{"9q8", "9qb"}
	for h, want := range map[string]bool{"9q8yyk8ytpxr": true, "9q9000000000": true, "9qbzzzzzzzzz": true, "9qc000000000": false, "9q7zzzzzzzzz": false} {
		assert.Equal(t, want, r.Holds(h), h)
	}
}

// destination is the point d miles from p on the initial bearing b, its
// longitude brought back into [-180, 180].
func destination(p Point, d, b float64) Point {
	rad := math.Pi / 180
	ang := d / earthRadiusMiles
	lat1, lng1 := p.Lat*rad, p.Lng*rad
	lat2 := math.Asin(math.Sin(lat1)*math.Cos(ang) + math.Cos(lat1)*math.Sin(ang)*math.Cos(b))
	lng2 := lng1 + math.Atan2(math.Sin(b)*math.Sin(ang)*math.Cos(lat1), math.Cos(ang)-math.Sin(lat1)*math.Sin(lat2))
	out := Point{lat2 / rad, math.Remainder(lng2/rad, 360)}
	if out.Lng == -180 && lng2 > 0 {
		out.Lng = 180
	}
	return out
}

func TestCell(t *testing.T) {
	p := Point{45.52, -122.68}
	assert.Equal(t, geohash.EncodeWithPrecision(p.Lat, p.Lng, 4), Cell(p))
	assert.Len(t, Hash(p), HashPrecision)
	assert.True(t, len(Hash(p)) > len(Cell(p)) && Hash(p)[:CellPrecision] == Cell(p))
}
