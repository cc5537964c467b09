package dynamo_test

import (
	"context"
	"testing"
	"time"

	"github.com/bookplatform/backend/local/testenv"
	"github.com/bookplatform/backend/shared/audit"
	"github.com/bookplatform/backend/shared/dynamo"
	"github.com/bookplatform/backend/shared/ids"
	"github.com/bookplatform/backend/shared/ratelimit"
	"github.com/bookplatform/backend/shared/users"
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

// A limit reset whose bucket goes between its read and its transaction
// (its hour ended, or another operator's reset of all deleted it) has
// nothing left to clear: it succeeds, with 0 cleared and its audit entry
// in its transaction, instead of failing.
func TestCounters_ResetUserBucketGone(t *testing.T) {
	env := testenv.New(t)
	c := dynamo.NewCounters(env.App.Table)
	mia := env.Signup(t, "mia")
	now := time.Date(2026, 3, 2, 9, 30, 10, 0, time.UTC)
	scope := "user:" + mia.ID
	ws := ratelimit.WindowsAt([]ratelimit.Rule{ratelimit.Actions["create_line"]}, now)
	_, ok, err := c.Count(t.Context(), scope, ws)
	require.NoError(t, err)
	require.True(t, ok)
	bucket := dynamo.RateBucketKey(scope, now.Truncate(ratelimit.Bucket))

	ctx, rec := audit.With(t.Context(), audit.Entry{ActorID: "op-1", Action: audit.ActionRateLimitsReset,
		TargetType: audit.TargetUser, TargetID: mia.ID}, now, ids.New)
	n, err := c.ResetUserBetween(ctx, mia.ID, "create_line", now, func() { env.DeleteItem(t, bucket) })
	require.NoError(t, err)
	assert.Equal(t, 0, n, "nothing was left to clear")
	assert.True(t, rec.Written(), "the entry rode the reset's transaction")
	assert.Empty(t, env.Item(t, bucket), "no item made by the reset")

	// Counted again, the next reset clears it as ever.
	_, _, err = c.Count(t.Context(), scope, ws)
	require.NoError(t, err)
	n, err = c.ResetUserBetween(t.Context(), mia.ID, "create_line", now, nil)
	require.NoError(t, err)
	assert.Equal(t, 1, n)
	// An unknown account is still not found, bucket or none.
	_, err = c.ResetUserBetween(t.Context(), "0193a8c4-2f6e-7d1a-9b3c-5e7f9a1b3c5d", "create_line", now, nil)
	assert.ErrorIs(t, err, users.ErrNotFound)
}
