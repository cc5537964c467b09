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
	"sync"
	"testing"
	"time"

	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"
	"github.com/aws/smithy-go/middleware"

	"github.com/bookplatform/backend/local/catalog"
	"github.com/bookplatform/backend/local/devserver"
	"github.com/bookplatform/backend/local/dynamodblocal"
	"github.com/bookplatform/backend/local/testenv"
	"github.com/bookplatform/backend/shared/app"
	"github.com/bookplatform/backend/shared/books"
	"github.com/bookplatform/backend/shared/groups"
)

var (
	catalogOut   = flag.String("catalog-out", "", "write the catalog import and search tables to this file")
	catalogSizes = flag.String("catalog-sizes", "10000", "synthetic catalog sizes, each imported into a fresh table and searched")
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
	// rcu is the read capacity the search's DynamoDB calls consumed
	// (ReturnConsumedCapacity TOTAL), through the service only.
	rcu float64
}

// catalogRow is one catalog size's line of the summary table, the layout
// of issue 23.
type catalogRow struct {
	books               int
	importRate          float64
	loveP50, loveP99    time.Duration
	loveMatches         int
	loveLowerBound      bool
	pagesP50, pagesP99  time.Duration
	harrP99             time.Duration
	serviceP99, httpP99 time.Duration
	rcuMean, rcuMax     float64
}

// readRequestPrice is DynamoDB on-demand's price of a million read
// request units (us-east-1, since November 2024): an eventually
// consistent read of up to 4 KB is half a unit, as ConsumedCapacity
// reports it.
const readRequestPrice = 0.125

