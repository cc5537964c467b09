package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"log/slog"
	"net/http/httptest"
	"net/url"
	"os"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/bookplatform/backend/local/devserver"
	"github.com/bookplatform/backend/local/testenv"
	"github.com/bookplatform/backend/shared/app"
	"github.com/bookplatform/backend/shared/books"
	"github.com/bookplatform/backend/shared/dynamo"
	"github.com/bookplatform/backend/shared/groups"
	"github.com/bookplatform/backend/shared/inventory"
	"github.com/bookplatform/backend/shared/users"
	"golang.org/x/sync/errgroup"
)

var (
	inventoryOut    = flag.String("inventory-out", "", "write the inventory search table to this file")
	inventoryItems  = flag.Int("inventory-items", 20000, "items in the one store (with "+EnvBenchInventory+"=1; 300 otherwise)")
	inventoryRounds = flag.Int("inventory-rounds", 40, "rounds of the query mix (with "+EnvBenchInventory+"=1; 3 otherwise)")
)

// inventoryCase is one request of the mix: a search (or none) and its
// filters.
type inventoryCase struct {
	kind, query string
}

// inventoryMix is what a bookseller looks for in their own stock, in the
// synthetic catalog's words: "love" is in about one title in eight, so at
// 20,000 items its postings are past inventory.MaxSearchPostings and its
// total is a lower bound.
func inventoryMix(n int) []inventoryCase {
	return []inventoryCase{
		{"common word", "search=love"},
		{"common word", "search=house"},
		{"two words", "search=dark%20garden"},
		{"two words", "search=silent%20river"},
		{"author name", "search=maria%20garcia"},
		{"author name", "search=harrison"},
		{"prefix", "search=harr"},
		{"prefix after a word", "search=golden%20gar"},
		{"ISBN-13", "search=" + syntheticISBN13(n/2)},
		{"ISBN-13", "search=" + syntheticISBN13(n/3)},
		{"no result", "search=xylophonist"},
		{"in stock only, a word", "inStockOnly=true&search=night"},
		{"list, first page", ""},
		{"list, in stock, page 3", "inStockOnly=true&offset=100"},
	}
}

