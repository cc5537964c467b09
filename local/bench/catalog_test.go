package main

import (
	"context"
	"flag"
	"fmt"
	"io"
	"log/slog"
	"net/http/httptest"
	"net/url"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/bookplatform/backend/local/catalog"
	"github.com/bookplatform/backend/local/devserver"
	"github.com/bookplatform/backend/local/dynamodblocal"
	"github.com/bookplatform/backend/local/testenv"
	"github.com/bookplatform/backend/shared/app"
	"github.com/bookplatform/backend/shared/groups"
)

var (
	catalogOut   = flag.String("catalog-out", "", "write the catalog import and search tables to this file")
	catalogSizes = flag.String("catalog-sizes", "1000,2000,5000,10000", "synthetic catalog sizes to import into fresh tables; search runs on the largest")
	searchRounds = flag.Int("search-rounds", 40, "rounds of the query mix through the book service")
	httpRounds   = flag.Int("search-http-rounds", 10, "rounds of the query mix through HTTP")
)

// searchCase is one query of the mix.
type searchCase struct {
	kind          string
	q             string
	limit, offset int
}

// searchMix is what a reader types: the kinds the closing note reports.
// "love" is the most common title word of the synthetic catalog (in about
// one title in eight), so its posting list is the longest a search reads.
func searchMix(synthetic int) []searchCase {
	mix := []searchCase{
		{kind: "single common word", q: "love"},
		{kind: "single common word", q: "house"},
		{kind: "two words", q: "dark garden"},
		{kind: "two words", q: "silent river"},
		{kind: "author name", q: "maria garcia"},
		{kind: "author name", q: "tolkien"},
		{kind: "prefix type-ahead", q: "harr"},
		{kind: "prefix type-ahead", q: "harry pot"},
		{kind: "ISBN-13", q: "9780439785969"},
		{kind: "ISBN-13", q: syntheticISBN13(synthetic / 2)},
		{kind: "ISBN-10", q: "043965548X"},
		{kind: "ISBN-10", q: "0-439-65548-X"},
		{kind: "no result", q: "xylophonist quagmire"},
	}
	for page := range 5 {
		mix = append(mix, searchCase{kind: "pages 1-5 of a common word", q: "love", offset: page * 20})
	}
	for i := range mix {
		if mix[i].limit == 0 {
			mix[i].limit = 20
		}
	}
	return mix
}

// searchSample is one measured search.
type searchSample struct {
	took         time.Duration
	calls, depth int
	total        int
}

