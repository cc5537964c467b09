package httpapi

import (
	"errors"
	"fmt"
	"net"
	"net/http"
	"strconv"
	"time"

	"github.com/bookplatform/backend/shared/apperr"
	"github.com/bookplatform/backend/shared/quota"
	"github.com/bookplatform/backend/shared/ratelimit"
)

// routeRules lists the limits a route counts against: the tier rate
// (whose limit is fixed once the caller's tier is known) first, then the
// route's actions. It fails on an unknown action name.
func routeRules(route *Route) ([]ratelimit.Rule, error) {
	var rules []ratelimit.Rule
	if !route.Unmetered {
		rules = append(rules, ratelimit.TierRule(ratelimit.TierGuest))
	}
	for _, a := range route.Actions {
		rule, ok := ratelimit.Actions[a]
		if !ok {
			return nil, fmt.Errorf("route %s %s names unknown rate-limit action %q", route.Method, route.Path, a)
		}
		rules = append(rules, rule)
	}
	return rules, nil
}

// routeRulesFor is routeRules with the tier rate of tier.
func routeRulesFor(route *Route, tier string) []ratelimit.Rule {
	rules, _ := routeRules(route) // checked by NewRouter
	if !route.Unmetered {
		rules[0] = ratelimit.TierRule(tier)
	}
	return rules
}

// rateLimited is the 429 of a refused request (ratelimit.Exceeded),
// Retry-After until the refusing rule's window ends.
func rateLimited(t ratelimit.Result, now time.Time) error {
	return ratelimit.Exceeded(t.Rule.Name, t.Rule.Limit, t.Reset.Sub(now),
		fmt.Sprintf("Rate limit exceeded for %s: %d per %s", t.Rule.Name, t.Rule.Limit, t.Rule.Window))
}

// setRateHeaders reports the tightest rule in the X-RateLimit headers.
func setRateHeaders(h http.Header, results []ratelimit.Result, now time.Time) {
	if len(results) == 0 {
		return
	}
	t := ratelimit.Tightest(results)
	h.Set("X-RateLimit-Limit", strconv.FormatInt(t.Rule.Limit, 10))
	h.Set("X-RateLimit-Remaining", strconv.FormatInt(t.Remaining, 10))
	h.Set("X-RateLimit-Reset", strconv.FormatInt(t.Reset.Unix(), 10))
}

// setRefusalHeaders makes the X-RateLimit headers of a 429 describe the
// limit that refused the request, as its body does (ratelimit.Exceeded):
// that limit, none remaining, reset when its window ends. It may be no
// limit the router counted (an account's password attempts, which the
// users service counts), and the tightest of those the router counted
// would then contradict the body (limit 60, remaining 6 beside limit 10,
// remaining 0). Any other error leaves the headers as they are.
func setRefusalHeaders(h http.Header, err error, now time.Time) {
	var ae *apperr.Error
	if !errors.As(err, &ae) || ae.Code != apperr.CodeRateLimited {
		return
	}
	limit, ok := ae.Details["limit"].(int64)
	if !ok {
		return
	}
	h.Set("X-RateLimit-Limit", strconv.FormatInt(limit, 10))
	h.Set("X-RateLimit-Remaining", "0")
	// Rounded up, as Retry-After is: a client that waits until then is
	// past the window.
	reset := now.Add(ae.RetryAfter)
	if reset.Truncate(time.Second).Before(reset) {
		reset = reset.Truncate(time.Second).Add(time.Second)
	}
	h.Set("X-RateLimit-Reset", strconv.FormatInt(reset.Unix(), 10))
}

// addressScope is the identity of a caller without an account of its
// own: its address. The anonymous (and guest) rate limits count under it,
// and anonymous idempotency keys are scoped by it.
func addressScope(r *http.Request) string { return "ip:" + clientIP(r) }

// clientIP is the caller's address: API Gateway's source IP in Lambda (the
// adapter puts it in RemoteAddr), the socket peer locally. Forwarded
// headers are not trusted: a client could set them.
func clientIP(r *http.Request) string {
	if host, _, err := net.SplitHostPort(r.RemoteAddr); err == nil {
		return host
	}
	return r.RemoteAddr
}

// SetMonthlyHeaders reports a free-tier caller's monthly quota
// (X-Monthly-Limit, X-Monthly-Remaining, X-Monthly-Reset); a no-op for
// unlimited tiers. The router sets them from the caller record on every
// response; a handler that just published calls it to count that post.
func SetMonthlyHeaders(w http.ResponseWriter, u quota.Usage) {
	if !u.Limited {
		return
	}
	h := w.Header()
	h.Set("X-Monthly-Limit", strconv.Itoa(u.Limit))
	h.Set("X-Monthly-Remaining", strconv.Itoa(u.Remaining))
	h.Set("X-Monthly-Reset", u.ResetsAt.Format(time.RFC3339))
}