// TestInventoryBench stocks one store with N items (20,000 with
// BENCH_INVENTORY=1: `go run ./local/bench inventory`; 300 otherwise, so
// that `make test` only checks that it runs) of the synthetic catalog,
// through the StockWriter as an import writes them, and measures GET
// /v1/inventory over HTTP: searches by word, words, author, prefix and
// ISBN, in stock only, and plain pages, with DynamoDB calls and depth from
// the access log. The target: search p99 under 50 ms.
func TestInventoryBench(t *testing.T) {
	n, rounds := 300, 3
	if os.Getenv(EnvBenchInventory) != "" {
		n, rounds = *inventoryItems, *inventoryRounds
	}
	quiet := testenv.WithLogger(slog.New(slog.DiscardHandler))
	env := testenv.New(t, quiet)
	ctx := context.Background()
	importSynthetic(t, env.App, n)

	owner := env.Signup(t, "inventory_bench_owner")
	env.SetTier(t, owner, users.TierBookstore)
	res := env.Do("POST", "/v1/stores", map[string]any{
		"name": "Bench Stock", "slug": "bench-stock", "addressLine1": "1005 W Burnside St", "city": "Portland", "state": "OR",
		"postalCode": "97209", "country": "US",
	}, owner.Token)
	if res.Status != 201 {
		t.Fatalf("create the store: %s", res)
	}
	storeID := res.JSON["id"].(string)

	// Items are written as an import writes new ones (BatchWriter.SetNew:
	// items with their postings, history entries and events, several to
	// a transaction with one addition to the store's counts; side by side
	// they would only meet on those), 500 stocks a call, one call at a
	// time; one in four is out of stock.
	recs := syntheticBooks(n)
	found, err := dynamo.NewBooks(env.App.Table).FindBooksByISBN(ctx, isbnsOf(recs))
	if err != nil {
		t.Fatal(err)
	}
	start := time.Now()
	stock := dynamo.NewInventory(env.App.Table)
	sts := make([]inventory.Stock, len(recs))
	for i, r := range recs {
		b := found[r.ISBN]
		if b == nil {
			t.Fatalf("book %s not imported", r.ISBN)
		}
		sts[i] = inventory.Stock{BookID: b.ID, Quantity: i % 4, PriceCents: 999 + i%20*100, Condition: inventory.New}
	}
	var written atomic.Int64
	g, gctx := errgroup.WithContext(ctx)
	g.SetLimit(1)
	for from := 0; from < len(sts); from += 500 {
		part := sts[from:min(from+500, len(sts))]
		g.Go(func() error {
			_, errs := stock.SetNew(gctx, storeID, part, inventory.Cause{Kind: inventory.CauseImport, Ref: "bench"})
			if err := errors.Join(errs...); err != nil {
				return err
			}
			progress("inventory: %d/%d items written", written.Add(int64(len(part))), n)
			return nil
		})
	}
	if err := g.Wait(); err != nil {
		t.Fatalf("stock the store: %v", err)
	}
	took := time.Since(start)
	var report strings.Builder
	fmt.Fprintf(&report, "   one store with %d items of the synthetic catalog (one in four out of stock), written through BatchWriter.SetNew (500 a call, one at a time) in %s (%.0f items/s)\n",
		n, took.Round(100*time.Millisecond), float64(n)/took.Seconds())

	// Stocking a large store outlasts an access token: sign in again.
	owner = env.Login(t, owner)

	// A second app over the table with the access log to read; the
	// rate-limit counter off (one client, many requests).
	logs := newAccessLog()
	a := app.New(env.Config, app.NewClients(env.AWS), slog.New(slog.NewJSONHandler(logs, nil)), nil)
	a.Counter = nil
	srv := httptest.NewServer(logs.wrap(devserver.Handler(a, groups.All(a.Deps()))))
	defer srv.Close()
	c := &client{Base: srv.URL, HTTP: srv.Client()}

	mix := inventoryMix(n)
	samples := map[string][]storeSample{}
	lowerBound := map[string]bool{}
	measure := func(q inventoryCase) storeSample {
		path := "/v1/inventory?storeId=" + url.QueryEscape(storeID)
		if q.query != "" {
			path += "&" + q.query
		}
		begin := time.Now()
		res := c.Do("GET", path, nil, owner.Token)
		took := time.Since(begin)
		if res.Status != 200 {
			t.Fatalf("GET %s: HTTP %d %s", path, res.Status, res.Body)
		}
		rec, ok := logs.wait(res.Header.Get("X-Request-Id"), 2*time.Second)
		if !ok {
			t.Fatalf("GET %s: no access-log record", path)
		}
		if lb, _ := res.JSON["totalIsLowerBound"].(bool); lb {
			lowerBound[q.kind] = true
		}
		total, _ := res.JSON["total"].(float64)
		return storeSample{took: took, calls: rec.Calls, depth: rec.Depth, found: int(total)}
	}
	for range 2 { // warm-up, unrecorded
		for _, q := range mix {
			measure(q)
		}
	}
	var searches []time.Duration
	var kinds []string
	for range rounds {
		for _, q := range mix {
			s := measure(q)
			if len(samples[q.kind]) == 0 {
				kinds = append(kinds, q.kind)
			}
			samples[q.kind] = append(samples[q.kind], s)
			if strings.Contains(q.query, "search=") {
				searches = append(searches, s.took)
			}
		}
	}
	fmt.Fprintf(&report, "   GET /v1/inventory over HTTP as the owner, one request at a time, client-side time; calls and depth from the access log; %d rounds:\n", rounds)
	for _, k := range kinds {
		ss := samples[k]
		sorted := sortedCopy(durations(ss))
		var calls, depth, maxTotal int
		for _, s := range ss {
			calls += s.calls
			depth += s.depth
			maxTotal = max(maxTotal, s.found)
		}
		bound := ""
		if lowerBound[k] {
			bound = " (a lower bound)"
		}
		fmt.Fprintf(&report, "   %-26s n=%-4d p50 %s  p90 %s  p99 %s  max %s  calls %.1f  depth %.1f  total up to %d%s\n",
			k, len(ss), ms(percentile(sorted, .5)), ms(percentile(sorted, .9)), ms(percentile(sorted, .99)), ms(sorted[len(sorted)-1]),
			float64(calls)/float64(len(ss)), float64(depth)/float64(len(ss)), maxTotal, bound)
	}
	sorted := sortedCopy(searches)
	p99 := percentile(sorted, .99)
	fmt.Fprintf(&report, "   every search (n=%d): p50 %s  p99 %s\n", len(sorted), ms(percentile(sorted, .5)), ms(p99))
	fmt.Fprintf(&report, "   target: search p99 with %d items in one store under 50 ms: %s (%s)\n", n, ms(p99),
		map[bool]string{true: "met", false: "MISSED"}[p99 < 50*time.Millisecond])
	t.Logf("inventory:\n%s", report.String())
	if *inventoryOut != "" {
		if err := os.WriteFile(*inventoryOut, []byte(report.String()), 0o644); err != nil {
			t.Fatal(err)
		}
	}
}

// isbnsOf lists the records' ISBNs (the synthetic ones are ISBN-13s).
func isbnsOf(recs []books.Record) []string {
	out := make([]string, len(recs))
	for i, r := range recs {
		out[i] = r.ISBN
	}
	return out
}