// TestCatalogBench imports each catalog size into a fresh table (after
// one unrecorded warm-up import), adds the demo catalog, and runs the
// query mix through the book service (with the DynamoDB calls and read
// units of each search) and through HTTP. It writes each size's tables
// and a summary (issue 23's layout, read units and cost per million
// searches) to -catalog-out for the report.
func TestCatalogBench(t *testing.T) {
	if os.Getenv(EnvBenchSearch) == "" {
		t.Skipf("set %s=1 to run (minutes; `go run ./local/bench catalog` does)", EnvBenchSearch)
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
	quiet := testenv.WithLogger(slog.New(slog.DiscardHandler))
	var report strings.Builder

	fmt.Fprintf(&report, "   import: books.Service.Import of synthetic 979 books (local/bench/synthetic_test.go), a fresh table each (without a stream: testenv.WithStream), as the app wires it, after one unrecorded warm-up import\n")
	// The first import into a fresh DynamoDB Local runs on a cold JVM (its
	// JIT compiles as it goes) and would make the smallest size look slow:
	// one unrecorded import warms it.
	t.Run("warm_up", func(t *testing.T) { importSynthetic(t, testenv.New(t, quiet).App, min(2000, sizes[0])) })
	ceiling := writeCeiling(t, testenv.New(t, quiet), sizes[len(sizes)-1], &report)
	var rows []catalogRow
	for _, n := range sizes {
		t.Run(fmt.Sprintf("size_%d", n), func(t *testing.T) {
			rows = append(rows, benchCatalogSize(t, n, quiet, &report))
		})
		if t.Failed() {
			return
		}
	}

	var sum strings.Builder
	fmt.Fprintf(&sum, "   summary (issue 23's layout; import: books a second, and in brackets the share of DynamoDB Local's ceiling below it reached; read units: ReturnConsumedCapacity of the service's searches, cost: on-demand reads at $%.3f per million units)\n", readRequestPrice)
	fmt.Fprintf(&sum, "   | books | import | \"love\" p50 / p99 | pages 1-5 of \"love\" p50 / p99 | type-ahead \"harr\" p99 | overall p99 (service) | overall p99 (HTTP) | read units per search mean / max | $ per million searches |\n")
	fmt.Fprintf(&sum, "   |---|---|---|---|---|---|---|---|---|\n")
	for _, r := range rows {
		bound := ""
		if r.loveLowerBound {
			bound = "+"
		}
		fmt.Fprintf(&sum, "   | %s | %.0f books/s (%.0f%%) | %s / %s (%s%s matches) | %s / %s | %s | %s | %s | %.1f / %.1f | %.2f |\n",
			thousands(r.books), r.importRate, 100*r.importRate/ceiling, ms(r.loveP50), ms(r.loveP99), thousands(r.loveMatches), bound,
			ms(r.pagesP50), ms(r.pagesP99), ms(r.harrP99), ms(r.serviceP99), ms(r.httpP99), r.rcuMean, r.rcuMax, r.rcuMean*readRequestPrice)
	}
	out := sum.String() + "\n" + report.String()
	t.Logf("catalog benchmark:\n%s", out)
	if *catalogOut != "" {
		if err := os.WriteFile(*catalogOut, []byte(out), 0o644); err != nil {
			t.Fatal(err)
		}
	}
}

// writeCeiling measures how many items a second DynamoDB Local takes on
// this machine (BatchWriteItem of 25 small items, as many calls in flight
// as the importer keeps), and from the items a synthetic book needs (the
// book, its ISBN claim and a posting per indexed word) the books a second
// no importer could pass here: DynamoDB Local writes on one thread, so it,
// not the importer, bounds the import rate of the local run. It writes
// both to report and returns the books a second.
func writeCeiling(t *testing.T, env *testenv.Env, n int, report *strings.Builder) float64 {
	const items, workers = 40000, 16 // workers: shared/dynamo's writeConcurrency
	ctx := context.Background()
	batches := make(chan int)
	var wg sync.WaitGroup
	start := time.Now()
	for range workers {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for b := range batches {
				reqs := make([]types.WriteRequest, 25)
				for i := range reqs {
					k := b*25 + i
					reqs[i] = types.WriteRequest{PutRequest: &types.PutRequest{Item: map[string]types.AttributeValue{
						"PK":        &types.AttributeValueMemberS{Value: fmt.Sprintf("BENCHCEILING#%d", k%1000)},
						"SK":        &types.AttributeValueMemberS{Value: fmt.Sprintf("%09d", k)},
						"titleKey":  &types.AttributeValueMemberS{Value: "the silent river of harrington"},
						"authorKey": &types.AttributeValueMemberS{Value: "maria garcia"},
					}}}
				}
				for len(reqs) > 0 {
					out, err := env.App.DB.BatchWriteItem(ctx, &dynamodb.BatchWriteItemInput{
						RequestItems: map[string][]types.WriteRequest{env.Config.TableName: reqs}})
					if err != nil {
						t.Errorf("ceiling: BatchWriteItem: %v", err)
						return
					}
					reqs = out.UnprocessedItems[env.Config.TableName]
				}
			}
		}()
	}
	for b := range items / 25 {
		batches <- b
	}
	close(batches)
	wg.Wait()
	perSecond := items / time.Since(start).Seconds()
	tokens := 0
	recs := syntheticBooks(min(n, 100000))
	for _, r := range recs {
		tokens += len(books.IndexingOf(&books.Book{Title: r.Title, Authors: r.Authors}).Tokens)
	}
	perBook := 2 + float64(tokens)/float64(len(recs))
	ceiling := perSecond / perBook
	fmt.Fprintf(report, "   DynamoDB Local's write ceiling here: %.0f items/s (BatchWriteItem of 25 small items, %d calls in flight); a synthetic book is %.1f items (book, ISBN claim, %.1f postings), so no import passes %.0f books/s on this machine\n",
		perSecond, workers, perBook, perBook-2, ceiling)
	progress("catalog: DynamoDB Local takes %.0f items/s here: at most %.0f books/s", perSecond, ceiling)
	return ceiling
}

// importSynthetic imports the first n synthetic books and returns the
// time it took.
func importSynthetic(t *testing.T, a *app.App, n int) time.Duration {
	t.Helper()
	recs := syntheticBooks(n)
	start := time.Now()
	res, err := a.Books.Import(context.Background(), recs)
	took := time.Since(start)
	if err != nil || res.Created != n || res.Failed != 0 {
		t.Fatalf("import %d books: %v (created %d, failed %d: %+v)", n, err, res.Created, res.Failed, res.Errors[:min(3, len(res.Errors))])
	}
	progress("catalog: imported %d books in %s (%.0f books/s)", n, took.Round(100*time.Millisecond), float64(n)/took.Seconds())
	return took
}

