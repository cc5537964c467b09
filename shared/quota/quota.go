// Package quota is the free tier's monthly content quota: how many posts
// (lines and replies together) and reviews a free account may publish in a
// calendar month (UTC), reset on the 1st at 00:00 UTC. The counts live on
// the user item (read with the caller on every request, so the
// X-Monthly-* headers cost nothing) and are charged in the same
// transaction as the post they count, conditional on staying within the
// limit: concurrent posts cannot exceed it. docs/decisions.md explains the
// figures chosen from the spec's conflicting statements.
package quota

import (
	"context"
	"errors"
	"fmt"
	"math/rand/v2"
	"time"

	"github.com/bookplatform/backend/shared/apperr"
	"github.com/bookplatform/backend/shared/optimistic"
	"github.com/bookplatform/backend/shared/users"
)

// Kind is what a quota counts.
type Kind string

// Kinds.
const (
	Posts   Kind = "posts"   // lines and replies, counted together
	Reviews Kind = "reviews" // reviews (an update of one's review is not a new one)
)

// Policy holds the limits; they are configuration.
type Policy struct {
	FreePosts   int // per month; 0 or less: unlimited
	FreeReviews int
	UpgradeURL  string
}

// Month names the calendar month (UTC) of t, as stored: "2026-11".
func Month(t time.Time) string { return t.UTC().Format("2006-01") }

// ResetsAt is the start of the month after t's (UTC).
func ResetsAt(t time.Time) time.Time {
	y, m, _ := t.UTC().Date()
	return time.Date(y, m+1, 1, 0, 0, 0, 0, time.UTC)
}

// Usage is one user's standing against one quota.
type Usage struct {
	Kind      Kind
	Limited   bool // false for premium and bookstore tiers
	Limit     int
	Current   int // published this month
	ResetsAt  time.Time
	Month     string
	Remaining int
}

// Charge is what a store needs to count one more post in the post's own
// transaction: the user, the month, the month and count the caller's
// record showed (so the store can tell a first post of the month from a
// later one) and the limit (0: count without limit). A limited charge is
// conditional on the count being exactly Usage.Current, so that After
// is the count this very post made, not an estimate from a stale read.
type Charge struct {
	UserID    string
	Kind      Kind
	Month     string
	PrevMonth string // the month the user's stored counts belong to
	Limit     int
	Usage     Usage
}

// Usage returns u's standing against quota k at now.
func (p Policy) Usage(u *users.User, k Kind, now time.Time) Usage {
	month := Month(now)
	current := 0
	if u.QuotaMonth == month {
		current = u.MonthlyPosts
		if k == Reviews {
			current = u.MonthlyReviews
		}
	}
	limit := p.FreePosts
	if k == Reviews {
		limit = p.FreeReviews
	}
	use := Usage{Kind: k, Month: month, Current: current, ResetsAt: ResetsAt(now)}
	// Only the free tier is limited; an operator (the spec's admin,
	// listed with premium and bookstore as unlimited) is not, whatever
	// its tier.
	if u.Tier == users.TierFree && !u.Operator && limit > 0 {
		use.Limited, use.Limit = true, limit
		use.Remaining = max(limit-current, 0)
	}
	return use
}

// Charge returns the charge for one more post of kind k by u, or the
// monthly-limit error when u has none left.
func (p Policy) Charge(u *users.User, k Kind, now time.Time) (Charge, error) {
	use := p.Usage(u, k, now)
	if use.Limited && use.Remaining == 0 {
		return Charge{}, p.LimitReached(use)
	}
	c := Charge{UserID: u.ID, Kind: k, Month: use.Month, PrevMonth: u.QuotaMonth, Usage: use}
	if use.Limited {
		c.Limit = use.Limit
	}
	return c, nil
}

// After is the usage once the charge has been made.
func (c Charge) After() Usage {
	u := c.Usage
	u.Current++
	if u.Limited {
		u.Remaining = max(u.Limit-u.Current, 0)
	}
	return u
}

