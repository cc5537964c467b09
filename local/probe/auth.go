package main

import (
	"fmt"
	"regexp"
	"sort"
	"strings"
	"sync"
	"time"
)

// maxAttempts bounds the wrong passwords a throttle probe sends before
// giving up on seeing a 429.
const maxAttempts = 30

// throttled is a run of wrong passwords up to the first 429.
type throttled struct {
	n401     int
	first401 *answer
	refusal  *answer // the 429, or the answer that ended the run
}

// until429 repeats send until it answers something other than 401.
func until429(send func() *answer) throttled {
	var t throttled
	for range maxAttempts {
		a := send()
		if a.status != 401 {
			t.refusal = a
			return t
		}
		t.n401++
		if t.first401 == nil {
			t.first401 = a
		}
		t.refusal = a
	}
	return t
}

func (t throttled) String() string {
	e, _ := t.refusal.env()
	return fmt.Sprintf("%d×401 then %s details=%v %s", t.n401, t.refusal.short(), e.Details, t.refusal.hdr("Retry-After"))
}

// checkThrottle checks a password-attempt 429 after n 401s.
func checkThrottle(t throttled) []string {
	bad := check429(t.refusal, "password_attempts", 24*time.Hour)
	if lim, ok := num(t.refusal.detail("limit")); t.refusal.status == 429 && (!ok || int(lim) != t.n401) {
		bad = append(bad, fmt.Sprintf("details.limit %v after %d wrong passwords", t.refusal.detail("limit"), t.n401))
	}
	return bad
}

var digits = regexp.MustCompile(`[0-9]+`)

