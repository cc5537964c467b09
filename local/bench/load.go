package main

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"net/http"
	"os"
	"slices"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/bookplatform/backend/shared/ratelimit"
)

// The demo account the local run seeds (local/seed.go).
const (
	demoEmail    = "reader@example.com"
	demoPassword = "demo-password"
)

// runLoad starts the local run and measures GET /v1/users/me and
// POST /v1/auth/login under load, within the service's rate limits.
//
// The limits are part of what is measured, not switched off: GET
// /v1/users/me is spread over many signed-up free-tier users so that none
// passes its 120 requests a minute, and logins (anonymous, limited to 60
// a minute per source address) come from many loopback source addresses,
// as production traffic comes from many clients. A last short run sends
// logins from one address to show the limit doing its job.
func runLoad(w io.Writer, args []string) error {
	fs := flag.NewFlagSet("load", flag.ExitOnError)
	meDur := fs.Duration("me-duration", 10*time.Second, "duration of each GET /v1/users/me run")
	loginDur := fs.Duration("login-duration", 10*time.Second, "duration of each POST /v1/auth/login run")
	meConc := fs.String("me-workers", "1,16", "concurrent workers of the GET /v1/users/me runs")
	loginConc := fs.String("login-workers", "1,4", "concurrent workers of the POST /v1/auth/login runs")
	users := fs.Int("users", 200, "signed-up users GET /v1/users/me is spread over")
	addrs := fs.Int("addresses", 64, "loopback source addresses logins and sign-ups are spread over")
	probe := fs.Int("one-address", 80, "logins sent from one address at the end (0: skip)")
	_ = fs.Parse(args)
	meWorkers, err := intList(*meConc)
	if err != nil {
		return err
	}
	loginWorkers, err := intList(*loginConc)
	if err != nil {
		return err
	}

	section(w, "4. Load on the local run (go run ./local: DynamoDB Local on disk, S3 and SQS stand-ins, one process on 127.0.0.1)",
		fmt.Sprintf("go run ./local/bench load -me-duration %s -login-duration %s -me-workers %s -login-workers %s -users %d",
			*meDur, *loginDur, *meConc, *loginConc, *users))

	root, _ := os.Getwd() // main changed to the module root
	ctx := context.Background()
	run, err := startLocalRun(ctx, root)
	if err != nil {
		return err
	}
	loadErr := measureLoad(w, run, *meDur, *loginDur, meWorkers, loginWorkers, *users, *addrs, *probe)
	stopErr := run.stop()
	if stopErr == nil {
		fmt.Fprintln(w, "   stopped with SIGINT; no DynamoDB Local process left behind")
	}
	return errors.Join(loadErr, stopErr)
}

