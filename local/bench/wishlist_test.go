package main

import (
	"flag"
	"fmt"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"os"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/bookplatform/backend/local/devserver"
	"github.com/bookplatform/backend/local/testenv"
	"github.com/bookplatform/backend/shared/app"
	"github.com/bookplatform/backend/shared/groups"
	"github.com/bookplatform/backend/shared/users"
)

var (
	wishlistOut    = flag.String("wishlist-out", "", "write the wishlist view table to this file")
	wishlistItems  = flag.Int("wishlist-items", 200, "books on the measured wishlist")
	wishlistRounds = flag.Int("wishlist-rounds", 300, "measured requests per case")
)

// TestWishlistViewLatency measures GET /v1/wishlists/{id} with 200 books
// on the wishlist: the real router and handlers (devserver.Handler, as
// `make run` serves them) over HTTP on loopback, DynamoDB Local in
// memory, rate limits on. The wishlist is filled through the API; each
// case is warmed up, then requested one request at a time, and the
// latency is the client's, from sending the request to reading the last
// byte of the answer. The access log gives each answer's DynamoDB calls
// and depth. It runs only with BENCH_WISHLIST=1 (`go run ./local/bench
// wishlist`, `make bench`).
func TestWishlistViewLatency(t *testing.T) {
	if os.Getenv(EnvBenchWishlist) == "" {
		t.Skipf("set %s=1 (go run ./local/bench wishlist)", EnvBenchWishlist)
	}
	env := testenv.New(t, testenv.WithRateLimits())
	logs := newAccessLog()
	ops := &opLog{}
	awsCfg := env.AWS.Copy()
	awsCfg.APIOptions = append(slices.Clone(awsCfg.APIOptions), ops.middleware)
	a := app.New(env.Config, app.NewClients(awsCfg), slog.New(slog.NewJSONHandler(logs, nil)), nil)
	srv := httptest.NewServer(logs.wrap(devserver.Handler(a, groups.All(a.Deps()))))
	defer srv.Close()
	c := &client{Base: srv.URL, HTTP: srv.Client()}

	// The owner is a bookstore account: 600 requests a minute, room for
	// the filling and the measured rounds within the tier's rate.
	recs := syntheticBooks(*wishlistItems)
	res, err := a.Books.Import(t.Context(), recs)
	if err != nil || res.Failed > 0 {
		t.Fatalf("import: %v %+v", err, res.Errors)
	}
	signup := c.Do("POST", "/v1/auth/signup", map[string]any{
		"username": "wish_owner", "email": "wish.owner@example.com", "password": password, "displayName": "Wish Owner",
	}, "")
	if signup.Status != http.StatusCreated {
		t.Fatalf("sign up: %d %s", signup.Status, signup.Body)
	}
	token, _ := signup.JSON["token"].(string)
	ownerID, _ := signup.JSON["user"].(map[string]any)["id"].(string)
	if _, err := a.Users.SetTier(t.Context(), ownerID, users.TierBookstore); err != nil {
		t.Fatal(err)
	}
	// A token that names the new tier: with the old one, every request
	// would count against the free rate first and then be corrected, one
	// write more than a client signed in after an upgrade makes.
	login := c.Do("POST", "/v1/auth/login", map[string]any{"email": "wish.owner@example.com", "password": password}, "")
	if login.Status != http.StatusOK {
		t.Fatalf("log in: %d %s", login.Status, login.Body)
	}
	token, _ = login.JSON["token"].(string)
	created := c.Do("POST", "/v1/wishlists", map[string]any{"name": "Two hundred", "isPublic": true}, token)
	if created.Status != http.StatusCreated {
		t.Fatalf("create wishlist: %d %s", created.Status, created.Body)
	}
	id, _ := created.JSON["id"].(string)
	fill := time.Now()
	for i, rec := range recs {
		b, err := a.Books.GetByISBN(t.Context(), rec.ISBN)
		if err != nil {
			t.Fatal(err)
		}
		res := c.Do("POST", "/v1/wishlists/"+id+"/items", map[string]any{
			"bookId": b.ID, "priority": 1 + i%10, "notes": fmt.Sprintf("Wanted since spring, copy %d.", i),
		}, token)
		if res.Status != http.StatusCreated {
			t.Fatalf("add book %d: %d %s", i, res.Status, res.Body)
		}
	}
	fillTime := time.Since(fill)

	type result struct {
		name         string
		lat          []time.Duration
		calls, depth int
		bytes        int
		chain        string
	}
	measure := func(name, token string) result {
		r := result{name: name}
		for i := range 20 + *wishlistRounds {
			ops.reset()
			start := time.Now()
			res := c.Do("GET", "/v1/wishlists/"+id, nil, token)
			d := time.Since(start)
			if res.Status != http.StatusOK {
				t.Fatalf("%s: %d %s", name, res.Status, res.Body)
			}
			if n := len(res.JSON["items"].([]any)); n != *wishlistItems {
				t.Fatalf("%s: %d items, want %d", name, n, *wishlistItems)
			}
			if i < 20 {
				continue // warm-up
			}
			r.lat = append(r.lat, d)
			if rec, ok := logs.wait(res.Header.Get("X-Request-Id"), 2*time.Second); ok {
				r.calls, r.depth = rec.Calls, rec.Depth
			}
			r.chain = chain(ops.take())
			r.bytes = len(res.Body)
		}
		return r
	}
	// Signed in: an anonymous reader shares the loopback address's 60
	// requests a minute, too few for the rounds.
	results := []result{measure("signed in (owner)", token)}

	var out strings.Builder
	fmt.Fprintf(&out, "   %d books on the wishlist (filled through POST /v1/wishlists/{id}/items in %s); %d measured requests after 20 of warm-up, one at a time\n",
		*wishlistItems, fillTime.Round(time.Millisecond), *wishlistRounds)
	fmt.Fprintf(&out, "   %-20s %9s %9s %9s %9s %9s %6s %6s %8s\n", "case", "min", "p50", "p90", "p99", "max", "calls", "depth", "body")
	for _, r := range results {
		s := sortedCopy(r.lat)
		fmt.Fprintf(&out, "   %-20s %9s %9s %9s %9s %9s %6d %6d %7dK\n", r.name, ms(s[0]), ms(percentile(s, 0.5)), ms(percentile(s, 0.9)),
			ms(percentile(s, 0.99)), ms(s[len(s)-1]), r.calls, r.depth, r.bytes/1024)
	}
	for _, r := range results {
		fmt.Fprintf(&out, "   %s, last request: %s\n", r.name, r.chain)
	}
	t.Logf("GET /v1/wishlists/{id}:\n%s", out.String())
	if *wishlistOut != "" {
		if err := os.WriteFile(*wishlistOut, []byte(out.String()), 0o644); err != nil {
			t.Fatal(err)
		}
	}
}
