package main

import (
	"flag"
	"fmt"
	"log/slog"
	"net/http/httptest"
	"net/url"
	"os"
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
	clubLinesOut    = flag.String("clublines-out", "", "write the club lines latency table to this file")
	clubLinesRounds = flag.Int("clublines-rounds", 300, "measured requests per case of TestClubLinesBench")
)

// clubLinesCount is the club's size the issue asks the figure for.
const clubLinesCount = 200

// TestClubLinesBench measures GET /v1/clubs/{id}/lines on a club holding
// 200 lines by 10 authors about 4 books, some liked: one request at a
// time through the real router (admission, rate-limit counter, access
// log) served in process by an httptest server over DynamoDB Local, so
// the figure is the service's own latency on the local stack without a
// network between processes. Cases: the first page without a token (a
// public club), the first page for a member of a private club (the
// membership read and isLiked added), the largest page (100), and a walk
// of all 200 lines by cursor. The lines are posted through the API
// beforehand (rate limits off while posting, so 200 posts fit).
func TestClubLinesBench(t *testing.T) {
	if os.Getenv(EnvBenchClubLines) == "" {
		t.Skipf("set %s=1 to run (about a minute; `go run ./local/bench clublines` does)", EnvBenchClubLines)
	}
	quiet := testenv.WithLogger(slog.New(slog.DiscardHandler))
	env := testenv.New(t, quiet)
	res, err := env.App.Books.Import(t.Context(), benchCatalog)
	if err != nil || res.Failed > 0 {
		t.Fatalf("import bench catalog: %v %+v", err, res.Errors)
	}
	var bookIDs []string
	for _, r := range benchCatalog {
		b, err := env.App.Books.GetByISBN(t.Context(), r.ISBN)
		if err != nil {
			t.Fatal(err)
		}
		bookIDs = append(bookIDs, b.ID)
	}

	host := env.Signup(t, "bench_host")
	env.SetTier(t, host, users.TierPremium)
	clubs := map[bool]string{}
	for _, public := range []bool{true, false} {
		res := env.Do("POST", "/v1/clubs", map[string]any{"name": fmt.Sprintf("Bench club (public %v)", public), "isPublic": public}, host.Token)
		if res.Status != 201 {
			t.Fatalf("create club: %s", res)
		}
		clubs[public] = res.JSON["id"].(string)
	}
	authors := []testenv.Account{host}
	for i := range 9 {
		a := env.Signup(t, fmt.Sprintf("bench_author_%d", i))
		env.SetTier(t, a, users.TierPremium) // no monthly quota in the way
		for _, id := range clubs {
			if res := env.Do("POST", "/v1/clubs/"+id+"/members", map[string]any{"userId": a.ID}, host.Token); res.Status != 201 {
				t.Fatalf("add member: %s", res)
			}
		}
		authors = append(authors, a)
	}
	for _, public := range []bool{true, false} {
		for i := range clubLinesCount {
			a := authors[i%len(authors)]
			res := env.Do("POST", "/v1/lines", map[string]any{
				"bookId": bookIDs[i%len(bookIDs)], "content": fmt.Sprintf("Line %d of the club: a sentence or two about the chapter.", i),
				"pageNumber": 1 + i, "clubId": clubs[public],
			}, a.Token)
			if res.Status != 201 {
				t.Fatalf("post line %d: %s", i, res)
			}
			if i%3 == 0 { // some lines liked by the reader who will list them
				id := res.JSON["id"].(string)
				if res := env.Do("POST", "/v1/lines/"+id+"/like", nil, authors[1].Token); res.Status != 200 {
					t.Fatalf("like: %s", res)
				}
			}
		}
	}
	progress("clublines: %d lines posted in each of 2 clubs", clubLinesCount)

	// A second app over the same table, as the call benchmark builds it,
	// with its JSON access log read for the calls of each request. Its
	// rate-limit counter is off: an anonymous caller may send 60 requests
	// a minute, and the measure sends hundreds; the counter's one
	// UpdateItem runs beside the caller read and the list's first reads,
	// so it adds a call but no round trip.
	logs := newAccessLog()
	a := app.New(env.Config, app.NewClients(env.AWS), slog.New(slog.NewJSONHandler(logs, nil)), nil)
	a.Counter = nil
	srv := httptest.NewServer(logs.wrap(devserver.Handler(a, groups.All(a.Deps()))))
	defer srv.Close()
	c := &client{Base: srv.URL, HTTP: srv.Client()}
	member := func(n int) string { return authors[1+n%(len(authors)-1)].Token }

	type benchCase struct {
		name  string
		pages func(n int) (pages int, total int, calls int, depth int, took time.Duration)
	}
	run := func(path, token string) (*response, accessRecord) {
		res := c.Do("GET", path, nil, token)
		rec, ok := logs.wait(res.Header.Get("X-Request-Id"), 2*time.Second)
		if !ok || res.Status != 200 {
			t.Fatalf("GET %s: HTTP %d %s", path, res.Status, res.Body)
		}
		return res, rec
	}
	walk := func(path, token string) (int, int, int, int, time.Duration) {
		start := time.Now()
		pages, items, calls, depth := 0, 0, 0, 0
		next := path
		for {
			res, rec := run(next, token)
			pages++
			calls += rec.Calls
			depth += rec.Depth
			items += len(res.JSON["items"].([]any))
			cur, _ := res.JSON["nextCursor"].(string)
			if cur == "" {
				break
			}
			sep := "?"
			if strings.Contains(path, "?") {
				sep = "&"
			}
			next = path + sep + "cursor=" + url.QueryEscape(cur)
		}
		return pages, items, calls, depth, time.Since(start)
	}
	single := func(path string, token func(int) string) func(int) (int, int, int, int, time.Duration) {
		return func(n int) (int, int, int, int, time.Duration) {
			start := time.Now()
			res, rec := run(path, token(n))
			return 1, len(res.JSON["items"].([]any)), rec.Calls, rec.Depth, time.Since(start)
		}
	}
	anon := func(int) string { return "" }
	cases := []benchCase{
		{"public club, no token, first page (20)", single("/v1/clubs/"+clubs[true]+"/lines", anon)},
		{"private club, a member, first page (20)", single("/v1/clubs/"+clubs[false]+"/lines", member)},
		{"private club, a member, limit=100", single("/v1/clubs/"+clubs[false]+"/lines?limit=100", member)},
		{"all 200 by cursor, limit=100 (2 pages)", func(n int) (int, int, int, int, time.Duration) {
			return walk("/v1/clubs/"+clubs[false]+"/lines?limit=100", member(n))
		}},
	}
	var report strings.Builder
	fmt.Fprintf(&report, "   %d lines in each club (10 authors, 4 books, a third liked by the reading member); one request at a time, %d measured per case after 20 unrecorded\n",
		clubLinesCount, *clubLinesRounds)
	fmt.Fprintf(&report, "   %-42s %5s %6s %10s %10s %10s %6s %6s\n", "case", "n", "items", "p50", "p99", "max", "calls", "depth")
	for _, bc := range cases {
		var took []time.Duration
		var items, calls, depth int
		for i := -20; i < *clubLinesRounds; i++ {
			_, it, cl, dp, d := bc.pages(i + 20)
			if i < 0 {
				continue
			}
			took = append(took, d)
			items, calls, depth = it, cl, dp
		}
		s := sortedCopy(took)
		fmt.Fprintf(&report, "   %-42s %5d %6d %10s %10s %10s %6d %6d\n", bc.name, len(s), items,
			ms(percentile(s, .5)), ms(percentile(s, .99)), ms(s[len(s)-1]), calls, depth)
		progress("clublines: %s done", bc.name)
	}
	fmt.Fprintf(&report, "   calls and depth: DynamoDB calls and sequential round trips of the last request (a walk: summed over its pages)\n")
	t.Logf("GET /v1/clubs/{id}/lines:\n%s", report.String())
	if *clubLinesOut != "" {
		if err := os.WriteFile(*clubLinesOut, []byte(report.String()), 0o644); err != nil {
			t.Fatal(err)
		}
	}
}
