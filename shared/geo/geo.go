// Package geo is the geometry of store search: points, great-circle
// distances in miles, the geohash cells that cover a circle (so a query
// reads only the cells its radius reaches), and the centroid of a US ZIP
// code from an open dataset shipped with the code (ZIP, zcta2010.csv.gz;
// source and licence in local/data/README.md). It imports no AWS and no
// HTTP package.
package geo

import (
	"math"
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

// Miles is the great-circle distance between a and b (haversine).
func Miles(a, b Point) float64 {
	rad := math.Pi / 180
	dLat := (b.Lat - a.Lat) * rad
	dLng := (b.Lng - a.Lng) * rad
	h := math.Sin(dLat/2)*math.Sin(dLat/2) + math.Cos(a.Lat*rad)*math.Cos(b.Lat*rad)*math.Sin(dLng/2)*math.Sin(dLng/2)
	return 2 * earthRadiusMiles * math.Asin(math.Min(1, math.Sqrt(h)))
}

// Index precisions: a store is indexed in the partition of its
// PartitionPrecision-character geohash cell (about 150 km by 150 km at
// mid latitudes), sorted there by its CellPrecision-character geohash.
// A query reads key ranges of RangePrecision-character cells inside the
// partitions it touches, or whole partitions for a wide radius.
const (
	PartitionPrecision = 3
	RangePrecision     = 4
	CellPrecision      = 9
	// wholePartitionsFrom is the radius (miles) from which whole
	// partitions are read: the number of 4-character cells grows with
	// the square of the radius, the number of partitions much slower.
	wholePartitionsFrom = 60
)

// Cell is p's full geohash (CellPrecision characters), the sort key of a
// store in its partition.
func Cell(p Point) string { return geohash.EncodeWithPrecision(p.Lat, p.Lng, CellPrecision) }

// Partition is the geohash of p's partition cell.
func Partition(p Point) string { return Cell(p)[:PartitionPrecision] }

// Range is one read of a query: the stores of Partition whose cell sorts
// from Lo to Hi, both prefixes ("" and "" for the whole partition).
type Range struct {
	Partition string
	Lo, Hi    string
}

// Cover returns the ranges to read for the stores within radius miles
// of center: every cell that meets the circle's bounding box, merged
// where consecutive cells of one partition make one key range, ordered.
// Longitudes are not wrapped across the antimeridian (no store the
// service serves is near it).
func Cover(center Point, radius float64) []Range {
	precision := uint(RangePrecision)
	if radius >= wholePartitionsFrom {
		precision = PartitionPrecision
	}
	minLat, maxLat, minLng, maxLng := box(center, radius)

	// Cells of one precision form a grid of equal steps in degrees.
	first := geohash.BoundingBox(geohash.EncodeWithPrecision(minLat, minLng, precision))
	h, w := first.MaxLat-first.MinLat, first.MaxLng-first.MinLng
	var cells []string
	for lat := first.MinLat; lat <= maxLat; lat += h {
		for lng := first.MinLng; lng <= maxLng; lng += w {
			cells = append(cells, geohash.EncodeWithPrecision(math.Min(lat+h/2, 90), math.Min(lng+w/2, 180), precision))
		}
	}
	sort.Strings(cells)
	cells = compact(cells)

	var out []Range
	for _, c := range cells {
		part := c[:PartitionPrecision]
		if precision == PartitionPrecision {
			out = append(out, Range{Partition: part})
			continue
		}
		if n := len(out); n > 0 && out[n-1].Partition == part && successor(out[n-1].Hi) == c {
			out[n-1].Hi = c
			continue
		}
		out = append(out, Range{Partition: part, Lo: c, Hi: c})
	}
	return out
}

// box is the bounding box of the circle, clamped to the globe.
func box(c Point, radius float64) (minLat, maxLat, minLng, maxLng float64) {
	const milesPerDegree = 2 * math.Pi * earthRadiusMiles / 360
	dLat := radius / milesPerDegree
	minLat, maxLat = math.Max(c.Lat-dLat, -90), math.Min(c.Lat+dLat, 90)
	// The widest parallel inside the box sets the longitude span.
	widest := math.Max(math.Abs(minLat), math.Abs(maxLat))
	cos := math.Cos(widest * math.Pi / 180)
	if cos < 0.01 || maxLat == 90 || minLat == -90 {
		return minLat, maxLat, -180, 180
	}
	dLng := radius / (milesPerDegree * cos)
	return minLat, maxLat, math.Max(c.Lng-dLng, -180), math.Min(c.Lng+dLng, 180)
}

// base32 is the geohash alphabet, in sort order.
const base32 = "0123456789bcdefghjkmnpqrstuvwxyz"

// successor is the geohash that sorts right after cell at its precision
// within its parent ("" after the parent's last child).
func successor(cell string) string {
	last := cell[len(cell)-1]
	for i := 0; i < len(base32)-1; i++ {
		if base32[i] == last {
			return cell[:len(cell)-1] + string(base32[i+1])
		}
	}
	return ""
}

func compact(s []string) []string {
	out := s[:0]
	for i, v := range s {
		if i == 0 || v != s[i-1] {
			out = append(out, v)
		}
	}
	return out
}
