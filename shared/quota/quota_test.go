package quota

import (
	"context"
	"errors"
	"testing"
	"time"

	"github.com/bookplatform/backend/shared/apperr"
	"github.com/bookplatform/backend/shared/users"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

var (
	policy = Policy{FreePosts: 3, FreeReviews: 2, UpgradeURL: "https://up.example"}
	now    = time.Date(2026, 11, 21, 23, 59, 0, 0, time.UTC)
)

func TestUsage(t *testing.T) {
	free := &users.User{ID: "u", Tier: users.TierFree, QuotaMonth: "2026-11", MonthlyPosts: 2, MonthlyReviews: 1}
	u := policy.Usage(free, Posts, now)
	assert.True(t, u.Limited)
	assert.Equal(t, 3, u.Limit)
	assert.Equal(t, 2, u.Current)
	assert.Equal(t, 1, u.Remaining)
	assert.Equal(t, time.Date(2026, 12, 1, 0, 0, 0, 0, time.UTC), u.ResetsAt)
	assert.Equal(t, 1, policy.Usage(free, Reviews, now).Remaining)

	// Counts of an earlier month are spent: the 1st resets them.
	u = policy.Usage(free, Posts, time.Date(2026, 12, 1, 0, 0, 0, 0, time.UTC))
	assert.Equal(t, 0, u.Current)
	assert.Equal(t, 3, u.Remaining)

	premium := &users.User{ID: "p", Tier: users.TierPremium, QuotaMonth: "2026-11", MonthlyPosts: 900}
	assert.False(t, policy.Usage(premium, Posts, now).Limited)

	// An operator on the free tier (the spec's admin) is unlimited too.
	operator := &users.User{ID: "o", Tier: users.TierFree, Operator: true, QuotaMonth: "2026-11", MonthlyPosts: 900, MonthlyReviews: 900}
	assert.False(t, policy.Usage(operator, Posts, now).Limited)
	assert.False(t, policy.Usage(operator, Reviews, now).Limited)
	c, err := policy.Charge(operator, Posts, now)
	require.NoError(t, err)
	assert.Zero(t, c.Limit)
}

func TestCharge_LimitReachedBody(t *testing.T) {
	full := &users.User{ID: "u", Tier: users.TierFree, QuotaMonth: "2026-11", MonthlyPosts: 3}
	_, err := policy.Charge(full, Posts, now)
	e, ok := apperr.As(err)
	require.True(t, ok)
	assert.Equal(t, apperr.CodeForbidden, e.Code)
	assert.Equal(t, "monthly_limit_reached", e.Details["error"])
	assert.Equal(t, 3, e.Details["limit"])
	assert.Equal(t, 3, e.Details["current"])
	assert.Equal(t, "2026-12-01T00:00:00Z", e.Details["resetsAt"])
	assert.Equal(t, "https://up.example", e.Details["upgradeUrl"])
	assert.NotEmpty(t, e.Details["message"])
}

// reloader returns a fixed record, as a consistent re-read would.
type reloader struct{ u *users.User }

func (r reloader) GetUser(context.Context, string) (*users.User, error) { c := *r.u; return &c, nil }

func TestDo_RetriesOnStaleRecord(t *testing.T) {
	u := &users.User{ID: "u", Tier: users.TierFree, QuotaMonth: "2026-11", MonthlyPosts: 1}
	stored := *u
	stored.MonthlyPosts = 2 // a concurrent post went through meanwhile
	var charges []Charge
	use, err := policy.Do(context.Background(), reloader{&stored}, u, Posts, now, func(c Charge) error {
		charges = append(charges, c)
		if len(charges) == 1 {
			return ErrStale
		}
		return nil
	})
	require.NoError(t, err)
	require.Len(t, charges, 2)
	assert.Equal(t, 1, charges[0].Usage.Current)
	assert.Equal(t, 2, charges[1].Usage.Current, "the retry charges the fresh record")
	assert.Equal(t, 3, use.Current)
	assert.Equal(t, 0, use.Remaining)

	// A stale retry that finds the quota spent answers the limit.
	stored.MonthlyPosts = 3
	_, err = policy.Do(context.Background(), reloader{&stored}, u, Posts, now, func(Charge) error { return ErrStale })
	assert.Equal(t, apperr.CodeForbidden, apperr.CodeOf(err))

	// Other errors pass through untouched.
	boom := errors.New("boom")
	_, err = policy.Do(context.Background(), nil, u, Posts, now, func(Charge) error { return boom })
	assert.ErrorIs(t, err, boom)
}

// A record that changes under every attempt (one account posting from
// many clients at once) is contention: a 503 with Retry-After, never a
// 500, after a bounded number of tries.
func TestDo_ContentionIsRetryLater(t *testing.T) {
	premium := &users.User{ID: "p", Tier: users.TierPremium, QuotaMonth: "2026-11"}
	attempts := 0
	_, err := policy.Do(context.Background(), reloader{premium}, premium, Posts, now, func(Charge) error {
		attempts++
		return ErrStale
	})
	assert.ErrorIs(t, err, apperr.ErrContention)
	assert.Equal(t, maxAttempts, attempts)
	e, ok := apperr.As(err)
	require.True(t, ok)
	assert.Equal(t, apperr.CodeUnavailable, e.Code)
	assert.Positive(t, e.RetryAfter)
}

func TestCharge_NewMonthResets(t *testing.T) {
	u := &users.User{ID: "u", Tier: users.TierFree, QuotaMonth: "2026-10", MonthlyPosts: 3}
	c, err := policy.Charge(u, Posts, now)
	require.NoError(t, err)
	assert.Equal(t, "2026-11", c.Month)
	assert.Equal(t, "2026-10", c.PrevMonth)
	assert.Equal(t, 3, c.Limit)
}