// TestCatalogBench measures how import time grows with the catalog
// (1,000 to 10,000 synthetic books, each size into a fresh table) and,
// on the largest table plus the demo catalog, the latency of a query mix
// through the book service and through HTTP, with the DynamoDB calls of
// each search. It writes its tables to -catalog-out for the report.
func TestCatalogBench(t *testing.T) {
	if os.Getenv(EnvBenchSearch) == "" {
		t.Skipf("set %s=1 to run (about 5 minutes; `go run ./local/bench catalog` does)", EnvBenchSearch)
	}
	var sizes []int
	for _, s := range strings.Split(*catalogSizes, ",") {
		n, err := strconv.Atoi(strings.TrimSpace(s))
		if err != nil || n < 1 {
			t.Fatalf("-catalog-sizes: %q is not a size", s)
		}
		sizes = append(sizes, n)
	}
	slices.Sort(sizes)
	largest := sizes[len(sizes)-1]
	ctx := context.Background()
	quiet := testenv.WithLogger(slog.New(slog.DiscardHandler))
	var report strings.Builder

	fmt.Fprintf(&report, "   import: books.Service.Import of synthetic 979 books (local/bench/synthetic_test.go), a fresh table each, as the app wires it, after one unrecorded warm-up import\n")
	fmt.Fprintf(&report, "   %8s %10s %9s %12s\n", "books", "total s", "books/s", "ms per book")
	importRow := func(n int, took time.Duration) {
		fmt.Fprintf(&report, "   %8d %10.2f %9.0f %12.2f\n", n, took.Seconds(),
			float64(n)/took.Seconds(), float64(took.Milliseconds())/float64(n))
	}
	importInto := func(t *testing.T, a *app.App, n int) time.Duration {
		t.Helper()
		recs := syntheticBooks(n)
		start := time.Now()
		res, err := a.Books.Import(ctx, recs)
		took := time.Since(start)
		if err != nil || res.Created != n || res.Failed != 0 {
			t.Fatalf("import %d books: %v (created %d, failed %d: %+v)", n, err, res.Created, res.Failed, res.Errors[:min(3, len(res.Errors))])
		}
		progress("catalog: imported %d books in %s", n, took.Round(100*time.Millisecond))
		return took
	}
	// The first import into a fresh DynamoDB Local runs on a cold JVM (its
	// JIT compiles as it goes) and would make the smallest size look slow:
	// one unrecorded import warms it.
	t.Run("warm_up", func(t *testing.T) { importInto(t, testenv.New(t, quiet).App, min(500, largest)) })
	for _, n := range sizes[:len(sizes)-1] {
		t.Run(fmt.Sprintf("import_%d", n), func(t *testing.T) {
			importRow(n, importInto(t, testenv.New(t, quiet).App, n))
		})
	}

	// The largest table stays for the searches.
	env := testenv.New(t, quiet)
	importRow(largest, importInto(t, env.App, largest))
	root, err := dynamodblocal.ModuleRoot("")
	if err != nil {
		t.Fatal(err)
	}
	start := time.Now()
	demo, err := catalog.ImportFile(ctx, env.App.Books, filepath.Join(root, catalog.DemoFile))
	if err != nil || demo.Failed > 0 {
		t.Fatalf("import the demo catalog: %v %+v", err, demo.Errors)
	}
	fmt.Fprintf(&report, "   then the demo catalog (%s) on top: %d books in %s\n",
		catalog.DemoFile, demo.Created, time.Since(start).Round(10*time.Millisecond))
	if t.Failed() {
		return
	}

	// A second app over the same table, as runScenario builds it: JSON
	// access log to read, and every AWS operation noted.
	logs := newAccessLog()
	ops := &opLog{}
	awsCfg := env.AWS.Copy()
	awsCfg.APIOptions = append(slices.Clone(awsCfg.APIOptions), ops.middleware)
	a := app.New(env.Config, app.NewClients(awsCfg), slog.New(slog.NewJSONHandler(logs, nil)), nil)
	catalogSize := largest + demo.Created

	mix := searchMix(largest)
	kinds := kindsOf(mix)
	direct := map[string][]searchSample{}
	totals := map[string]int{}
	for round := -1; round < *searchRounds; round++ { // round -1 warms up, unrecorded
		for _, c := range mix {
			ops.reset()
			start := time.Now()
			res, err := a.Books.Search(ctx, c.q, c.limit, c.offset)
			took := time.Since(start)
			if err != nil {
				t.Fatalf("search %q: %v", c.q, err)
			}
			if round < 0 {
				continue
			}
			calls := 0
			for _, op := range ops.take() {
				if op.Service == "dynamodb" {
					calls++
				}
			}
			direct[c.kind] = append(direct[c.kind], searchSample{took: took, calls: calls, total: res.Total})
			totals[c.q] = res.Total
		}
	}
	progress("catalog: %d searches through the service", *searchRounds*len(mix))

	fmt.Fprintf(&report, "\n   search through the book service (App.Books.Search: no HTTP, no rate limit), %d books, one search at a time, rounds of the mix: %d\n",
		catalogSize, *searchRounds)
	writeSearchTable(&report, kinds, mix, direct, totals, false)

	// End to end: real HTTP through the router, signed-in users (GET
	// /v1/books allows 60 searches a minute per user, so requests are
	// spread over several), the rate-limit counter included.
	srv := httptest.NewServer(devserver.Handler(a, groups.All(a.Deps())))
	defer srv.Close()
	c := &client{Base: srv.URL, HTTP: srv.Client()}
	const perUser = 50
	searchers := ((*httpRounds+1)*len(mix) + perUser - 1) / perUser // +1: the warm-up round
	var tokens []string
	for i := range searchers {
		res := c.Do("POST", "/v1/auth/signup", map[string]any{
			"username": fmt.Sprintf("bench_search_%d", i), "email": fmt.Sprintf("bench.search.%d@example.com", i),
			"password": password, "displayName": "Bench Searcher",
		}, "")
		tok, _ := res.JSON["token"].(string)
		if tok == "" {
			t.Fatalf("sign up a searcher: HTTP %d %s", res.Status, res.Body)
		}
		tokens = append(tokens, tok)
	}
	viaHTTP := map[string][]searchSample{}
	n := 0
	for round := -1; round < *httpRounds; round++ {
		for _, sc := range mix {
			path := fmt.Sprintf("/v1/books?q=%s&limit=%d&offset=%d", url.QueryEscape(sc.q), sc.limit, sc.offset)
			start := time.Now()
			res := c.Do("GET", path, nil, tokens[n/perUser%len(tokens)])
			took := time.Since(start)
			n++
			if res.Status != 200 {
				t.Fatalf("GET %s: HTTP %d %s", path, res.Status, res.Body)
			}
			rec, ok := logs.wait(res.Header.Get("X-Request-Id"), 2*time.Second)
			if !ok {
				t.Fatalf("GET %s: no access-log record", path)
			}
			if round >= 0 {
				viaHTTP[sc.kind] = append(viaHTTP[sc.kind], searchSample{took: took, calls: rec.Calls, depth: rec.Depth})
			}
		}
	}
	fmt.Fprintf(&report, "\n   search end to end (GET /v1/books over HTTP through the router, signed in; client-side time; calls and depth from the access log, rate-limit counters included), rounds of the mix: %d\n",
		*httpRounds)
	writeSearchTable(&report, kinds, mix, viaHTTP, nil, true)

	t.Logf("catalog benchmark:\n%s", report.String())
	if *catalogOut != "" {
		if err := os.WriteFile(*catalogOut, []byte(report.String()), 0o644); err != nil {
			t.Fatal(err)
		}
	}
}

