package main

import (
	"context"
	"flag"
	"fmt"
	"github.com/bookplatform/backend/shared/dynamo"
	"log/slog"
	"math"
	"math/rand/v2"
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
	"github.com/bookplatform/backend/shared/geo"
	"github.com/bookplatform/backend/shared/groups"
	"github.com/bookplatform/backend/shared/ids"
	"github.com/bookplatform/backend/shared/stores"
	"github.com/bookplatform/backend/shared/users"
	"golang.org/x/sync/errgroup"
)

var (
	storesOut     = flag.String("stores-out", "", "write the store search and lookup tables to this file")
	storesCount   = flag.Int("stores-count", 5000, "generated stores")
	storesQueries = flag.Int("stores-queries", 500, "measured requests of each kind")
)

// metros are where most generated stores are: around ten US cities (a
// store every few square miles in their centres), the rest anywhere in
// the contiguous states.
var metros = []geo.Point{
	{Lat: 40.7128, Lng: -74.0060}, {Lat: 34.0522, Lng: -118.2437}, {Lat: 41.8781, Lng: -87.6298},
	{Lat: 29.7604, Lng: -95.3698}, {Lat: 47.6062, Lng: -122.3321}, {Lat: 37.7749, Lng: -122.4194},
	{Lat: 42.3601, Lng: -71.0589}, {Lat: 39.7392, Lng: -104.9903}, {Lat: 45.5152, Lng: -122.6784},
	{Lat: 30.2672, Lng: -97.7431},
}

// milesAway is a point about d miles from p in a random direction.
func milesAway(p geo.Point, d float64, rng *rand.Rand) geo.Point {
	b := rng.Float64() * 2 * math.Pi
	return geo.Point{Lat: p.Lat + d*math.Cos(b)/69.0, Lng: p.Lng + d*math.Sin(b)/(69.0*math.Cos(p.Lat*math.Pi/180))}
}

// benchStorePoint draws a store's position: 80% around a metro (normal,
// 12 miles deviation), 20% uniform over the contiguous states.
func benchStorePoint(rng *rand.Rand) geo.Point {
	if rng.Float64() < 0.8 {
		return milesAway(metros[rng.IntN(len(metros))], math.Abs(rng.NormFloat64())*12, rng)
	}
	return geo.Point{Lat: 25 + rng.Float64()*24, Lng: -124 + rng.Float64()*57}
}

