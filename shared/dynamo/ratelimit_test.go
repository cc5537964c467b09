package dynamo_test

import (
	"context"
	"testing"
	"time"

	"github.com/bookplatform/backend/local/testenv"
	"github.com/bookplatform/backend/shared/dynamo"
	"github.com/bookplatform/backend/shared/ratelimit"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// A request is counted in all its windows or in none, with one write.
func TestCounters_AllOrNothing(t *testing.T) {
	env := testenv.New(t)
	c := dynamo.NewCounters(env.App.Table)
	ctx := t.Context()
	now := time.Date(2026, 3, 2, 9, 30, 10, 0, time.UTC)
	rules := []ratelimit.Rule{{Name: "request", Limit: 5, Window: time.Minute}, {Name: "like", Limit: 3, Window: time.Hour}}
	ws := ratelimit.WindowsAt(rules, now)

	for i := int64(1); i <= 3; i++ {
		counts, ok, err := c.Count(ctx, "user:a", ws)
		require.NoError(t, err)
		require.True(t, ok)
		assert.Equal(t, []int64{i, i}, counts)
	}
	counts, ok, err := c.Count(ctx, "user:a", ws)
	require.NoError(t, err)
	assert.False(t, ok, "like is at 3 of 3")
	assert.Equal(t, []int64{3, 3}, counts, "the counts as they stood")
	counts, ok, err = c.Count(ctx, "user:a", ws[:1])
	require.NoError(t, err)
	assert.True(t, ok, "the refusal consumed nothing of the request rate")
	assert.Equal(t, []int64{4}, counts)

	require.NoError(t, c.Refund(ctx, "user:a", ws[1:]))
	counts, ok, err = c.Count(ctx, "user:a", ws)
	require.NoError(t, err)
	assert.True(t, ok, "a refunded like is there again")
	assert.Equal(t, []int64{5, 3}, counts)

	// Another caller has its own record.
	counts, ok, err = c.Count(ctx, "user:b", ws)
	require.NoError(t, err)
	assert.True(t, ok)
	assert.Equal(t, []int64{1, 1}, counts)

	// A refund never goes below zero.
	require.NoError(t, c.Refund(ctx, "user:c", ws))
	counts, _, err = c.Count(ctx, "user:c", ws)
	require.NoError(t, err)
	assert.Equal(t, []int64{1, 1}, counts)
}

// A caller's record holds its windows of one hour; each minute drops the
// minute before, so a busy caller's item stays small, and the item goes
// by TTL after its hour.
func TestCounters_OneItemPerHour(t *testing.T) {
	env := testenv.New(t)
	c := dynamo.NewCounters(env.App.Table)
	ctx := context.Background()
	start := time.Date(2026, 3, 2, 9, 0, 5, 0, time.UTC)
	rules := []ratelimit.Rule{ratelimit.TierRule("free"), ratelimit.Actions["feed"], ratelimit.Actions["like"]}
	for m := range 30 {
		_, ok, err := c.Count(ctx, "user:busy", ratelimit.WindowsAt(rules, start.Add(time.Duration(m)*time.Minute)))
		require.NoError(t, err)
		require.True(t, ok)
	}
	item := env.Item(t, dynamo.RateBucketKey("user:busy", start.Truncate(time.Hour)))
	require.NotNil(t, item)
	assert.EqualValues(t, 1, item["request@29"])
	assert.EqualValues(t, 1, item["feed@29"])
	assert.EqualValues(t, 30, item["like@0"])
	assert.NotContains(t, item, "request@27", "old minutes are dropped")
	assert.LessOrEqual(t, len(item), 10, "%v", item)
	assert.EqualValues(t, time.Date(2026, 3, 2, 10, 1, 0, 0, time.UTC).Unix(), item[dynamo.AttrTTL])
	assert.Equal(t, "RateBucket", item["type"])

	// The next hour is another record: counts start again.
	counts, ok, err := c.Count(ctx, "user:busy", ratelimit.WindowsAt(rules, start.Add(time.Hour)))
	require.NoError(t, err)
	assert.True(t, ok)
	assert.Equal(t, []int64{1, 1, 1}, counts)
}