// kindsOf lists the kinds of a mix in first-seen order.
func kindsOf(mix []searchCase) []string {
	var kinds []string
	for _, c := range mix {
		if !slices.Contains(kinds, c.kind) {
			kinds = append(kinds, c.kind)
		}
	}
	return kinds
}

// writeSearchTable writes p50/p99 per kind and overall, the DynamoDB calls
// per search (and depth, from the access log, when withDepth), and with
// totals the number of matches of each query.
func writeSearchTable(w io.Writer, kinds []string, mix []searchCase, samples map[string][]searchSample, totals map[string]int, withDepth bool) {
	fmt.Fprintf(w, "   %-28s %6s %10s %10s %7s", "kind", "n", "p50", "p99", "calls")
	if withDepth {
		fmt.Fprintf(w, " %7s", "depth")
	}
	if totals != nil {
		fmt.Fprintf(w, "   %s", "queries (matches)")
	}
	fmt.Fprintln(w)
	var all []time.Duration
	for _, k := range kinds {
		ss := samples[k]
		var ds []time.Duration
		var calls, depths []int
		for _, s := range ss {
			ds = append(ds, s.took)
			calls = append(calls, s.calls)
			depths = append(depths, s.depth)
		}
		all = append(all, ds...)
		sorted := sortedCopy(ds)
		fmt.Fprintf(w, "   %-28s %6d %10s %10s %7s", k, len(ss), ms(percentile(sorted, 0.5)), ms(percentile(sorted, 0.99)), span(calls))
		if withDepth {
			fmt.Fprintf(w, " %7s", span(depths))
		}
		if totals != nil {
			var qs []string
			for _, c := range mix {
				if c.kind != k {
					continue
				}
				label := fmt.Sprintf("%q (%d)", c.q, totals[c.q])
				if c.offset > 0 {
					label = strconv.Itoa(c.offset)
				}
				qs = append(qs, label)
			}
			if len(qs) > 2 && qs[1] == "20" {
				qs[0] += " at offsets 0"
			}
			fmt.Fprintf(w, "   %s", strings.Join(qs, ", "))
		}
		fmt.Fprintln(w)
	}
	sorted := sortedCopy(all)
	fmt.Fprintf(w, "   %-28s %6d %10s %10s\n", "overall", len(all), ms(percentile(sorted, 0.5)), ms(percentile(sorted, 0.99)))
}

// span writes the smallest and largest value, or the one value.
func span(vals []int) string {
	if len(vals) == 0 {
		return "-"
	}
	lo, hi := slices.Min(vals), slices.Max(vals)
	if lo == hi {
		return strconv.Itoa(lo)
	}
	return fmt.Sprintf("%d-%d", lo, hi)
}