// shape is what must be identical between two answers: status, code,
// name, message (numbers aside) and the details' keys, action and limit.
func shape(a *answer) string {
	e, _ := a.env()
	keys := make([]string, 0, len(e.Details))
	for k := range e.Details {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	return fmt.Sprintf("%d %s %s %q details%v action=%v limit=%v Retry-After:%v", a.status, e.Code, e.Name,
		digits.ReplaceAllString(e.Message, "#"), keys, e.Details["action"], e.Details["limit"], a.header.Get("Retry-After") != "")
}

// passwordAttempts: finding 2. Wrong passwords for one account are
// refused with 429 password_attempts after the limit, the same for an
// unknown email; then the right password too; and a password change with
// a wrong current password.
func (r *run) passwordAttempts() {
	names := []string{"login-throttle", "login-throttle-unknown", "login-throttle-right-pw", "password-change-throttle"}
	u := r.mustSignup("login", names...)
	if u == nil {
		return
	}
	// The attempts are counted in fixed windows (default 15 minutes):
	// all of a run must fall in one.
	waitForWindow(15*time.Minute, 45*time.Second, "login-throttle")
	login := func(email, password string) *answer {
		return r.p.send(request{method: "POST", path: "/v1/auth/login", json: map[string]string{"email": email, "password": password}})
	}
	known := until429(func() *answer { return login(u.email, "wrong-password-1") })
	bad := checkThrottle(known)
	r.report(result{name: "login-throttle", verdict: pass(len(bad) == 0 && known.n401 > 0),
		sent: "POST /v1/auth/login {email of a fresh account, wrong password} until not 401",
		got:  known.String() + problems(bad),
		want: "N×401 (N = details.limit, default 10 per 15 min) then 429 RATE_LIMITED with Retry-After, details {error:rate_limit_exceeded, action:password_attempts, limit:N, remaining:0, retryAfter}"})

	unknownEmail := "probe.nobody." + randHex(4) + "@example.com"
	unknown := until429(func() *answer { return login(unknownEmail, "wrong-password-1") })
	bad = checkThrottle(unknown)
	if known.n401 != unknown.n401 {
		bad = append(bad, fmt.Sprintf("%d×401 for the unknown email, %d for the account", unknown.n401, known.n401))
	}
	if known.first401 != nil && unknown.first401 != nil && shape(known.first401) != shape(unknown.first401) {
		bad = append(bad, fmt.Sprintf("401s differ: account %s / unknown %s", shape(known.first401), shape(unknown.first401)))
	}
	if shape(known.refusal) != shape(unknown.refusal) {
		bad = append(bad, fmt.Sprintf("429s differ: account %s / unknown %s", shape(known.refusal), shape(unknown.refusal)))
	}
	r.report(result{name: "login-throttle-unknown", verdict: pass(len(bad) == 0),
		sent: "POST /v1/auth/login {unknown email, wrong password} until not 401",
		got:  unknown.String() + problems(bad),
		want: "exactly as login-throttle: same count of 401s, same 401 and 429 (status, code, name, message, details keys, action, limit, Retry-After)"})

	right := login(u.email, u.password)
	bad = check429(right, "password_attempts", 24*time.Hour)
	r.report(result{name: "login-throttle-right-pw", verdict: pass(len(bad) == 0),
		sent: "POST /v1/auth/login {the account's right password} right after login-throttle",
		got:  fmt.Sprintf("%s action=%v %s", right.short(), right.detail("action"), right.hdr("Retry-After")) + problems(bad),
		want: "429 password_attempts with Retry-After until the window passes (the passing of the window is not probed: up to 15 min)"})

	change := until429(func() *answer {
		return r.p.send(request{method: "PUT", path: "/v1/users/me/password", token: u.token,
			json: map[string]string{"currentPassword": "wrong-password-1", "newPassword": "probe-new-password-1"}})
	})
	bad = checkThrottle(change)
	r.report(result{name: "password-change-throttle", verdict: pass(len(bad) == 0 && change.n401 > 0),
		sent: "PUT /v1/users/me/password {wrong currentPassword, valid newPassword} until not 401",
		got:  change.String() + problems(bad),
		want: "N×401 then 429 password_attempts with Retry-After, as login-throttle"})
}

func problems(bad []string) string {
	if len(bad) == 0 {
		return ""
	}
	return "; problems: " + strings.Join(bad, "; ")
}

// refreshRace: finding 3. Ten refreshes with one token at once all
// succeed within the reuse interval and their tokens work; presenting
// the token again after the interval ends the session (-slow).
func (r *run) refreshRace() {
	u := r.mustSignup("refresh", "refresh-race", "refresh-race-tokens")
	if u == nil {
		return
	}
	refresh := func(tok string, paced bool) *answer {
		return r.p.send(request{method: "POST", path: "/v1/auth/refresh", json: map[string]string{"refreshToken": tok}, paced: paced})
	}
	r.p.pace.take(10)
	raceAt := time.Now()
	as := parallel(10, 10, func(int) *answer { return refresh(u.refresh, true) })
	var access, next []string
	seen := map[string]bool{}
	n200 := 0
	for _, a := range as {
		m := a.obj()
		t, rt := str(m["token"]), str(m["refreshToken"])
		if a.status == 200 && t != "" && rt != "" {
			n200++
			access, next = append(access, t), append(next, rt)
			seen[rt] = true
		}
	}
	r.report(result{name: "refresh-race", verdict: pass(n200 == 10 && len(seen) == 10),
		sent: "10× POST /v1/auth/refresh {refreshToken: R0} at once (R0 from a fresh sign-up)",
		got:  fmt.Sprintf("%s, %d distinct new refresh tokens", statusCounts(as), len(seen)),
		want: "10×200, each with token and its own refreshToken"})

	var mu sync.Mutex
	okMe, failMe := 0, []string{}
	parallel(len(access), 10, func(i int) *answer {
		a := r.p.send(request{method: "GET", path: "/v1/users/me", token: access[i]})
		mu.Lock()
		defer mu.Unlock()
		if a.status == 200 && str(a.obj()["id"]) == u.id {
			okMe++
		} else {
			failMe = append(failMe, a.short())
		}
		return a
	})
	var again *answer
	newest := ""
	if len(next) > 0 {
		again = refresh(next[0], false)
		newest = str(again.obj()["refreshToken"])
	}
	r.report(result{name: "refresh-race-tokens", verdict: pass(len(access) == 10 && okMe == 10 && again != nil && again.status == 200 && newest != ""),
		sent: "GET /v1/users/me with each of the 10 new access tokens; POST /v1/auth/refresh with the first new refresh token",
		got:  fmt.Sprintf("users/me: %d×200 of %d %v; refresh: %s", okMe, len(access), failMe, again.short()),
		want: "10×200 (the caller's own id), refresh 200"})

	r.slowly("refresh-reuse-revokes", "R0 presented again after the reuse interval", func() []result {
		time.Sleep(time.Until(raceAt.Add(r.cfg.reuseInterval + 2*time.Second)))
		replay := refresh(u.refresh, false)
		var sibling, last *answer
		if len(next) > 1 {
			sibling = refresh(next[1], false)
		}
		if newest != "" {
			last = refresh(newest, false)
		}
		ok := replay.status == 401 && sibling != nil && sibling.status == 401 && last != nil && last.status == 401
		return []result{{name: "refresh-reuse-revokes", verdict: pass(ok),
			sent: fmt.Sprintf("POST /v1/auth/refresh {R0} %s after the race (REFRESH_REUSE_INTERVAL %s), then an unused sibling token and the newest token of the session",
				time.Since(raceAt).Round(time.Second), r.cfg.reuseInterval),
			got:  fmt.Sprintf("R0: %s; sibling: %s; newest: %s", replay.short(), sibling.short(), last.short()),
			want: "401 for R0, and the session (family) revoked: 401 for every other token of it"}}
	})
}
