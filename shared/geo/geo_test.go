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

// Cover is exact where it matters: every point within the radius lies in
// a cell it returns, for radii from half a mile to the widest search and
// near the poles.
func TestCover_ContainsEveryPointInTheRadius(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 2))
	centers := []Point{{45.52, -122.68}, {40.75, -73.99}, {0.01, 0.01}, {-33.9, 151.2}, {64.8, -147.7}, {89.5, 10}}
	for _, c := range centers {
		for _, radius := range []float64{0.5, 5, 25, 59, 60, 100} {
			cells := map[string]bool{}
			for _, cell := range Cover(c, radius) {
				cells[cell] = true
			}
			require.NotEmpty(t, cells)
			for range 300 {
				// A random point at most radius miles away.
				d := radius * math.Sqrt(rng.Float64())
				bearing := rng.Float64() * 2 * math.Pi
				p := destination(c, d, bearing)
				if Miles(c, p) > radius {
					continue
				}
				assert.True(t, cells[Cell(p)], "center %v radius %v: %v (cell %s) not covered", c, radius, p, Cell(p))
			}
		}
	}
}

// A query reads a bounded number of cells: a few dozen for the default
// radius, a few hundred for the widest.
func TestCover_Size(t *testing.T) {
	assert.LessOrEqual(t, len(Cover(Point{45.52, -122.68}, 25)), 40)
	assert.LessOrEqual(t, len(Cover(Point{45.52, -122.68}, 100)), 300)
	assert.LessOrEqual(t, len(Cover(Point{64.8, -147.7}, 100)), 500)
	for _, c := range Cover(Point{45.52, -122.68}, 25) {
		assert.Len(t, c, CellPrecision)
	}
}

// destination is the point d miles from p on the initial bearing b.
func destination(p Point, d, b float64) Point {
	rad := math.Pi / 180
	ang := d / earthRadiusMiles
	lat1, lng1 := p.Lat*rad, p.Lng*rad
	lat2 := math.Asin(math.Sin(lat1)*math.Cos(ang) + math.Cos(lat1)*math.Sin(ang)*math.Cos(b))
	lng2 := lng1 + math.Atan2(math.Sin(b)*math.Sin(ang)*math.Cos(lat1), math.Cos(ang)-math.Sin(lat1)*math.Sin(lat2))
	out := Point{lat2 / rad, lng2 / rad}
	if out.Lng > 180 || out.Lng < -180 {
		out.Lng = math.Max(-180, math.Min(180, out.Lng))
	}
	return out
}

func TestCell(t *testing.T) {
	p := Point{45.52, -122.68}
	assert.Equal(t, geohash.EncodeWithPrecision(p.Lat, p.Lng, 4), Cell(p))
}
