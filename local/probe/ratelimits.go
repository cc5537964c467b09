package main

import (
	"fmt"
	"math"
	"strings"
	"time"

	"golang.org/x/sync/errgroup"
)

// parallel sends n requests, width at a time, and returns the answers in
// the order of i.
func parallel(n, width int, f func(i int) *answer) []*answer {
	out := make([]*answer, n)
	var g errgroup.Group
	g.SetLimit(width)
	for i := range n {
		g.Go(func() error { out[i] = f(i); return nil })
	}
	_ = g.Wait()
	return out
}

// check429 checks a rate-limit refusal: the stated body in details,
// Retry-After and the X-RateLimit headers of the refusing rule. It returns
// the problems found.
func check429(a *answer, action string, maxWindow time.Duration) []string {
	var bad []string
	if a.status != 429 {
		return []string{"status " + a.short()}
	}
	e, _ := a.env()
	if e.Code != "RATE_LIMITED" {
		bad = append(bad, "code "+e.Code)
	}
	if str(e.Details["error"]) != "rate_limit_exceeded" {
		bad = append(bad, fmt.Sprintf("details.error %v", e.Details["error"]))
	}
	if act := str(e.Details["action"]); act != action {
		bad = append(bad, "details.action "+act)
	}
	if rem, ok := num(e.Details["remaining"]); !ok || rem != 0 {
		bad = append(bad, fmt.Sprintf("details.remaining %v", e.Details["remaining"]))
	}
	if _, ok := num(e.Details["limit"]); !ok {
		bad = append(bad, fmt.Sprintf("details.limit %v", e.Details["limit"]))
	}
	ms, ok := num(e.Details["retryAfter"])
	if !ok || ms <= 0 || ms > float64(maxWindow.Milliseconds()) {
		bad = append(bad, fmt.Sprintf("details.retryAfter %v ms", e.Details["retryAfter"]))
	}
	ra, ok := a.intHeader("Retry-After")
	switch {
	case !ok || ra <= 0 || time.Duration(ra)*time.Second > maxWindow+time.Second:
		bad = append(bad, "Retry-After "+a.header.Get("Retry-After"))
	case math.Abs(float64(ra)-ms/1000) > 1.01:
		bad = append(bad, fmt.Sprintf("Retry-After %ds vs details.retryAfter %.0fms", ra, ms))
	}
	return bad
}

// rateLimits: finding 1. A burst of posts by one free user is refused
// with 429 create_line once the minute's budget is spent; refused and
// unserved (400) requests consume no per-action budget.
func (r *run) rateLimits() {
	if r.book == "" {
		return
	}
	u := r.mustSignup("burst", "rl-burst", "rl-burst-429")
	if u != nil {
		r.burst(u)
	}

	v := r.mustSignup("bad400", "rl-400s-refunded")
	if v == nil {
		return
	}
	waitForWindow(time.Minute, 20*time.Second, "rl-400s-refunded")
	start := time.Now()
	var rem []string
	n400 := 0
	for i := range 10 {
		a := r.p.send(request{method: "POST", path: "/v1/lines", token: v.token,
			json: map[string]any{"bookId": "not-a-uuid", "content": fmt.Sprintf("probe bad book %d", i)}})
		if a.status == 400 {
			n400++
		}
		rem = append(rem, a.header.Get("X-RateLimit-Remaining"))
	}
	ok := r.postLine(v, "probe after ten 400s")
	crossed := ""
	if time.Now().Truncate(time.Minute) != start.Truncate(time.Minute) {
		crossed = " (the clock minute changed during the probe: inconclusive)"
	}
	lim, _ := ok.intHeader("X-RateLimit-Limit")
	left, _ := ok.intHeader("X-RateLimit-Remaining")
	r.report(result{name: "rl-400s-refunded", verdict: pass(n400 == 10 && ok.status == 201 && lim == 10 && left == 9),
		sent: "10× POST /v1/lines {bookId:\"not-a-uuid\"} then 1 valid POST /v1/lines, one fresh free user, one clock minute",
		got: fmt.Sprintf("%d×400 (their X-RateLimit-Remaining: %s); valid post %s %s%s",
			n400, strings.Join(rem, ","), ok.short(), ok.hdr("X-RateLimit-Limit", "X-RateLimit-Remaining"), crossed),
		want: "10×400, then 201 with X-RateLimit-Limit=10 X-RateLimit-Remaining=9 (create_line budget untouched by the 400s)"})
}