func measureLoad(w io.Writer, run *localRun, meDur, loginDur time.Duration, meWorkers, loginWorkers []int, nUsers, nAddrs, probe int) error {
	if !sourceAddressesWork(strings.TrimPrefix(run.BaseURL, "http://")) {
		fmt.Fprintln(w, "   note: this machine cannot send from 127.0.1.x; all requests come from 127.0.0.1 and anonymous ones share one 60/min limit")
		nAddrs = 0
	}
	spread := newClientPool(nAddrs, 4)
	defer spread.close()
	single := newClientPool(0, 64)
	defer single.close()

	progress("load: signing up %d users", nUsers)
	t0 := time.Now()
	tokens, err := signUp(run.BaseURL, spread, nUsers)
	if err != nil {
		return err
	}
	fmt.Fprintf(w, "   setup: %d users signed up in %s (bcrypt cost 10); GET /v1/users/me cycles through them (free tier: %d requests/min each)\n",
		nUsers, time.Since(t0).Round(100*time.Millisecond), ratelimit.TierRates["free"])
	if nAddrs > 0 {
		fmt.Fprintf(w, "   logins: %s from %d source addresses 127.0.1.x (anonymous limit: %d/min per address)\n",
			demoEmail, nAddrs, ratelimit.TierRates[ratelimit.TierGuest])
	}
	fmt.Fprintf(w, "   closed loop: each worker sends its next request when the previous answer is read; latency includes reading the body\n")

	var meSeq atomic.Int64 // one sequence over all runs, so users are used evenly
	me := func(i int64) (*http.Client, *http.Request, error) {
		n := meSeq.Add(1)
		req, err := http.NewRequest(http.MethodGet, run.BaseURL+"/v1/users/me", nil)
		if err != nil {
			return nil, nil, err
		}
		req.Header.Set("Authorization", "Bearer "+tokens[int(n%int64(len(tokens)))])
		return single.get(i), req, nil
	}
	loginBody, _ := json.Marshal(map[string]string{"email": demoEmail, "password": demoPassword})
	login := func(pool *clientPool) func(i int64) (*http.Client, *http.Request, error) {
		return func(i int64) (*http.Client, *http.Request, error) {
			req, err := http.NewRequest(http.MethodPost, run.BaseURL+"/v1/auth/login", bytes.NewReader(loginBody))
			if err != nil {
				return nil, nil, err
			}
			req.Header.Set("Content-Type", "application/json")
			return pool.get(i), req, nil
		}
	}

	// DynamoDB Local is a JVM: its first seconds are much slower than
	// its steady state, which is what a benchmark should report.
	progress("load: warming up")
	_ = generate(loadSpec{workers: 8, duration: 2 * time.Second, next: me})

	fmt.Fprintf(w, "   %-24s %7s %8s %8s %9s %9s %9s %9s   %s\n", "endpoint", "workers", "2xx", "2xx/s", "p50", "p90", "p99", "max", "non-2xx")
	var failures []string
	report := func(name string, workers int, r loadResult) {
		ok := r.ok()
		line := fmt.Sprintf("   %-24s %7d %8d %8.0f", name, workers, len(ok), float64(len(ok))/r.elapsed.Seconds())
		if len(ok) > 0 {
			line += fmt.Sprintf(" %9s %9s %9s %9s", ms(percentile(ok, .5)), ms(percentile(ok, .9)), ms(percentile(ok, .99)), ms(ok[len(ok)-1]))
		} else {
			line += fmt.Sprintf(" %9s %9s %9s %9s", "-", "-", "-", "-")
		}
		fmt.Fprintf(w, "%s   %s\n", line, r.nonOK())
		if len(ok) != r.total() || r.errors > 0 {
			failures = append(failures, fmt.Sprintf("%s with %d workers: non-2xx %s", name, workers, r.nonOK()))
		}
	}
	for _, n := range meWorkers {
		progress("load: GET /v1/users/me, %d workers, %s", n, meDur)
		report("GET /v1/users/me", n, generate(loadSpec{workers: n, duration: meDur, next: me}))
	}
	for _, n := range loginWorkers {
		progress("load: POST /v1/auth/login, %d workers, %s", n, loginDur)
		report("POST /v1/auth/login", n, generate(loadSpec{workers: n, duration: loginDur, next: login(spread)}))
	}

	if probe > 0 {
		progress("load: %d logins from one address", probe)
		r := generate(loadSpec{workers: 4, duration: time.Minute, max: int64(probe), next: login(single)})
		limited := sortedCopy(r.byStatus[http.StatusTooManyRequests])
		line := fmt.Sprintf("   one address (127.0.0.1), %d logins, 4 workers: %d served", r.total(), len(r.ok()))
		if ok := r.ok(); len(ok) > 0 {
			line += " (p50 " + ms(percentile(ok, .5)) + ")"
		}
		line += fmt.Sprintf(", %d x429", len(limited))
		if len(limited) > 0 {
			line += " (p50 " + ms(percentile(limited, .5)) + ")"
		}
		if other := r.total() - len(r.ok()) - len(limited); other > 0 || r.errors > 0 {
			line += "; other: " + r.nonOK()
		}
		fmt.Fprintln(w, line)
		fmt.Fprintf(w, "   (limit: %d anonymous requests per address and minute window)\n", ratelimit.TierRates[ratelimit.TierGuest])
		// What a refused login cost the server, from its own access log:
		// the client's view alone cannot tell queueing from work.
		if n, p50, calls := refusedCost(run.logPath, "POST /v1/auth/login"); n > 0 {
			fmt.Fprintf(w, "   server side, the %d refused logins took p50 %s each and made %s DynamoDB calls (access log durationMs, dynamoCalls)\n", n, ms(p50), calls)
		}
	}
	if len(failures) > 0 {
		return errors.New(strings.Join(failures, "; "))
	}
	return nil
}