// TestStoresBench measures GET /v1/stores near a position and GET
// /v1/stores/lookup-by-domain over HTTP, with N generated stores (5,000
// by default, one in five with a custom domain). It runs only with
// BENCH_STORES=1 (`go run ./local/bench stores`, `make bench`).
func TestStoresBench(t *testing.T) {
	if os.Getenv(EnvBenchStores) == "" {
		t.Skipf("set %s=1 to run (about a minute; `go run ./local/bench stores` does)", EnvBenchStores)
	}
	env := testenv.New(t)
	ctx := context.Background()
	rng := rand.New(rand.NewPCG(7, 11))

	// Stores are written through the storage, as the API writes them
	// (CreateStore: the store, its listing, its slug claim and its
	// owner's mark in one transaction), 16 at a time.
	start := time.Now()
	n := *storesCount
	all := make([]*stores.Store, n)
	now := time.Now().UTC()
	for i := range all {
		p := benchStorePoint(rng)
		all[i] = &stores.Store{
			ID: ids.New(), Slug: fmt.Sprintf("bench-store-%05d", i), Name: fmt.Sprintf("Bench Store %05d", i),
			Address: stores.Address{AddressLine1: fmt.Sprintf("%d Main St", i+1), City: "Bench City", State: "OR", PostalCode: "97209", Country: "US"},
			Hours:   stores.Hours{"monday": "9-17"}, Location: &p, LocationGiven: true, TaxRateMicros: 82500,
			Domain: stores.Domain{Status: stores.DomainNone}, OwnerUserID: ids.New(), Version: 1, CreatedAt: now, UpdatedAt: now,
		}
	}
	var written atomic.Int64
	g, gctx := errgroup.WithContext(ctx)
	g.SetLimit(16)
	for i, st := range all {
		g.Go(func() error {
			u := &users.User{
				ID: st.OwnerUserID, Username: fmt.Sprintf("bench_owner_%05d", i), Email: fmt.Sprintf("bench.owner.%05d@example.com", i),
				DisplayName: "Bench Owner", Tier: users.TierBookstore, CreatedAt: now, UpdatedAt: now,
			}
			if err := dynamo.NewUsers(env.App.Table).CreateUser(gctx, u); err != nil {
				return err
			}
			if err := dynamo.NewBookstores(env.App.Table).CreateStore(gctx, st); err != nil {
				return err
			}
			if i%5 == 0 {
				if err := dynamo.NewBookstores(env.App.Table).ClaimDomain(gctx, st, benchDomain(i), now); err != nil {
					return err
				}
			}
			if w := written.Add(1); w%1000 == 0 {
				progress("stores: %d/%d written", w, n)
			}
			return nil
		})
	}
	if err := g.Wait(); err != nil {
		t.Fatalf("generate stores: %v", err)
	}
	var report strings.Builder
	fmt.Fprintf(&report, "   %d stores generated (80%% around 10 US metros, normal with a 12-mile deviation; 20%% anywhere in the contiguous states), %d with a custom domain, written in %s\n",
		n, (n+4)/5, time.Since(start).Round(100*time.Millisecond))

	// A second app over the table with the access log to read (calls
	// and depth per request). The rate-limit counter is off: every
	// request comes from one address, which the anonymous limit (60 a
	// minute) would refuse; it runs beside the reads and adds no depth.
	logs := newAccessLog()
	a := app.New(env.Config, app.NewClients(env.AWS), slog.New(slog.NewJSONHandler(logs, nil)), nil)
	a.Counter = nil
	srv := httptest.NewServer(logs.wrap(devserver.Handler(a, groups.All(a.Deps()))))
	defer srv.Close()
	c := &client{Base: srv.URL, HTTP: srv.Client()}

	type sample = storeSample
	measure := func(path string) sample {
		t.Helper()
		begin := time.Now()
		res := c.Do("GET", path, nil, "")
		took := time.Since(begin)
		if res.Status != 200 && res.Status != 404 {
			t.Fatalf("GET %s: HTTP %d %s", path, res.Status, res.Body)
		}
		rec, ok := logs.wait(res.Header.Get("X-Request-Id"), 2*time.Second)
		if !ok {
			t.Fatalf("GET %s: no access-log record", path)
		}
		total, _ := res.JSON["total"].(float64)
		return sample{took: took, calls: rec.Calls, depth: rec.Depth, found: int(total)}
	}
	summarize := func(name string, ss []sample, withTotal bool) {
		ds := make([]time.Duration, len(ss))
		var calls, depth, maxDepth, totals, maxTotal int
		for i, s := range ss {
			ds[i] = s.took
			calls += s.calls
			depth += s.depth
			maxDepth = max(maxDepth, s.depth)
			totals += s.found
			maxTotal = max(maxTotal, s.found)
		}
		sorted := sortedCopy(ds)
		fmt.Fprintf(&report, "   %-44s n=%d  p50 %s  p90 %s  p99 %s  max %s  calls %.1f  depth %.1f (max %d)",
			name, len(ss), ms(percentile(sorted, .5)), ms(percentile(sorted, .9)), ms(percentile(sorted, .99)), ms(sorted[len(sorted)-1]),
			float64(calls)/float64(len(ss)), float64(depth)/float64(len(ss)), maxDepth)
		if withTotal {
			fmt.Fprintf(&report, "  stores within: %.0f on average, %d at most", float64(totals)/float64(len(ss)), maxTotal)
		}
		fmt.Fprintln(&report)
	}

	near := func(radius string, metro bool, q int) []sample {
		var out []sample
		for i := -20; i < q; i++ { // 20 warm-up requests, unrecorded
			p := geo.Point{Lat: 25 + rng.Float64()*24, Lng: -124 + rng.Float64()*57}
			if metro {
				p = milesAway(metros[rng.IntN(len(metros))], rng.Float64()*8, rng)
			}
			path := fmt.Sprintf("/v1/stores?latitude=%.5f&longitude=%.5f%s", p.Lat, p.Lng, radius)
			if s := measure(path); i >= 0 {
				out = append(out, s)
			}
		}
		return out
	}
	q := *storesQueries
	fmt.Fprintf(&report, "   GET /v1/stores over HTTP, one request at a time, client-side time; calls and depth from the access log:\n")
	inMetro := near("", true, q)
	summarize("near a metro centre, default radius 25 mi", inMetro, true)
	summarize("anywhere in the contiguous states, 25 mi", near("", false, q/2), true)
	summarize("near a metro centre, radius 50 mi", near("&radius=50", true, q/2), true)
	summarize("near a metro centre, radius 100 mi", near("&radius=100", true, q/5), true)
	summarize("near a metro centre, 25 mi, page 3 (offset 40)", near("&offset=40", true, q/5), true)
	// Wide and polar searches read ranges of the position list
	// (geo.PlanSearch): a bounded number of Queries however wide.
	summarize("near a metro centre, radius 300 mi (ranges)", near("&radius=300", true, q/10), true)
	summarize("near a metro centre, radius 700 mi (ranges)", near("&radius=700", true, q/10), true)
	summarize("the whole globe, radius 12450 mi (ranges)", near("&radius=12450", true, q/10), true)
	var polar []sample
	for range q / 10 {
		polar = append(polar, measure(fmt.Sprintf("/v1/stores?latitude=%.5f&longitude=%.5f&radius=100", 88+rng.Float64()*2, rng.Float64()*360-180)))
	}
	summarize("near the north pole, 100 mi (ranges)", polar, true)
	var byName []sample
	for range q / 5 {
		byName = append(byName, measure(fmt.Sprintf("/v1/stores?offset=%d", rng.IntN(n))))
	}
	summarize("by name, a random page (offset up to 5,000)", byName, true)

	var lookups, unknown []sample
	for i := -20; i < q; i++ {
		path := "/v1/stores/lookup-by-domain?domain=" + url.QueryEscape(benchDomain(5*rng.IntN((n+4)/5)))
		if s := measure(path); i >= 0 {
			lookups = append(lookups, s)
		}
	}
	for i := range q / 5 {
		unknown = append(unknown, measure(fmt.Sprintf("/v1/stores/lookup-by-domain?domain=nobody%d.bench.example.com", i)))
	}
	fmt.Fprintf(&report, "   GET /v1/stores/lookup-by-domain over HTTP (unmetered):\n")
	summarize("a store's domain", lookups, false)
	summarize("an unknown domain (404)", unknown, false)

	p99 := percentile(sortedCopy(durations(inMetro)), .99)
	fmt.Fprintf(&report, "   target: p99 of GET /v1/stores near a metro under 50 ms: %s (%s)\n", ms(p99), map[bool]string{true: "met", false: "MISSED"}[p99 < 50*time.Millisecond])
	t.Logf("stores:\n%s", report.String())
	if *storesOut != "" {
		if err := os.WriteFile(*storesOut, []byte(report.String()), 0o644); err != nil {
			t.Fatal(err)
		}
	}
}

func benchDomain(i int) string { return fmt.Sprintf("shop%05d.bench.example.com", i) }

// storeSample is one measured request.
type storeSample struct {
	took                time.Duration
	calls, depth, found int
}

func durations(ss []storeSample) []time.Duration {
	out := make([]time.Duration, len(ss))
	for i, s := range ss {
		out[i] = s.took
	}
	return out
}
