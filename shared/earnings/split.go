package earnings

import (
	"cmp"
	"math/bits"
	"slices"
)

// Weight is one store's sales of a month: its weight in the pool's split.
type Weight struct {
	StoreID    string
	SalesCents int64
}

// Share is one store's share of a pool.
type Share struct {
	StoreID     string
	AmountCents int64
}

// Split divides poolCents among the stores in proportion to their sales
// by largest remainder: each store gets the whole cents of its exact
// share (poolCents × sales / total sales, rounded down), then the cents
// those roundings left over go one each to the stores with the largest
// remainders; equal remainders go to the lower store id first. The
// shares add up to poolCents exactly. A store with no sales (zero or
// less: its orders were cancelled) has no weight and no share. The
// result is in store id order, one entry per weighted store (a share may
// be 0 cents). Integer arithmetic only: the products are 128-bit, so no
// pool or sales figure overflows.
func Split(poolCents int64, weights []Weight) []Share {
	ws := slices.DeleteFunc(slices.Clone(weights), func(w Weight) bool { return w.SalesCents <= 0 })
	slices.SortFunc(ws, func(a, b Weight) int { return cmp.Compare(a.StoreID, b.StoreID) })
	if len(ws) == 0 {
		return nil
	}
	var total uint64
	for _, w := range ws {
		total += uint64(w.SalesCents)
	}
	out := make([]Share, len(ws))
	if poolCents <= 0 {
		for i, w := range ws {
			out[i] = Share{StoreID: w.StoreID}
		}
		return out
	}
	rems := make([]uint64, len(ws))
	left := poolCents
	for i, w := range ws {
		// pool × sales < 2^128 and sales ≤ total, so the quotient fits
		// 64 bits (hi < total) and is at most pool.
		hi, lo := bits.Mul64(uint64(poolCents), uint64(w.SalesCents))
		q, r := bits.Div64(hi, lo, total)
		out[i] = Share{StoreID: w.StoreID, AmountCents: int64(q)}
		rems[i] = r
		left -= int64(q)
	}
	// left < len(ws): each share lost less than one cent.
	order := make([]int, len(ws))
	for i := range order {
		order[i] = i
	}
	slices.SortStableFunc(order, func(a, b int) int { return cmp.Compare(rems[b], rems[a]) })
	for _, i := range order[:left] {
		out[i].AmountCents++
	}
	return out
}