func (r *run) burst(u *account) {
	waitForWindow(time.Minute, 20*time.Second, "rl-burst")
	start := time.Now()
	as := parallel(60, 10, func(i int) *answer { return r.postLine(u, fmt.Sprintf("probe burst line %d", i)) })
	end := time.Now()
	var n201, n429 int
	var first429 *answer
	for _, a := range as {
		switch a.status {
		case 201:
			n201++
		case 429:
			n429++
			if first429 == nil {
				first429 = a
			}
		}
	}
	sameMinute := start.Truncate(time.Minute) == end.Truncate(time.Minute)
	want := "10×201 and 50×429 (create_line: 10 a minute)"
	ok := n201+n429 == 60 && n429 > 0
	if sameMinute {
		ok = ok && n201 == 10
	} else {
		want += "; the burst crossed a clock minute, so 11-20×201 accepted"
		ok = ok && n201 >= 10 && n201 <= 20
	}
	r.report(result{name: "rl-burst", verdict: pass(ok),
		sent: "60× POST /v1/lines (10 at a time) by one fresh free user",
		got:  fmt.Sprintf("%s in %s", statusCounts(as), end.Sub(start).Round(time.Millisecond)), want: want})

	var bad []string
	for _, a := range as {
		if a.status != 429 {
			continue
		}
		p := check429(a, "create_line", time.Minute)
		if lim, _ := num(a.detail("limit")); lim != 10 {
			p = append(p, fmt.Sprintf("details.limit %v", a.detail("limit")))
		}
		if a.header.Get("X-RateLimit-Limit") != "10" || a.header.Get("X-RateLimit-Remaining") != "0" {
			p = append(p, a.hdr("X-RateLimit-Limit", "X-RateLimit-Remaining"))
		}
		if len(p) > 0 && len(bad) < 3 {
			bad = append(bad, strings.Join(p, ", "))
		}
	}
	got := "no 429"
	if first429 != nil {
		e, _ := first429.env()
		got = fmt.Sprintf("first: %s details=%v %s", first429.short(), e.Details,
			first429.hdr("Retry-After", "X-RateLimit-Limit", "X-RateLimit-Remaining", "X-RateLimit-Reset"))
		if len(bad) > 0 {
			got += "; problems: " + strings.Join(bad, "; ")
		}
	}
	r.report(result{name: "rl-burst-429", verdict: pass(first429 != nil && len(bad) == 0),
		sent: "the 429s of rl-burst", got: got,
		want: "each 429 RATE_LIMITED, details {error:rate_limit_exceeded, action:create_line, limit:10, remaining:0, retryAfter ≤60000ms}, Retry-After ≈ retryAfter, X-RateLimit-Limit=10 X-RateLimit-Remaining=0"})

	resetAt := end.Truncate(time.Minute).Add(time.Minute)
	if first429 != nil {
		if reset, ok := first429.intHeader("X-RateLimit-Reset"); ok {
			resetAt = time.Unix(reset, 0)
		}
	}
	r.slowly("rl-after-burst", "one post by the burst user once the burst's minute has passed", func() []result {
		time.Sleep(time.Until(resetAt) + 1500*time.Millisecond)
		a := r.postLine(u, "probe post after the burst's minute")
		return []result{{name: "rl-after-burst", verdict: pass(a.status == 201),
			sent: fmt.Sprintf("POST /v1/lines by the burst user at %s (after its minute ended at %s)",
				time.Now().UTC().Format("15:04:05"), resetAt.UTC().Format("15:04:05")),
			got:  fmt.Sprintf("%s %s details.action=%v", a.short(), a.hdr("X-RateLimit-Limit", "X-RateLimit-Remaining"), a.detail("action")),
			want: "201: the 50 refused posts consumed no create_line_hourly budget (10 of 50 used)"}}
	})
}
