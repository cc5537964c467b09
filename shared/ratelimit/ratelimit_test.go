package ratelimit

import (
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

var now = time.Date(2026, 11, 21, 12, 0, 30, 0, time.UTC)

func TestTierRates(t *testing.T) {
	for tier, want := range map[string]int64{"guest": 60, "free": 120, "premium": 300, "bookstore": 600, "unknown": 60} {
		assert.Equal(t, want, TierRule(tier).Limit, tier)
	}
}

// Every window divides the bucket, so all of a caller's windows of an
// hour live in one counter record.
func TestWindowsDivideTheBucket(t *testing.T) {
	rules := []Rule{TierRule("free")}
	for _, r := range Actions {
		rules = append(rules, r)
	}
	for _, r := range rules {
		assert.Zero(t, Bucket%r.Window, r.Name)
	}
	ws := WindowsAt([]Rule{TierRule("free"), Actions["like"]}, now)
	assert.Equal(t, time.Date(2026, 11, 21, 12, 0, 0, 0, time.UTC), ws[0].Start)
	assert.Equal(t, time.Date(2026, 11, 21, 12, 1, 0, 0, time.UTC), ws[0].End())
	assert.Equal(t, time.Date(2026, 11, 21, 13, 0, 0, 0, time.UTC), ws[1].End())
}

func TestResults(t *testing.T) {
	ws := WindowsAt([]Rule{TierRule("free"), Actions["create_line"], Actions["create_line_hourly"]}, now)

	admitted := Results(ws, []int64{5, 10, 7}, true)
	assert.True(t, admitted[1].Allowed, "the 10th of 10 is allowed")
	assert.EqualValues(t, 0, admitted[1].Remaining)
	_, refused := Refusal(admitted)
	assert.False(t, refused)
	assert.Equal(t, "create_line", Tightest(admitted).Rule.Name)

	// Refused: the counts stood at 10 of 10 and 50 of 50; the request
	// waits for both, so the hour's end is reported.
	r := Results(ws, []int64{5, 10, 50}, false)
	assert.True(t, r[0].Allowed, "the tier rate did not refuse it")
	assert.False(t, r[1].Allowed)
	assert.False(t, r[2].Allowed)
	worst, ok := Refusal(r)
	require.True(t, ok)
	assert.Equal(t, "create_line_hourly", worst.Rule.Name)
	assert.Equal(t, ws[2].End(), worst.Reset)

	// Refused by the minute rule alone: the wait ends with the minute.
	worst, _ = Refusal(Results(ws, []int64{5, 10, 7}, false))
	assert.Equal(t, "create_line", worst.Rule.Name)
	assert.Equal(t, ws[1].End(), worst.Reset)

	// The counter failed: open, every rule with its full allowance.
	open := Results(ws, nil, true)
	for i, res := range open {
		assert.True(t, res.Allowed)
		assert.Equal(t, ws[i].Rule.Limit, res.Remaining)
	}
}
