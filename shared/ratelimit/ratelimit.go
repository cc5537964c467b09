// Package ratelimit decides whether a request is within its limits. Counting
// happens in a Counter (DynamoDB in production: one atomic ADD per window);
// this package holds the rules and the decision, so a new per-action limit
// is one entry in Actions and one name on a route.
package ratelimit

import (
	"context"
	"time"
)

// Rule is one limit: at most Limit hits per Window for one scope.
type Rule struct {
	Name   string // the action, or "request" for the per-tier rate
	Limit  int64
	Window time.Duration
}

// RequestAction names the per-tier request-rate rule.
const RequestAction = "request"

// TierGuest is the request-rate tier for guest accounts and anonymous callers.
const TierGuest = "guest"

// TierRates is the per-tier request rate per minute (spec: Limits).
var TierRates = map[string]int64{
	TierGuest:   60,
	"free":      120,
	"premium":   300,
	"bookstore": 600,
}

// Actions are the per-action limits of the spec. A route names the actions
// it counts against; each is enforced beside the tier rate.
var Actions = map[string]Rule{
	"create_line":        {Name: "create_line", Limit: 10, Window: time.Minute},
	"create_line_hourly": {Name: "create_line_hourly", Limit: 50, Window: time.Hour},
	"create_review":      {Name: "create_review", Limit: 5, Window: time.Hour},
	"follow_user":        {Name: "follow_user", Limit: 30, Window: time.Hour},
	"like":               {Name: "like", Limit: 100, Window: time.Hour},
	"report":             {Name: "report", Limit: 10, Window: time.Hour},
	"search":             {Name: "search", Limit: 60, Window: time.Minute},
	"feed":               {Name: "feed", Limit: 120, Window: time.Minute},
}

// TierRule returns the per-tier request-rate rule for a rate tier.
func TierRule(tier string) Rule {
	limit, ok := TierRates[tier]
	if !ok {
		limit = TierRates[TierGuest]
	}
	return Rule{Name: RequestAction, Limit: limit, Window: time.Minute}
}

// Counter counts hits in fixed windows. Incr adds one to the counter of
// (scope, action, window start) and returns the new count; the record
// expires after the window.
type Counter interface {
	Incr(ctx context.Context, scope, action string, windowStart time.Time, expires time.Time) (int64, error)
}

// WindowStart returns the start of the fixed window holding now.
func WindowStart(now time.Time, window time.Duration) time.Time {
	return now.Truncate(window)
}

// Result is the outcome of one rule for one request.
type Result struct {
	Rule      Rule
	Count     int64
	Remaining int64
	Reset     time.Time // end of the current window
	Allowed   bool
}

// Decide turns a count into a Result. A counter failure is passed as
// count < 0 and always allows (fail open).
func Decide(rule Rule, count int64, now time.Time) Result {
	reset := WindowStart(now, rule.Window).Add(rule.Window)
	if count < 0 {
		return Result{Rule: rule, Count: 0, Remaining: rule.Limit, Reset: reset, Allowed: true}
	}
	rem := rule.Limit - count
	if rem < 0 {
		rem = 0
	}
	return Result{Rule: rule, Count: count, Remaining: rem, Reset: reset, Allowed: count <= rule.Limit}
}

// Tightest returns the result to report in headers: a refused one if any
// (the one that frees up last), else the one with the fewest remaining.
func Tightest(results []Result) Result {
	var best Result
	for i, r := range results {
		switch {
		case i == 0:
			best = r
		case !r.Allowed && best.Allowed:
			best = r
		case !r.Allowed && !best.Allowed && r.Reset.After(best.Reset):
			best = r
		case r.Allowed && best.Allowed && r.Remaining < best.Remaining:
			best = r
		}
	}
	return best
}