// LimitError is the refusal of a post beyond the monthly limit: the
// spec's 403 (its apperr.Error, which errors.As finds) and the usage that
// refused it, which the answer's X-Monthly-* headers report.
type LimitError struct {
	Usage Usage
	err   *apperr.Error
}

func (e *LimitError) Error() string { return e.err.Error() }

// Unwrap gives the 403.
func (e *LimitError) Unwrap() error { return e.err }

// LimitReached is the spec's 403 with the monthly_limit_reached body in
// the envelope's details, for usage u.
func (p Policy) LimitReached(u Usage) error {
	return &LimitError{Usage: u, err: p.limitBody(u)}
}

func (p Policy) limitBody(u Usage) *apperr.Error {
	what := "posts (lines and replies)"
	if u.Kind == Reviews {
		what = "reviews"
	}
	return apperr.Forbidden("Monthly limit of %d %s reached; it resets %s", u.Limit, what, u.ResetsAt.Format(time.RFC3339)).
		WithDetails(map[string]any{
			"error":      "monthly_limit_reached",
			"message":    fmt.Sprintf("Free accounts can publish %d %s a month. Upgrade for unlimited posting.", u.Limit, what),
			"kind":       string(u.Kind),
			"limit":      u.Limit,
			"current":    u.Current,
			"resetsAt":   u.ResetsAt.Format(time.RFC3339),
			"upgradeUrl": p.UpgradeURL,
		})
}

// ErrStale is what a store returns when a charge's condition failed: the
// user record changed since it was read (a concurrent post, or a new month).
var ErrStale = errors.New("quota: user record changed; re-read and retry")

// maxAttempts bounds the re-reads under contention; each failed attempt
// means another post of the same user went through (or the month
// turned). A limited user's charge is conditional on the exact count it
// read, so n concurrent posts of one account take up to n attempts: the
// per-action rate limits admit about ten at once.
const maxAttempts = 12

// backoff is the pause before attempt n (from 2): a random share of n
// times 5 ms, so that posts that lost the same race do not meet again.
func backoff(n int) time.Duration {
	return time.Duration(rand.Int64N(int64(n) * int64(5*time.Millisecond)))
}

// Reloader reads a user again, strongly consistent, after a charge lost a
// race.
type Reloader interface {
	GetUser(ctx context.Context, id string) (*users.User, error)
}

// Do publishes one post of kind k for u within the quota: it charges the
// freshest user record, calls post with the charge (which the store adds to
// the post's own transaction), and on ErrStale re-reads the user and tries
// again after a jittered pause, so concurrent posts at the edge never
// exceed the limit and each reports the count it made. A user
// whose record keeps changing under it (many posts of one account at
// once) gets apperr.ErrContention, a 503 with Retry-After, after
// maxAttempts: nothing was charged or posted. Errors: Forbidden
// (monthly_limit_reached), ErrContention, and whatever post returns. The
// usage returned includes the post.
func (p Policy) Do(ctx context.Context, r Reloader, u *users.User, k Kind, now time.Time, post func(Charge) error) (Usage, error) {
	var use Usage
	userID := u.ID
	err := optimistic.Retry(maxAttempts, func(attempt int) error {
		if attempt > 1 {
			select {
			case <-time.After(backoff(attempt)):
			case <-ctx.Done():
				return ctx.Err()
			}
			var err error
			if u, err = r.GetUser(ctx, userID); err != nil {
				return err
			}
		}
		c, err := p.Charge(u, k, now)
		if err != nil {
			return err
		}
		use = c.After()
		return post(c)
	}, ErrStale)
	if errors.Is(err, apperr.ErrContention) {
		return Usage{}, fmt.Errorf("charge %s of %s: %w", k, userID, err)
	}
	if err != nil {
		return Usage{}, err
	}
	return use, nil
}
