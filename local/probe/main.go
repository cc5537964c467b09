// Command probe reruns an outside tester's findings as black-box HTTP
// probes against a running local server (`make run`), and prints one line
// per probe: PASS, FAIL or SKIP, what was sent, what came back and what
// was expected. It exits 1 when a probe fails.
//
//	go run ./local/probe -base http://127.0.0.1:8080 [-slow]
//
// It signs up its own accounts (random suffixes), so it runs on a fresh
// data directory and again on the same one, and it works with rate
// limits on: each finding gets its own accounts, and anonymous requests
// are paced by the X-RateLimit-* headers the server sends. -slow adds the
// probes that must wait for a window or a timeout (30-60 s more: they run
// side by side). README.md beside this file lists the probes.
package main

import (
	"crypto/rand"
	"encoding/hex"
	"flag"
	"fmt"
	"net/url"
	"os"
	"strings"
	"sync"
	"time"
)

// result is one probe's outcome.
type result struct {
	name            string
	verdict         string // PASS, FAIL, SKIP
	sent, got, want string
}

func pass(ok bool) string {
	if ok {
		return "PASS"
	}
	return "FAIL"
}

func (r result) String() string {
	if r.verdict == "SKIP" {
		return fmt.Sprintf("SKIP %-28s %s", r.name, r.got)
	}
	return fmt.Sprintf("%s %-28s sent: %s | got: %s | want: %s", r.verdict, r.name, r.sent, r.got, r.want)
}

// run collects results: the fast probes print as they finish, the slow
// ones (started with later) print in the order they were registered.
type run struct {
	p       *prober
	slow    bool
	cfg     config
	mu      sync.Mutex
	results []result
	later   []func() []result
	book    string // a demo book's id
}

type config struct {
	reuseInterval time.Duration
	readTimeout   time.Duration
}

func (r *run) report(res ...result) {
	r.mu.Lock()
	defer r.mu.Unlock()
	for _, x := range res {
		r.results = append(r.results, x)
		fmt.Println(x)
	}
}

// fail reports a probe that could not be set up.
func (r *run) fail(name, sent string, a *answer, want string) {
	r.report(result{name: name, verdict: "FAIL", sent: sent, got: a.short(), want: want})
}

func (r *run) skip(name, why string) {
	r.report(result{name: name, verdict: "SKIP", got: why})
}

// slowly registers a -slow probe; it runs after the fast ones, side by
// side with the other slow probes.
func (r *run) slowly(name, what string, f func() []result) {
	if !r.slow {
		r.skip(name, what+" (needs -slow)")
		return
	}
	r.later = append(r.later, f)
}

func main() {
	base := flag.String("base", "http://127.0.0.1:8080", "base URL of the running local server")
	slow := flag.Bool("slow", false, "also run the probes that wait for a rate-limit window or a timeout (30-60 s more)")
	reuse := flag.Duration("reuse-interval", 30*time.Second, "the server's REFRESH_REUSE_INTERVAL")
	readTimeout := flag.Duration("read-timeout", 30*time.Second, "the server's LOCAL_READ_TIMEOUT")
	timeout := flag.Duration("timeout", 40*time.Second, "HTTP client timeout per request")
	flag.Parse()

	p, err := newProber(*base, *timeout)
	if err != nil {
		fmt.Fprintln(os.Stderr, "probe:", err)
		os.Exit(2)
	}
	r := &run{p: p, slow: *slow, cfg: config{reuseInterval: *reuse, readTimeout: *readTimeout}}
	start := time.Now()

	if a := p.send(request{method: "GET", path: "/health"}); a.status != 200 {
		fmt.Fprintf(os.Stderr, "probe: GET %s/health answered %s; start the server first (make run) and wait for 200\n", p.base, a.short())
		os.Exit(2)
	}
	// The first anonymous request goes alone: its headers tell the pacer
	// what is left of the address's window.
	b := p.send(request{method: "GET", path: "/v1/books?q=" + url.QueryEscape("harry potter") + "&limit=5"})
	if items, _ := b.obj()["items"].([]any); b.status == 200 && len(items) > 0 {
		r.book = str(items[0].(map[string]any)["id"])
	}
	if r.book == "" {
		r.fail("setup-demo-book", "GET /v1/books?q=harry+potter&limit=5", b, "200 with at least one item (demo catalog)")
	}

	r.rateLimits()
	r.passwordAttempts()
	r.refreshRace()
	s := r.strictInput()
	r.monthlyHeaders()
	r.headAndRequestIDs(s)
	r.cursors(s)
	r.readTimeout408(s)

	if len(r.later) > 0 {
		note("running %d slow probes side by side (30-60 s)", len(r.later))
		out := make([][]result, len(r.later))
		var wg sync.WaitGroup
		for i, f := range r.later {
			wg.Add(1)
			go func() { defer wg.Done(); out[i] = f() }()
		}
		wg.Wait()
		for _, res := range out {
			r.report(res...)
		}
	}
	r.general()

	failed, passed, skipped := 0, 0, 0
	for _, x := range r.results {
		switch x.verdict {
		case "FAIL":
			failed++
		case "PASS":
			passed++
		default:
			skipped++
		}
	}
	fmt.Printf("%d passed, %d failed, %d skipped; %d requests in %s\n", passed, failed, skipped, p.total, time.Since(start).Round(time.Second))
	if failed > 0 {
		os.Exit(1)
	}
}

