package geo

import "testing"

// The API accepts latitude ±90 and longitude ±180. The geohash grid is
// half-open, so latitude 90 would be filed in the south pole's row and
// longitude 180 in -180's column: a store exactly there must still be in
// the plan of every search whose circle reaches it.
func TestPlan_HoldsTheGridsEdges(t *testing.T) {
	for _, c := range []struct {
		center, store Point
		radius        float64
	}{
		{Point{89.99, 0}, Point{90, 0}, 5},
		{Point{90, 0}, Point{90, 0}, 1},
		{Point{89.9, 45}, Point{90, 45}, 25},
		{Point{85, 0}, Point{90, 0}, 500},
		{Point{-89.99, 0}, Point{-90, 0}, 5},
		{Point{-90, 0}, Point{-90, 120}, 1},
		{Point{0, 179.99}, Point{0, 180}, 5},
		{Point{0, -179.99}, Point{0, 180}, 5},
		{Point{0, 180}, Point{0, -180}, 1},
		{Point{10, 180}, Point{10, 179.9}, 25},
	} {
		if d := Miles(c.center, c.store); d > c.radius {
			t.Fatalf("setup: %v is %.3f miles from %v", c.store, d, c.center)
		}
		if !PlanSearch(c.center, c.radius).Holds(c.store) {
			t.Errorf("center %v radius %v: the store at %v (%.3f mi away, cell %s) is not in the plan",
				c.center, c.radius, c.store, Miles(c.center, c.store), Cell(c.store))
		}
	}
}
