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
	ordersOut = flag.String("orders-out", "", "write the orders table to this file")
	ordersN   = flag.Int("orders-n", 300, "orders placed (with "+EnvBenchOrders+"=1; 5 otherwise)")
)

// TestOrdersBench places orders of 3 items from 2 stores (two books from
// one store, one from the other: two store shipments, each priced and
// taxed) one at a time over HTTP, each paid with pm_card_visa at the
// Stripe stand-in, and measures POST /v1/orders client-side, with its
// DynamoDB calls and depth from the access log (the provider's one HTTP
// call is not a DynamoDB call). 300 orders with BENCH_ORDERS=1 (`go run
// ./local/bench orders`); 5 otherwise, so `make test` checks it runs.
func TestOrdersBench(t *testing.T) {
	n := 5
	if os.Getenv(EnvBenchOrders) != "" {
		n = *ordersN
	}
	env := testenv.New(t, testenv.WithLogger(slog.New(slog.DiscardHandler)))
	ids := env.ImportBooks(t,
		books.Record{ISBN: books.CompleteISBN13("978000000101"), Title: "Order Bench One", Authors: []string{"Ada Bench"}},
		books.Record{ISBN: books.CompleteISBN13("978000000102"), Title: "Order Bench Two", Authors: []string{"Ada Bench"}},
		books.Record{ISBN: books.CompleteISBN13("978000000103"), Title: "Order Bench Three", Authors: []string{"Ada Bench"}})

	// Two stores, each stocking the books deep enough for every order.
	var items []string
	for i, city := range []struct{ slug, line, city, state, zip string }{
		{"order-bench-a", "1005 W Burnside St", "Portland", "OR", "97209"},
		{"order-bench-b", "1521 10th Ave", "Seattle", "WA", "98122"},
	} {
		owner := env.Signup(t, fmt.Sprintf("order_bench_owner%d", i))
		env.SetTier(t, owner, users.TierBookstore)
		res := env.Do("POST", "/v1/stores", map[string]any{"name": "Order Bench " + city.city, "slug": city.slug,
			"addressLine1": city.line, "city": city.city, "state": city.state, "postalCode": city.zip, "country": "US"}, owner.Token)
		if res.Status != 201 {
			t.Fatalf("create a store: %s", res)
		}
		storeID := res.JSON["id"].(string)
		for _, b := range ids {
			res := env.Do("POST", "/v1/inventory", map[string]any{"storeId": storeID, "bookId": b, "quantity": 10 * (n + 10),
				"priceCents": 1299, "condition": "new"}, owner.Token)
			if res.Status != 201 {
				t.Fatalf("stock a book: %s", res)
			}
		}
		items = append(items, inventory.ItemID(storeID, ids[0]), inventory.ItemID(storeID, ids[1]), inventory.ItemID(storeID, ids[2]))
	}
	buyer := env.Signup(t, "order_bench_buyer")
	// Two from the first store, one from the second.
	lines := []any{
		map[string]any{"inventoryId": items[0], "quantity": 1},
		map[string]any{"inventoryId": items[1], "quantity": 2},
		map[string]any{"inventoryId": items[5], "quantity": 1},
	}
	body := map[string]any{"items": lines, "paymentMethodId": "pm_card_visa", "shippingAddress": map[string]any{
		"name": "Bench Buyer", "addressLine1": "1 Main St", "city": "Portland", "state": "OR", "postalCode": "97205", "country": "US"}}

	// A second app over the table with the access log to read; the
	// rate-limit counter off (one client, many requests).
	logs := newAccessLog()
	a := app.New(env.Config, app.NewClients(env.AWS), slog.New(slog.NewJSONHandler(logs, nil)), nil)
	a.Counter = nil
	srv := httptest.NewServer(logs.wrap(devserver.Handler(a, groups.All(a.Deps()))))
	defer srv.Close()
	c := &client{Base: srv.URL, HTTP: srv.Client()}

	place := func() storeSample {
		begin := time.Now()
		res := c.Do("POST", "/v1/orders", body, buyer.Token)
		took := time.Since(begin)
		if res.Status != 201 {
			t.Fatalf("POST /v1/orders: HTTP %d %s", res.Status, res.Body)
		}
		rec, ok := logs.wait(res.Header.Get("X-Request-Id"), 2*time.Second)
		if !ok {
			t.Fatal("POST /v1/orders: no access-log record")
		}
		return storeSample{took: took, calls: rec.Calls, depth: rec.Depth}
	}
	for range 3 { // warm-up, unrecorded
		place()
	}
	var ss []storeSample
	for range n {
		ss = append(ss, place())
	}
	sorted := sortedCopy(durations(ss))
	var calls, depth int
	for _, s := range ss {
		calls += s.calls
		depth += s.depth
	}
	var report strings.Builder
	fmt.Fprintf(&report, "   POST /v1/orders, 3 items (4 copies) from 2 stores, paid with pm_card_visa, one at a time, client-side time; calls and depth from the access log:\n")
	fmt.Fprintf(&report, "   n=%d  p50 %s  p90 %s  p99 %s  max %s  DynamoDB calls %.1f  depth %.1f (plus one call to the payment provider)\n",
		len(ss), ms(percentile(sorted, .5)), ms(percentile(sorted, .9)), ms(percentile(sorted, .99)), ms(sorted[len(sorted)-1]),
		float64(calls)/float64(len(ss)), float64(depth)/float64(len(ss)))
	t.Logf("orders:\n%s", report.String())
	if *ordersOut != "" {
		if err := os.WriteFile(*ordersOut, []byte(report.String()), 0o644); err != nil {
			t.Fatal(err)
		}
	}
}
