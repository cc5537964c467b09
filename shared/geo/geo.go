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

// CellPrecision is the length of the geohash cells stores are indexed
// in: about 39 by 19.5 km at the equator (narrower toward the poles), so
// a 25-mile radius meets a few dozen cells and a 100-mile one a few
// hundred, each one key read.
const CellPrecision = 4

// Cell is the geohash cell of p.
func Cell(p Point) string { return geohash.EncodeWithPrecision(p.Lat, p.Lng, CellPrecision) }

// Cover returns the cells that meet the bounding box of the circle of
// radius miles around center: every point within the radius is in one
// of them. Longitudes are not wrapped across the antimeridian (no store
// the service serves is near it).
func Cover(center Point, radius float64) []string {
	minLat, maxLat, minLng, maxLng := box(center, radius)
	// Cells of one precision form a grid of equal steps in degrees.
	first := geohash.BoundingBox(geohash.EncodeWithPrecision(minLat, minLng, CellPrecision))
	h, w := first.MaxLat-first.MinLat, first.MaxLng-first.MinLng
	seen := map[string]bool{}
	var cells []string
	for lat := first.MinLat; lat <= maxLat; lat += h {
		for lng := first.MinLng; lng <= maxLng; lng += w {
			c := geohash.EncodeWithPrecision(math.Min(lat+h/2, 90), math.Min(lng+w/2, 180), CellPrecision)
			if !seen[c] {
				seen[c] = true
				cells = append(cells, c)
			}
		}
	}
	sort.Strings(cells)
	return cells
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
