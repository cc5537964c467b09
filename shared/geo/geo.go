// Package geo is the geometry of store search: points, great-circle
// distances in miles, the plan of what a search by position reads (the
// geohash cells or ranges that hold every point of its circle, bounded
// in number wherever the circle is and however wide), and the centroid of
// a US ZIP code from an open dataset shipped with the code (ZIP,
// zcta2010.csv.gz; source and licence in local/data/README.md). It imports
// no AWS and no HTTP package.
package geo

import (
	"math"
	"slices"
	"sort"

	"github.com/mmcloughlin/geohash"
)

// Point is a position in decimal degrees (WGS 84).
type Point struct {
	Lat, Lng float64
}

// Valid reports whether p is on the globe.
func (p Point) Valid() bool {
	return p.Lat >= -90 && p.Lat <= 90 && p.Lng >= -180 && p.Lng <= 180 &&
		!math.IsNaN(p.Lat) && !math.IsNaN(p.Lng)
}

// earthRadiusMiles is the mean radius of the Earth.
const earthRadiusMiles = 3958.7613

// HalfCircumference is the farthest two points of the globe are apart
// (about 12,437 miles): a circle of this radius holds the whole globe.
const HalfCircumference = math.Pi * earthRadiusMiles

// Miles is the great-circle distance between a and b (haversine).
func Miles(a, b Point) float64 {
	rad := math.Pi / 180
	dLat := (b.Lat - a.Lat) * rad
	dLng := (b.Lng - a.Lng) * rad
	h := math.Sin(dLat/2)*math.Sin(dLat/2) + math.Cos(a.Lat*rad)*math.Cos(b.Lat*rad)*math.Sin(dLng/2)*math.Sin(dLng/2)
	return 2 * earthRadiusMiles * math.Asin(math.Min(1, math.Sqrt(h)))
}

// CellPrecision is the length of the geohash cells whose items hold the
// stores in them: about 39 by 19.5 km at the equator (narrower toward the
// poles), so a 25-mile radius meets a few dozen cells and a 100-mile one
// a few hundred, each one key read.
const CellPrecision = 4

// HashPrecision is the length of the geohash a store's position is
// listed under in the position list a wide search reads by ranges: 12
// characters, a few centimetres, so a range of any shorter prefix selects
// exactly the positions inside its cells.
const HashPrecision = 12

// Bounds of a search's reads (Plan): the cells it reads one key each, and
// the ranges of the position list it reads with one query each.
const (
	MaxCells  = 300
	MaxRanges = 16
	// Parts is the number of parts of the position list (its geohashes'
	// first character), which no range spans: a plan has at most
	// max(MaxRanges, Parts) ranges.
	Parts = 32
	// maxRangeCells bounds the cells a plan of ranges enumerates before
	// merging them.
	maxRangeCells = 4096
)

// Cell is the index cell of p (CellPrecision).
func Cell(p Point) string { return encode(p, CellPrecision) }

// Hash is p's key in the position list (HashPrecision).
func Hash(p Point) string { return encode(p, HashPrecision) }

// encode is p's geohash. The library's grid is half-open: latitude 90
// would wrap to the south pole's row and longitude 180 to -180's column,
// so both edges are moved inside by edgeInset (the library scales to 32
// bits, so the next float below 90 still wraps): a pole's store is filed
// beside the pole, where every search that reaches the pole reads.
func encode(p Point, precision uint) string {
	return geohash.EncodeWithPrecision(min(p.Lat, 90-edgeInset), min(p.Lng, 180-edgeInset), precision)
}

// edgeInset is about a centimetre in degrees.
const edgeInset = 1e-7

// Range is a run of geohash cells of one precision, consecutive in
// geohash order and of one part of the position list (the same first
// character): it selects every position whose geohash begins with a
// string from From to To.
type Range struct {
	From, To string
}

// Part is the part of the position list the range is in.
func (r Range) Part() string { return r.From[:1] }

// Holds reports whether the geohash h (of any precision at least the
// range's) is in the range.
func (r Range) Holds(h string) bool {
	p := h[:min(len(h), len(r.From))]
	return p >= r.From && p <= r.To
}

// Plan is what a search by position reads, bounded wherever the circle is
// and however wide: the items of at most MaxCells cells of CellPrecision
// (Cells), one key each; or, when the circle meets more of them (a wide
// radius, or near a pole, where a circle spans every longitude), at most
// MaxRanges ranges of the position list (Ranges; more only for a circle
// that meets more than MaxRanges of its Parts), each one
// query whose cost is the stores it holds. Every point within the radius
// is in a cell or range of the plan, so the search measures every
// candidate and its total is exact.
type Plan struct {
	Cells  []string
	Ranges []Range
}

// Holds reports whether the plan reads the position p.
func (pl Plan) Holds(p Point) bool {
	if len(pl.Cells) > 0 {
		return slices.Contains(pl.Cells, Cell(p))
	}
	h := Hash(p)
	for _, r := range pl.Ranges {
		if r.Holds(h) {
			return true
		}
	}
	return false
}

// PlanSearch returns the plan of a search for the points within radius
// miles of center.
func PlanSearch(center Point, radius float64) Plan {
	lat, lngs := bounds(center, radius)
	if g := gridOf(CellPrecision); g.count(lat, lngs) <= MaxCells {
		return Plan{Cells: g.cells(lat, lngs)}
	}
	g := gridOf(3)
	if g.count(lat, lngs) > maxRangeCells {
		g = gridOf(2) // 1,024 cells on the whole globe
	}
	return Plan{Ranges: merge(g.cells(lat, lngs), MaxRanges)}
}

