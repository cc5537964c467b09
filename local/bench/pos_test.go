package main

import (
	"flag"
	"fmt"
	"log/slog"
	"net/http/httptest"
	"os"
	"strings"
	"testing"
	"time"

	"github.com/bookplatform/backend/local/devserver"
	"github.com/bookplatform/backend/local/testenv"
	"github.com/bookplatform/backend/shared/app"
	"github.com/bookplatform/backend/shared/books"
	"github.com/bookplatform/backend/shared/groups"
	"github.com/bookplatform/backend/shared/inventory"
	"github.com/bookplatform/backend/shared/users"
)

var (
	posOut    = flag.String("pos-out", "", "write the point-of-sale table to this file")
	posSales  = flag.Int("pos-sales", 300, "sales measured (with "+EnvBenchPOS+"=1; 5 otherwise)")
	posDay    = flag.Int("pos-day", 2000, "sales in the day the summary reads (with "+EnvBenchPOS+"=1; 20 otherwise)")
	posRounds = flag.Int("pos-rounds", 200, "summaries measured (with "+EnvBenchPOS+"=1; 5 otherwise)")
)

// TestPOSBench rings up a day of sales in one store over HTTP, one at a
// time, on a clock that walks through the day (a sale every 86,400/N
// seconds, so the day's hours each hold their share), each of 3 items
// taken from the store's stock (three books, one copy each, card), and
// measures the first sales after a few client-side with their DynamoDB calls and
// depth from the access log; then it reads the day's summary (GET
// /api/pos/reports/summary, whole hours) repeatedly and measures it the
// same way. A branch without the summary route (404 or 405) reports the
// sales alone. 2,000 sales, 300 measured, 200 summaries with BENCH_POS=1
// (`go run ./local/bench pos`); a few otherwise, so `make test` checks
// it runs.
func TestPOSBench(t *testing.T) {
	n, day, rounds := 5, 20, 5
	if os.Getenv(EnvBenchPOS) != "" {
		n, day, rounds = *posSales, *posDay, *posRounds
	}
	const warm = 10 // the day's first sales warm up, unrecorded
	day = max(day, n+warm)
	start := time.Date(2026, 3, 2, 0, 0, 0, 0, time.UTC)
	clock := testenv.NewClock(start)
	env := testenv.New(t, testenv.WithLogger(slog.New(slog.DiscardHandler)), testenv.WithClock(clock))
	ids := env.ImportBooks(t,
		books.Record{ISBN: books.CompleteISBN13("978000000201"), Title: "Counter Bench One", Authors: []string{"Ada Bench"}},
		books.Record{ISBN: books.CompleteISBN13("978000000202"), Title: "Counter Bench Two", Authors: []string{"Ada Bench"}},
		books.Record{ISBN: books.CompleteISBN13("978000000203"), Title: "Counter Bench Three", Authors: []string{"Ada Bench"}})
	owner := env.Signup(t, "pos_bench_owner")
	env.SetTier(t, owner, users.TierBookstore)
	res := env.Do("POST", "/v1/stores", map[string]any{"name": "Counter Bench Books", "slug": "counter-bench", "addressLine1": "1005 W Burnside St",
		"city": "Portland", "state": "OR", "postalCode": "97209", "country": "US", "taxRate": 0.0825}, owner.Token)
	if res.Status != 201 {
		t.Fatalf("create a store: %s", res)
	}
	storeID := res.JSON["id"].(string)
	var lines []any
	for _, b := range ids {
		res := env.Do("POST", "/v1/inventory", map[string]any{"storeId": storeID, "bookId": b, "quantity": day + 10,
			"priceCents": 1299, "condition": "new"}, owner.Token)
		if res.Status != 201 {
			t.Fatalf("stock a book: %s", res)
		}
		lines = append(lines, map[string]any{"bookId": b, "inventoryId": inventory.ItemID(storeID, b), "quantity": 1, "unitPriceCents": 1299, "isUsed": false})
	}
	body := map[string]any{"storeId": storeID, "items": lines, "paymentMethod": "card"}

	// A second app over the table, on the same clock, with the access log
	// to read; the rate-limit counter off (one client, many requests).
	logs := newAccessLog()
	a := app.New(env.Config, app.NewClients(env.AWS), slog.New(slog.NewJSONHandler(logs, nil)), clock.Now)
	a.Counter = nil
	srv := httptest.NewServer(logs.wrap(devserver.Handler(a, groups.All(a.Deps()))))
	defer srv.Close()
	c := &client{Base: srv.URL, HTTP: srv.Client()}

	// The token is signed at the clock's time: a fresh one every 10
	// minutes of the day (access tokens last 15).
	token, signed := "", time.Time{}
	call := func(method, path string, body any, want ...int) (storeSample, int) {
		if now := clock.Now(); token == "" || now.Sub(signed) > 10*time.Minute {
			token, signed = env.Login(t, owner).Token, now
		}
		begin := time.Now()
		res := c.Do(method, path, body, token)
		took := time.Since(begin)
		ok := false
		for _, w := range want {
			ok = ok || res.Status == w
		}
		if !ok {
			t.Fatalf("%s %s: HTTP %d %s", method, path, res.Status, res.Body)
		}
		rec, found := logs.wait(res.Header.Get("X-Request-Id"), 2*time.Second)
		if !found {
			t.Fatalf("%s %s: no access-log record", method, path)
		}
		return storeSample{took: took, calls: rec.Calls, depth: rec.Depth}, res.Status
	}

	step := 24 * time.Hour / time.Duration(day+1)
	var sales []storeSample
	for i := range day {
		clock.Set(start.Add(time.Duration(i+1) * step))
		s, _ := call("POST", "/api/pos/sales", body, 201)
		if i >= warm && len(sales) < n {
			sales = append(sales, s)
		}
	}

	var report strings.Builder
	fmt.Fprintf(&report, "   POST /api/pos/sales, 3 items (3 books from the store's stock, a copy each), one at a time, client-side time; calls and depth from the access log:\n")
	fmt.Fprintln(&report, "   "+figures(sales))

	clock.Set(start.Add(36 * time.Hour)) // the next day: the day is over
	summary := "/api/pos/reports/summary?storeId=" + storeID + "&startDate=2026-03-02&endDate=2026-03-02"
	if _, status := call("GET", summary, nil, 200, 404, 405); status != 200 {
		fmt.Fprintf(&report, "   GET /api/pos/reports/summary: not on this branch (HTTP %d): measured after the merge\n", status)
	} else {
		for range 5 { // warm-up, unrecorded
			call("GET", summary, nil, 200)
		}
		var reads []storeSample
		for range rounds {
			s, _ := call("GET", summary, nil, 200)
			reads = append(reads, s)
		}
		fmt.Fprintf(&report, "   GET /api/pos/reports/summary of one day of %d sales (startDate=endDate=the day), one at a time:\n", day)
		fmt.Fprintln(&report, "   "+figures(reads))
	}
	t.Logf("pos:\n%s", report.String())
	if *posOut != "" {
		if err := os.WriteFile(*posOut, []byte(report.String()), 0o644); err != nil {
			t.Fatal(err)
		}
	}
}

// figures are the percentiles of samples with their mean calls and depth.
func figures(ss []storeSample) string {
	sorted := sortedCopy(durations(ss))
	var calls, depth int
	for _, s := range ss {
		calls += s.calls
		depth += s.depth
	}
	return fmt.Sprintf("n=%d  p50 %s  p90 %s  p99 %s  max %s  DynamoDB calls %.1f  depth %.1f",
		len(ss), ms(percentile(sorted, .5)), ms(percentile(sorted, .9)), ms(percentile(sorted, .99)), ms(sorted[len(sorted)-1]),
		float64(calls)/float64(len(ss)), float64(depth)/float64(len(ss)))
}