// signUp creates n free-tier users, four at a time (bcrypt bounds the
// rate), spread over the pool's source addresses, and returns their
// access tokens.
func signUp(baseURL string, pool *clientPool, n int) ([]string, error) {
	tokens := make([]string, n)
	var (
		next     atomic.Int64
		wg       sync.WaitGroup
		mu       sync.Mutex
		firstErr error
	)
	for range 4 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for {
				i := int(next.Add(1) - 1)
				if i >= n {
					return
				}
				tok, err := signUpOne(baseURL, pool.get(int64(i)), i)
				if err != nil {
					mu.Lock()
					if firstErr == nil {
						firstErr = err
					}
					mu.Unlock()
					return
				}
				tokens[i] = tok
			}
		}()
	}
	wg.Wait()
	return tokens, firstErr
}

func signUpOne(baseURL string, client *http.Client, i int) (string, error) {
	body, _ := json.Marshal(map[string]string{
		"username": "bench_" + strconv.Itoa(i), "email": "bench" + strconv.Itoa(i) + "@example.com",
		"password": "bench-password", "displayName": "Bench User " + strconv.Itoa(i),
	})
	resp, err := client.Post(baseURL+"/v1/auth/signup", "application/json", bytes.NewReader(body))
	if err != nil {
		return "", fmt.Errorf("sign up user %d: %w", i, err)
	}
	defer resp.Body.Close()
	data, _ := io.ReadAll(resp.Body)
	if resp.StatusCode != http.StatusCreated {
		return "", fmt.Errorf("sign up user %d: HTTP %d: %s", i, resp.StatusCode, data)
	}
	var out struct {
		Token string `json:"token"`
	}
	if err := json.Unmarshal(data, &out); err != nil || out.Token == "" {
		return "", fmt.Errorf("sign up user %d: no token in %s", i, data)
	}
	return out.Token, nil
}

func intList(s string) ([]int, error) {
	var out []int
	for _, f := range strings.Split(s, ",") {
		n, err := strconv.Atoi(strings.TrimSpace(f))
		if err != nil || n < 1 {
			return nil, fmt.Errorf("bad worker count %q in %q", f, s)
		}
		out = append(out, n)
	}
	return out, nil
}

// refusedCost reads the local run's access log (one JSON record per
// request) and summarises its 429 answers on one route: how many, their
// median duration and the DynamoDB calls they made.
func refusedCost(logPath, route string) (n int, p50 time.Duration, calls string) {
	data, err := os.ReadFile(logPath)
	if err != nil {
		return 0, 0, ""
	}
	var durations []time.Duration
	counts := map[int]int{}
	for _, line := range bytes.Split(data, []byte("\n")) {
		var rec struct {
			Msg        string  `json:"msg"`
			Route      string  `json:"route"`
			Status     int     `json:"status"`
			DurationMs float64 `json:"durationMs"`
			Calls      int     `json:"dynamoCalls"`
		}
		if json.Unmarshal(line, &rec) != nil || rec.Msg != "request" || rec.Route != route || rec.Status != http.StatusTooManyRequests {
			continue
		}
		durations = append(durations, time.Duration(rec.DurationMs*float64(time.Millisecond)))
		counts[rec.Calls]++
	}
	if len(durations) == 0 {
		return 0, 0, ""
	}
	var keys []int
	for k := range counts {
		keys = append(keys, k)
	}
	slices.Sort(keys)
	var parts []string
	for _, k := range keys {
		parts = append(parts, fmt.Sprintf("%d (x%d)", k, counts[k]))
	}
	if len(keys) == 1 {
		parts = []string{strconv.Itoa(keys[0])}
	}
	return len(durations), percentile(sortedCopy(durations), .5), strings.Join(parts, ", ")
}
