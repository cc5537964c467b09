package ratelimit

import (
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
)

func TestDecide(t *testing.T) {
	now := time.Date(2026, 11, 21, 12, 0, 30, 0, time.UTC)
	rule := TierRule(TierGuest)
	assert.EqualValues(t, 60, rule.Limit)

	r := Decide(rule, 60, now)
	assert.True(t, r.Allowed)
	assert.EqualValues(t, 0, r.Remaining)
	assert.Equal(t, time.Date(2026, 11, 21, 12, 1, 0, 0, time.UTC), r.Reset)

	r = Decide(rule, 61, now)
	assert.False(t, r.Allowed)

	// Counter store down: fail open.
	r = Decide(rule, -1, now)
	assert.True(t, r.Allowed)
	assert.EqualValues(t, 60, r.Remaining)
}

func TestTierRates(t *testing.T) {
	for tier, want := range map[string]int64{"guest": 60, "free": 120, "premium": 300, "bookstore": 600, "unknown": 60} {
		assert.Equal(t, want, TierRule(tier).Limit, tier)
	}
}

func TestTightest(t *testing.T) {
	now := time.Now()
	tier := Decide(TierRule("free"), 5, now)        // 115 left
	like := Decide(Actions["like"], 99, now)        // 1 left
	line := Decide(Actions["create_line"], 11, now) // refused
	assert.Equal(t, "like", Tightest([]Result{tier, like}).Rule.Name)
	assert.Equal(t, "create_line", Tightest([]Result{tier, like, line}).Rule.Name)
}
