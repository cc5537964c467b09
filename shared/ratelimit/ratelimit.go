// Package ratelimit decides whether a request is within its limits. The
// rules are here (the spec's per-tier rates and per-action limits); the
// counting happens in a Counter (DynamoDB in production: all of a
// caller's windows in one item, one conditional write per request), so a
// new per-action limit is one entry in Actions and one name on a route.
//
// What counts (docs/decisions.md, "Rate limits"):
//   - A request is counted in all its windows at once, and only if every
//     one of them stays within its limit: a request refused by one limit
//     consumes no other limit's budget, and a refused request counts
//     nowhere, so no client is refused longer than the window of the rule
//     it exceeded.
//   - The per-tier request rate counts every admitted request, whatever
//     its answer, so a flood of invalid requests still costs the flooder.
//   - A per-action limit counts requests that were served: when the
//     handler answers an error (a 400 for a bad field, a 403 for the
//     monthly quota, a 404), the action's budget is given back.
package ratelimit

import (
	"context"
	"time"

	"github.com/bookplatform/backend/shared/apperr"
)

// Rule is one limit: at most Limit hits per Window for one scope.
type Rule struct {
	Name   string // the action, or "request" for the per-tier rate
	Limit  int64
	Window time.Duration
}

// RequestAction names the per-tier request-rate rule.
const RequestAction = "request"

// PasswordAction names the limit on attempts with a password for one
// account (sign-ins by email, password changes), which the accounts
// service keeps apart from the request-rate rules.
const PasswordAction = "password_attempts"

// Bucket is the period one counter record covers: every rule's window
// divides it, so a caller's windows of one hour live in one record.
const Bucket = time.Hour

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

// TierRule returns the per-tier request-rate rule for a rate tier; an
// unknown tier gets the guest rate.
func TierRule(tier string) Rule {
	limit, ok := TierRates[tier]
	if !ok {
		limit = TierRates[TierGuest]
	}
	return Rule{Name: RequestAction, Limit: limit, Window: time.Minute}
}

// Window is the window of one rule that holds a request's time.
type Window struct {
	Rule  Rule
	Start time.Time
}

// End is when the window closes and its count starts again from zero.
func (w Window) End() time.Time { return w.Start.Add(w.Rule.Window) }

// WindowsAt returns the window of each rule that holds now (fixed
// windows aligned to the clock: a minute rule's window is the clock
// minute).
func WindowsAt(rules []Rule, now time.Time) []Window {
	ws := make([]Window, len(rules))
	for i, r := range rules {
		ws[i] = Window{Rule: r, Start: now.Truncate(r.Window)}
	}
	return ws
}

// Counter counts a caller's requests in windows.
type Counter interface {
	// Count adds one to the count of every window of ws, in one
	// conditional write, if every count stays within its rule's limit;
	// otherwise it changes nothing and admitted is false. counts are the
	// windows' counts: after the write when admitted, as they stood when
	// refused.
	Count(ctx context.Context, scope string, ws []Window) (counts []int64, admitted bool, err error)
	// Refund takes one back from the count of every window of ws (a
	// request counted, then refused or not served).
	Refund(ctx context.Context, scope string, ws []Window) error
}

// Result is the outcome of one rule for one request.
type Result struct {
	Rule      Rule
	Count     int64
	Remaining int64
	Reset     time.Time // end of the current window
	Allowed   bool
}

// Results turns a Count's answer into one Result per window. Admitted,
// every rule allowed the request and counts include it; refused, the
// rules whose count had reached their limit are the ones that refused
// it. A counter failure is passed as counts nil: fail open, every rule
// allows with its full allowance.
func Results(ws []Window, counts []int64, admitted bool) []Result {
	out := make([]Result, len(ws))
	for i, w := range ws {
		r := Result{Rule: w.Rule, Reset: w.End(), Allowed: true, Remaining: w.Rule.Limit}
		if counts != nil {
			r.Count = counts[i]
			r.Remaining = max(w.Rule.Limit-r.Count, 0)
			r.Allowed = admitted || r.Count < w.Rule.Limit
		}
		out[i] = r
	}
	return out
}

// Refusal returns the result to report for a refused request: of the
// rules that refused it, the one that frees up last (the request is
// admitted again only once all of them have); ok is false when every
// rule allowed it.
func Refusal(results []Result) (Result, bool) {
	var worst Result
	found := false
	for _, r := range results {
		if !r.Allowed && (!found || r.Reset.After(worst.Reset)) {
			worst, found = r, true
		}
	}
	return worst, found
}

// Tightest returns the result to report in headers: a refused one if any
// (Refusal), else the one with the fewest remaining.
func Tightest(results []Result) Result {
	if r, ok := Refusal(results); ok {
		return r
	}
	var best Result
	for i, r := range results {
		if i == 0 || r.Remaining < best.Remaining {
			best = r
		}
	}
	return best
}

// Exceeded is the 429 of a request refused by a limit: message in the
// envelope, the spec's rate_limit_exceeded body in its details, and
// Retry-After in retry. Every rate limit answers with it: the router's
// rules and the accounts' password attempts (PasswordAction).
func Exceeded(action string, limit int64, retry time.Duration, message string) error {
	return &apperr.Error{
		Code:       apperr.CodeRateLimited,
		Message:    message,
		RetryAfter: retry,
		Details: map[string]any{
			"error":      "rate_limit_exceeded",
			"action":     action,
			"retryAfter": retry.Milliseconds(),
			"limit":      limit,
			"remaining":  0,
		},
	}
}