// general reports the checks every answer was subject to.
func (r *run) general() {
	p := r.p
	p.mu.Lock()
	defer p.mu.Unlock()
	list := func(xs []string) string {
		if len(xs) == 0 {
			return "none"
		}
		if len(xs) > 3 {
			return fmt.Sprintf("%d, first: %s", len(xs), strings.Join(xs[:3], "; "))
		}
		return fmt.Sprintf("%d: %s", len(xs), strings.Join(xs, "; "))
	}
	r.results = append(r.results,
		result{name: "no-5xx", verdict: pass(len(p.fiveXX) == 0), sent: fmt.Sprintf("every request above (%d answers)", p.total),
			got: "5xx answers: " + list(p.fiveXX), want: "no 5xx"},
		result{name: "error-envelope", verdict: pass(len(p.badEnv) == 0), sent: fmt.Sprintf("every error answer with a body (%d)", p.errs),
			got: "not in the envelope or requestId ≠ X-Request-Id: " + list(p.badEnv), want: "{error:{code,name,message,requestId}} with requestId == X-Request-Id"},
		result{name: "x-request-id", verdict: pass(len(p.noID) == 0), sent: fmt.Sprintf("every answer (%d)", p.total),
			got: "without X-Request-Id: " + list(p.noID), want: "X-Request-Id on every answer"},
	)
	for _, x := range r.results[len(r.results)-3:] {
		fmt.Println(x)
	}
}

// account is a signed-up user.
type account struct {
	id, username, email, password string
	token, refresh                string
}

func randHex(n int) string {
	b := make([]byte, n)
	_, _ = rand.Read(b)
	return hex.EncodeToString(b)
}

// signup creates a fresh free account named after the probe.
func (r *run) signup(tag string) (*account, *answer) {
	suffix := randHex(4)
	acc := &account{
		username: "pb_" + tag + "_" + suffix,
		email:    "probe." + tag + "." + suffix + "@example.com",
		password: "probe-pass-" + suffix,
	}
	a := r.p.send(request{method: "POST", path: "/v1/auth/signup", json: map[string]string{
		"username": acc.username, "email": acc.email, "password": acc.password, "displayName": "Probe " + tag,
	}})
	m := a.obj()
	acc.token, acc.refresh = str(m["token"]), str(m["refreshToken"])
	if u, ok := m["user"].(map[string]any); ok {
		acc.id = str(u["id"])
	}
	if a.status != 201 || acc.token == "" || acc.refresh == "" || acc.id == "" {
		return nil, a
	}
	return acc, a
}

// mustSignup signs up or reports the probes that needed the account as failed.
func (r *run) mustSignup(tag string, probes ...string) *account {
	acc, a := r.signup(tag)
	if acc == nil {
		for _, name := range probes {
			r.fail(name, "POST /v1/auth/signup (setup)", a, "201 with token, refreshToken, user.id")
		}
	}
	return acc
}

// postLine posts a line on the demo book.
func (r *run) postLine(acc *account, content string) *answer {
	return r.p.send(request{method: "POST", path: "/v1/lines", token: acc.token,
		json: map[string]any{"bookId": r.book, "content": content}})
}