// span is an interval of degrees.
type span struct{ lo, hi float64 }

// bounds is the bounding box of the circle (a spherical cap): its
// latitudes, and its longitudes as one span, or two when it crosses the
// antimeridian, or the whole circle of longitudes when it holds a pole.
// A small margin keeps a point at exactly the radius inside despite
// rounding.
func bounds(c Point, radius float64) (span, []span) {
	const (
		rad    = math.Pi / 180
		margin = 1e-9 // degrees
	)
	whole := []span{{-180, 180}}
	a := radius / earthRadiusMiles // the angular radius, in radians
	if a >= math.Pi {
		return span{-90, 90}, whole
	}
	lat := span{c.Lat - a/rad - margin, c.Lat + a/rad + margin}
	if lat.lo <= -90 || lat.hi >= 90 {
		return span{math.Max(lat.lo, -90), math.Min(lat.hi, 90)}, whole
	}
	// The widest longitude difference within the cap (it holds no pole,
	// so sin a < cos of the centre's latitude).
	dLng := math.Asin(math.Min(1, math.Sin(a)/math.Cos(c.Lat*rad)))/rad + margin
	lo, hi := c.Lng-dLng, c.Lng+dLng
	switch {
	case hi-lo >= 360:
		return lat, whole
	case lo < -180:
		return lat, []span{{lo + 360, 180}, {-180, hi}}
	case hi > 180:
		return lat, []span{{lo, 180}, {-180, hi - 360}}
	}
	return lat, []span{{lo, hi}}
}

// grid is the cells of one geohash precision: equal steps of latitude and
// longitude.
type grid struct {
	precision  int
	rows, cols int     // cells along a meridian, along a parallel
	h, w       float64 // a cell's height and width in degrees
}

func gridOf(precision int) grid {
	bits := 5 * precision
	lngBits, latBits := (bits+1)/2, bits/2
	g := grid{precision: precision, rows: 1 << latBits, cols: 1 << lngBits}
	g.h, g.w = 180/float64(g.rows), 360/float64(g.cols)
	return g
}

// index is the row or column of the cell holding v (degrees from lo), in
// [0, n).
func index(v, lo, step float64, n int) int {
	return max(0, min(n-1, int(math.Floor((v-lo)/step))))
}

// count is the number of cells meeting the box (at most: the spans of a
// box crossing the antimeridian may share a column).
func (g grid) count(lat span, lngs []span) int {
	rows := index(lat.hi, -90, g.h, g.rows) - index(lat.lo, -90, g.h, g.rows) + 1
	cols := 0
	for _, s := range lngs {
		cols += index(s.hi, -180, g.w, g.cols) - index(s.lo, -180, g.w, g.cols) + 1
	}
	return rows * cols
}

// cells lists the cells meeting the box, sorted.
func (g grid) cells(lat span, lngs []span) []string {
	seen := map[string]bool{}
	var out []string
	for i := index(lat.lo, -90, g.h, g.rows); i <= index(lat.hi, -90, g.h, g.rows); i++ {
		for _, s := range lngs {
			for j := index(s.lo, -180, g.w, g.cols); j <= index(s.hi, -180, g.w, g.cols); j++ {
				c := geohash.EncodeWithPrecision(-90+(float64(i)+0.5)*g.h, -180+(float64(j)+0.5)*g.w, uint(g.precision))
				if !seen[c] {
					seen[c] = true
					out = append(out, c)
				}
			}
		}
	}
	sort.Strings(out)
	return out
}

// merge turns sorted cells of one precision into ranges: runs of
// consecutive cells, then, while there are more than most, the two
// neighbouring ranges of one part with the fewest cells between them
// become one (reading the cells between too: more stores read, fewer
// queries). Ranges of different parts never merge. A merge leaves the
// other gaps as they were, so joining the smallest gaps at once is the
// same as joining them one at a time: O(n log n).
func merge(cells []string, most int) []Range {
	type run struct {
		r        Range
		from, to uint64
	}
	var runs []run
	for _, c := range cells {
		v, _ := geohash.ConvertStringToInt(c)
		if n := len(runs); n > 0 && runs[n-1].to+1 == v && runs[n-1].r.Part() == c[:1] {
			runs[n-1].r.To, runs[n-1].to = c, v
			continue
		}
		runs = append(runs, run{Range{c, c}, v, v})
	}
	join := make([]bool, len(runs)) // join[i]: run i+1 joins run i
	if extra := len(runs) - most; extra > 0 {
		var gaps []int // i: the gap between run i and run i+1, of one part
		for i := 0; i+1 < len(runs); i++ {
			if runs[i].r.Part() == runs[i+1].r.Part() {
				gaps = append(gaps, i)
			}
		}
		gap := func(i int) uint64 { return runs[i+1].from - runs[i].to }
		sort.SliceStable(gaps, func(a, b int) bool { return gap(gaps[a]) < gap(gaps[b]) })
		for _, i := range gaps[:min(extra, len(gaps))] {
			join[i] = true
		}
	}
	var out []Range
	for i, r := range runs {
		if i > 0 && join[i-1] {
			out[len(out)-1].To = r.r.To
			continue
		}
		out = append(out, r.r)
	}
	return out
}
