package earnings

import (
	"math"
	"testing"
	"time"

	"github.com/bookplatform/backend/shared/config"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func sum(shares []Share) int64 {
	var n int64
	for _, s := range shares {
		n += s.AmountCents
	}
	return n
}

func TestSplit_proportionalAndExact(t *testing.T) {
	got := Split(1000, []Weight{{"c", 2000}, {"a", 6000}, {"b", 2000}})
	assert.Equal(t, []Share{{"a", 600}, {"b", 200}, {"c", 200}}, got, "in store id order, in proportion")

	// 100 / 3: 33 each and one cent left: the lowest id of the tie.
	got = Split(100, []Weight{{"b", 1}, {"c", 1}, {"a", 1}})
	assert.Equal(t, []Share{{"a", 34}, {"b", 33}, {"c", 33}}, got)

	// Remainders decide before ids: 7 × (1,2,4)/7 is exact; 10 × (1,2,4)/7 =
	// 1.43, 2.86, 5.71: floors 1, 2, 5 (8), remainders 3, 6, 5 of 7: the two
	// cents go to b and then c.
	got = Split(10, []Weight{{"a", 1}, {"b", 2}, {"c", 4}})
	assert.Equal(t, []Share{{"a", 1}, {"b", 3}, {"c", 6}}, got)
}

func TestSplit_edges(t *testing.T) {
	assert.Nil(t, Split(500, nil), "no sales: nobody")
	assert.Nil(t, Split(500, []Weight{{"a", 0}, {"b", -300}}), "cancelled sales weigh nothing")
	assert.Equal(t, []Share{{"a", 0}}, Split(0, []Weight{{"a", 10}}), "an empty pool pays nothing")
	assert.Equal(t, []Share{{"a", 0}}, Split(-5, []Weight{{"a", 10}}), "a negative pool pays nothing")
	assert.Equal(t, []Share{{"a", 1}, {"b", 0}, {"c", 0}}, Split(1, []Weight{{"c", 5}, {"b", 5}, {"a", 5}}))

	// Large figures do not overflow: the products are 128-bit.
	big := Split(math.MaxInt64/2, []Weight{{"a", math.MaxInt64 / 3}, {"b", math.MaxInt64 / 3}, {"c", 1}})
	assert.Equal(t, int64(math.MaxInt64/2), sum(big))
}

// Whatever the figures, the shares add up to the pool and each is within
// a cent of its exact share.
func TestSplit_sumsExactly(t *testing.T) {
	for pool := int64(0); pool < 400; pool += 7 {
		for n := 1; n < 9; n++ {
			var ws []Weight
			var total int64
			for i := range n {
				w := int64((i*37 + int(pool)) % 101)
				ws = append(ws, Weight{StoreID: string(rune('a' + i)), SalesCents: w})
				if w > 0 {
					total += w
				}
			}
			got := Split(pool, ws)
			if total == 0 {
				assert.Empty(t, got)
				continue
			}
			require.Equal(t, pool, sum(got), "pool %d weights %v", pool, ws)
			for _, s := range got {
				var w int64
				for _, x := range ws {
					if x.StoreID == s.StoreID {
						w = x.SalesCents
					}
				}
				// share·total is within one total of pool·w
				diff := s.AmountCents*total - pool*w
				assert.True(t, diff > -total && diff < total, "share %v of pool %d weight %d/%d", s, pool, w, total)
			}
		}
	}
}

func TestRates(t *testing.T) {
	assert.Equal(t, int64(149), CommissionCents(2999, 500), "5% of $29.99, rounded down")
	assert.Equal(t, int64(59), PoolCents(2999, 200), "2% of $29.99, rounded down")
	assert.Equal(t, int64(-59), PoolCents(-2999, 200), "a cancellation takes back the same figure")
	assert.Equal(t, DefaultSettings, SettingsFrom(config.NewEnv(nil)))
	env := config.NewEnv(func(k string) string {
		return map[string]string{EnvAffiliateCommissionBPS: "750", EnvPoolShareBPS: "0"}[k]
	})
	assert.Equal(t, Settings{CommissionBPS: 750, PoolShareBPS: 0}, SettingsFrom(env))
	assert.NoError(t, env.Err())
	bad := config.NewEnv(func(k string) string { return map[string]string{EnvPoolShareBPS: "10001"}[k] })
	SettingsFrom(bad)
	assert.ErrorContains(t, bad.Err(), EnvPoolShareBPS)
}

func TestMonths(t *testing.T) {
	assert.Equal(t, "2026-10", PreviousMonth(time.Date(2026, 11, 1, 2, 0, 0, 0, time.UTC)))
	assert.Equal(t, "2025-12", PreviousMonth(time.Date(2026, 1, 31, 23, 0, 0, 0, time.UTC)))
	_, err := ParseMonth("2026-13")
	assert.Error(t, err)
	_, err = ParseMonth("2026-1")
	assert.Error(t, err)
	m, err := ParseMonth("2026-02")
	require.NoError(t, err)
	assert.Equal(t, time.Date(2026, 2, 1, 0, 0, 0, 0, time.UTC), m)
}