// benchCatalogSize imports n books and the demo catalog into a fresh
// table, runs the query mix, writes the size's tables to report and
// returns its summary row.
func benchCatalogSize(t *testing.T, n int, quiet testenv.Option, report *strings.Builder) catalogRow {
	ctx := context.Background()
	env := testenv.New(t, quiet)
	took := importSynthetic(t, env.App, n)
	row := catalogRow{importRate: float64(n) / took.Seconds()}
	fmt.Fprintf(report, "\n   == %s synthetic books ==\n", thousands(n))
	fmt.Fprintf(report, "   %8s %10s %9s %12s\n", "books", "total s", "books/s", "ms per book")
	fmt.Fprintf(report, "   %8d %10.2f %9.0f %12.2f\n", n, took.Seconds(), row.importRate, float64(took.Milliseconds())/float64(n))
	root, err := dynamodblocal.ModuleRoot("")
	if err != nil {
		t.Fatal(err)
	}
	start := time.Now()
	demo, err := catalog.ImportFile(ctx, env.App.Books, filepath.Join(root, catalog.DemoFile))
	if err != nil || demo.Failed > 0 {
		t.Fatalf("import the demo catalog: %v %+v", err, demo.Errors)
	}
	fmt.Fprintf(report, "   then the demo catalog (%s) on top: %d books in %s\n",
		catalog.DemoFile, demo.Created, time.Since(start).Round(10*time.Millisecond))
	row.books = n + demo.Created

	// A second app over the same table, as runScenario builds it: JSON
	// access log to read, every AWS operation noted, read capacity asked
	// for and summed.
	logs := newAccessLog()
	ops := &opLog{}
	rcu := &capacityLog{}
	awsCfg := env.AWS.Copy()
	awsCfg.APIOptions = append(slices.Clone(awsCfg.APIOptions), ops.middleware, rcu.middleware)
	a := app.New(env.Config, app.NewClients(awsCfg), slog.New(slog.NewJSONHandler(logs, nil)), nil)

	mix := searchMix(n)
	kinds := kindsOf(mix)
	direct := map[string][]searchSample{}
	totals := map[string]int{}
	bounds := map[string]bool{}
	for round := -1; round < *searchRounds; round++ { // round -1 warms up, unrecorded
		for _, c := range mix {
			ops.reset()
			rcu.reset()
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
			direct[c.kind] = append(direct[c.kind], searchSample{took: took, calls: calls, total: res.Total, rcu: rcu.total()})
			if c.offset == 0 {
				totals[c.q], bounds[c.q] = res.Total, res.TotalIsLowerBound
			}
		}
	}
	progress("catalog: %d searches through the service", *searchRounds*len(mix))
	fmt.Fprintf(report, "\n   search through the book service (App.Books.Search: no HTTP, no rate limit), %d books, one search at a time, rounds of the mix: %d; read units: ReturnConsumedCapacity, mean (max); \"+\": total is a lower bound\n",
		row.books, *searchRounds)
	writeSearchTable(report, kinds, mix, direct, totals, bounds, false)

	// End to end: real HTTP through the router, signed-in users (GET
	// /v1/books allows 60 searches a minute per user, so requests are
	// spread over several), the rate-limit counter included.
	srv := httptest.NewServer(logs.wrap(devserver.Handler(a, groups.All(a.Deps()))))
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
	k := 0
	for round := -1; round < *httpRounds; round++ {
		for _, sc := range mix {
			path := fmt.Sprintf("/v1/books?q=%s&limit=%d&offset=%d", url.QueryEscape(sc.q), sc.limit, sc.offset)
			start := time.Now()
			res := c.Do("GET", path, nil, tokens[k/perUser%len(tokens)])
			took := time.Since(start)
			k++
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
	fmt.Fprintf(report, "\n   search end to end (GET /v1/books over HTTP through the router, signed in; client-side time; calls and depth from the access log, rate-limit counters included), rounds of the mix: %d\n",
		*httpRounds)
	writeSearchTable(report, kinds, mix, viaHTTP, nil, nil, true)

	// The summary row.
	love := nthOfKind(mix, direct, "single common word", "love")
	harr := nthOfKind(mix, direct, "prefix type-ahead", "harr")
	var pages []time.Duration
	for _, s := range direct["pages 1-5 of a common word"] {
		pages = append(pages, s.took)
	}
	pages = sortedCopy(pages)
	row.loveP50, row.loveP99 = percentile(love, 0.5), percentile(love, 0.99)
	row.loveMatches, row.loveLowerBound = totals["love"], bounds["love"]
	row.pagesP50, row.pagesP99 = percentile(pages, 0.5), percentile(pages, 0.99)
	row.harrP99 = percentile(harr, 0.99)
	var all, allHTTP []time.Duration
	var units []float64
	for _, kind := range kinds {
		for _, s := range direct[kind] {
			all = append(all, s.took)
			units = append(units, s.rcu)
		}
		for _, s := range viaHTTP[kind] {
			allHTTP = append(allHTTP, s.took)
		}
	}
	row.serviceP99, row.httpP99 = percentile(sortedCopy(all), 0.99), percentile(sortedCopy(allHTTP), 0.99)
	for _, u := range units {
		row.rcuMean += u / float64(len(units))
		row.rcuMax = max(row.rcuMax, u)
	}
	return row
}

// nthOfKind returns the sorted durations of query q's samples of a kind:
// a kind's samples are its queries in mix order, round after round.
func nthOfKind(mix []searchCase, samples map[string][]searchSample, kind, q string) []time.Duration {
	var qs []string
	for _, c := range mix {
		if c.kind == kind {
			qs = append(qs, c.q)
		}
	}
	var ds []time.Duration
	for i, s := range samples[kind] {
		if qs[i%len(qs)] == q {
			ds = append(ds, s.took)
		}
	}
	return sortedCopy(ds)
}

// thousands writes n with comma separators.
func thousands(n int) string {
	s := strconv.Itoa(n)
	for i := len(s) - 3; i > 0; i -= 3 {
		s = s[:i] + "," + s[i:]
	}
	return s
}

// capacityLog asks every DynamoDB read for its consumed capacity
// (ReturnConsumedCapacity TOTAL) and sums what the answers report.
type capacityLog struct {
	mu    sync.Mutex
	units float64
}

func (l *capacityLog) middleware(stack *middleware.Stack) error {
	return stack.Initialize.Add(middleware.InitializeMiddlewareFunc("BenchCapacity",
		func(ctx context.Context, in middleware.InitializeInput, next middleware.InitializeHandler) (middleware.InitializeOutput, middleware.Metadata, error) {
			switch p := in.Parameters.(type) {
			case *dynamodb.QueryInput:
				p.ReturnConsumedCapacity = types.ReturnConsumedCapacityTotal
			case *dynamodb.GetItemInput:
				p.ReturnConsumedCapacity = types.ReturnConsumedCapacityTotal
			case *dynamodb.BatchGetItemInput:
				p.ReturnConsumedCapacity = types.ReturnConsumedCapacityTotal
			}
			out, md, err := next.HandleInitialize(ctx, in)
			var used []types.ConsumedCapacity
			switch r := out.Result.(type) {
			case *dynamodb.QueryOutput:
				if r.ConsumedCapacity != nil {
					used = append(used, *r.ConsumedCapacity)
				}
			case *dynamodb.GetItemOutput:
				if r.ConsumedCapacity != nil {
					used = append(used, *r.ConsumedCapacity)
				}
			case *dynamodb.BatchGetItemOutput:
				used = append(used, r.ConsumedCapacity...)
			}
			l.mu.Lock()
			for _, c := range used {
				if c.CapacityUnits != nil {
					l.units += *c.CapacityUnits
				}
			}
			l.mu.Unlock()
			return out, md, err
		}), middleware.After)
}

func (l *capacityLog) reset() {
	l.mu.Lock()
	l.units = 0
	l.mu.Unlock()
}

func (l *capacityLog) total() float64 {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.units
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
// totals the read units per search and the number of matches of each
// query ("+" when bounds says the total is a lower bound).
func writeSearchTable(w io.Writer, kinds []string, mix []searchCase, samples map[string][]searchSample, totals map[string]int, bounds map[string]bool, withDepth bool) {
	fmt.Fprintf(w, "   %-28s %6s %10s %10s %7s", "kind", "n", "p50", "p99", "calls")
	if withDepth {
		fmt.Fprintf(w, " %7s", "depth")
	}
	if totals != nil {
		fmt.Fprintf(w, " %14s   %s", "read units", "queries (matches)")
	}
	fmt.Fprintln(w)
	var all []time.Duration
	for _, k := range kinds {
		ss := samples[k]
		var ds []time.Duration
		var calls, depths []int
		var units, maxUnits float64
		for _, s := range ss {
			ds = append(ds, s.took)
			calls = append(calls, s.calls)
			depths = append(depths, s.depth)
			units += s.rcu
			maxUnits = max(maxUnits, s.rcu)
		}
		all = append(all, ds...)
		sorted := sortedCopy(ds)
		fmt.Fprintf(w, "   %-28s %6d %10s %10s %7s", k, len(ss), ms(percentile(sorted, 0.5)), ms(percentile(sorted, 0.99)), span(calls))
		if withDepth {
			fmt.Fprintf(w, " %7s", span(depths))
		}
		if totals != nil {
			fmt.Fprintf(w, " %14s", fmt.Sprintf("%.1f (%.1f)", units/float64(max(1, len(ss))), maxUnits))
			var qs []string
			for _, c := range mix {
				if c.kind != k {
					continue
				}
				plus := ""
				if bounds[c.q] {
					plus = "+"
				}
				label := fmt.Sprintf("%q (%d%s)", c.q, totals[c.q], plus)
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
