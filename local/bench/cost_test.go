package main

import (
	"bytes"
	"encoding/json"
	"flag"
	"fmt"
	"math"
	"net/http"
	"net/http/httptest"
	"os"
	"regexp"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/aws/aws-lambda-go/events"
	"github.com/bookplatform/backend/local/testenv"
	"github.com/bookplatform/backend/shared/api/apitest"
	"github.com/bookplatform/backend/shared/authorizer"
	"github.com/bookplatform/backend/shared/books"
	"github.com/bookplatform/backend/shared/callstats"
	"github.com/bookplatform/backend/shared/config"
	"github.com/bookplatform/backend/shared/groups"
	"github.com/bookplatform/backend/shared/inventory"
	"github.com/bookplatform/backend/shared/users"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// costOut and costRounds are set by `go run ./local/bench cost`; under
// go test the mix runs once, which is what TestCost checks the shape of.
var (
	costOut    = flag.String("cost-out", "", "write the cost report to this file")
	costRounds = flag.Int("cost-rounds", 1, "times each request of the cost mix is sent")
)

// costMix is the read-heavy mix the cost per million requests is stated
// for: each class's share of all requests, split over its requests by
// their weights. A group that adds routes adds its requests here, in its
// class or in a new one (the shares must add up to 100), with what its
// requests need set up in seedCostMix.
var costMix = []mixClass{
	{"book, search and book-list reads", 35, []mixRequest{
		{"GET /v1/books", "search", 3, 200, func(c *apitest.Client, s *mixState) *apitest.Response {
			return c.Do("GET", "/v1/books?q=garden", nil, "")
		}},
		{"GET /v1/books", "search, signed in", 2, 200, func(c *apitest.Client, s *mixState) *apitest.Response {
			return c.Do("GET", "/v1/books?q=garden+river", nil, s.reader.Token)
		}},
		{"GET /v1/books/{id}", "", 3, 200, func(c *apitest.Client, s *mixState) *apitest.Response {
			return c.Do("GET", "/v1/books/"+s.bookID, nil, "")
		}},
		{"GET /v1/books/{id}", "signed in", 2, 200, func(c *apitest.Client, s *mixState) *apitest.Response {
			return c.Do("GET", "/v1/books/"+s.bookID, nil, s.reader.Token)
		}},
		{"GET /v1/books/{id}/lines", "anonymous", 2, 200, func(c *apitest.Client, s *mixState) *apitest.Response {
			return c.Do("GET", "/v1/books/"+s.bookID+"/lines", nil, "")
		}},
		{"GET /v1/books/{id}/lines", "signed in", 3, 200, func(c *apitest.Client, s *mixState) *apitest.Response {
			return c.Do("GET", "/v1/books/"+s.bookID+"/lines", nil, s.reader.Token)
		}},
		{"GET /v1/books/{id}/reviews", "signed in", 2, 200, func(c *apitest.Client, s *mixState) *apitest.Response {
			return c.Do("GET", "/v1/books/"+s.bookID+"/reviews", nil, s.reader.Token)
		}},
	}},
	{"profiles", 17, []mixRequest{
		{"GET /v1/users/me", "", 3, 200, func(c *apitest.Client, s *mixState) *apitest.Response {
			return c.Do("GET", "/v1/users/me", nil, s.reader.Token)
		}},
		{"GET /v1/users/{userId}", "", 1, 200, func(c *apitest.Client, s *mixState) *apitest.Response {
			return c.Do("GET", "/v1/users/"+s.posters[0].ID, nil, "")
		}},
		{"GET /v1/users/username/{username}", "", 1, 200, func(c *apitest.Client, s *mixState) *apitest.Response {
			return c.Do("GET", "/v1/users/username/"+s.posters[0].Username, nil, "")
		}},
		{"GET /v1/users/{username}/lines", "signed in", 1, 200, func(c *apitest.Client, s *mixState) *apitest.Response {
			return c.Do("GET", "/v1/users/"+s.posters[0].Username+"/lines", nil, s.reader.Token)
		}},
	}},
	{"club and wishlist reads", 15, []mixRequest{
		{"GET /v1/clubs", "", 1, 200, func(c *apitest.Client, s *mixState) *apitest.Response {
			return c.Do("GET", "/v1/clubs", nil, s.reader.Token)
		}},
		{"GET /v1/clubs/{id}", "", 1, 200, func(c *apitest.Client, s *mixState) *apitest.Response {
			return c.Do("GET", "/v1/clubs/"+s.clubID, nil, s.reader.Token)
		}},
		{"GET /v1/clubs/{id}/lines", "", 1, 200, func(c *apitest.Client, s *mixState) *apitest.Response {
			return c.Do("GET", "/v1/clubs/"+s.clubID+"/lines", nil, s.reader.Token)
		}},
		{"GET /v1/wishlists/{id}", "", 1, 200, func(c *apitest.Client, s *mixState) *apitest.Response {
			return c.Do("GET", "/v1/wishlists/"+s.wishlistID, nil, s.reader.Token)
		}},
		{"GET /v1/wishlists", "", 1, 200, func(c *apitest.Client, s *mixState) *apitest.Response {
			return c.Do("GET", "/v1/wishlists", nil, s.reader.Token)
		}},
	}},
	{"store reads", 6, []mixRequest{
		{"GET /v1/stores/{slug}", "", 2, 200, func(c *apitest.Client, s *mixState) *apitest.Response {
			return c.Do("GET", "/v1/stores/"+s.storeSlug, nil, "")
		}},
		{"GET /v1/stores", "", 1, 200, func(c *apitest.Client, s *mixState) *apitest.Response {
			return c.Do("GET", "/v1/stores", nil, "")
		}},
		{"GET /v1/stores/{slug}/website-config", "", 1, 200, func(c *apitest.Client, s *mixState) *apitest.Response {
			return c.Do("GET", "/v1/stores/"+s.storeSlug+"/website-config", nil, "")
		}},
	}},
	{"posts and likes", 9, []mixRequest{
		{"GET /v1/lines/{id}", "", 2, 200, func(c *apitest.Client, s *mixState) *apitest.Response {
			return c.Do("GET", "/v1/lines/"+s.lineID, nil, s.reader.Token)
		}},
		{"POST /v1/lines", "", 1, 201, func(c *apitest.Client, s *mixState) *apitest.Response {
			return c.Do("POST", "/v1/lines", map[string]any{"bookId": s.bookID, "content": "A line worth keeping.", "pageNumber": 12}, s.reader.Token)
		}},
		{"POST /v1/lines/{id}/like", "", 1, 200, func(c *apitest.Client, s *mixState) *apitest.Response {
			return c.Do("POST", "/v1/lines/"+s.lineID+"/like", nil, s.reader.Token)
		}},
		{"DELETE /v1/lines/{id}/like", "", 1, 200, func(c *apitest.Client, s *mixState) *apitest.Response {
			return c.Do("DELETE", "/v1/lines/"+s.lineID+"/like", nil, s.reader.Token)
		}},
	}},
	// Stock: readers asking where a book is, a bookseller's staff
	// looking through and counting their stock.
	{"stock and availability", 6, []mixRequest{
		{"GET /v1/books/{id}/availability", "near a position", 3, 200, func(c *apitest.Client, s *mixState) *apitest.Response {
			return c.Do("GET", "/v1/books/"+s.bookID+"/availability?latitude=45.5231&longitude=-122.6765", nil, s.reader.Token)
		}},
		{"GET /v1/inventory", "a page", 2, 200, func(c *apitest.Client, s *mixState) *apitest.Response {
			return c.Do("GET", "/v1/inventory?storeId="+s.storeID, nil, s.seller.Token)
		}},
		{"GET /v1/inventory", "search", 2, 200, func(c *apitest.Client, s *mixState) *apitest.Response {
			return c.Do("GET", "/v1/inventory?search=garden+river&storeId="+s.storeID, nil, s.seller.Token)
		}},
		{"GET /v1/inventory/{id}", "", 1, 200, func(c *apitest.Client, s *mixState) *apitest.Response {
			return c.Do("GET", "/v1/inventory/"+s.itemID+"?storeId="+s.storeID, nil, s.seller.Token)
		}},
		{"PUT /v1/inventory/{id}/adjust", "", 1, 200, func(c *apitest.Client, s *mixState) *apitest.Response {
			return c.Do("PUT", "/v1/inventory/"+s.itemID+"/adjust", map[string]any{"storeId": s.storeID, "adjustment": 1, "reason": "Restocked"}, s.seller.Token)
		}},
	}},
	// Orders: readers looking at their orders and previewing a basket
	// (placing one is a write and a payment; it is not in a read-heavy
	// mix).
	{"orders", 3, []mixRequest{
		{"GET /v1/orders", "", 2, 200, func(c *apitest.Client, s *mixState) *apitest.Response {
			return c.Do("GET", "/v1/orders", nil, s.reader.Token)
		}},
		{"GET /v1/orders/{id}", "", 2, 200, func(c *apitest.Client, s *mixState) *apitest.Response {
			return c.Do("GET", "/v1/orders/"+s.orderID, nil, s.reader.Token)
		}},
		{"POST /v1/orders/preview", "", 1, 200, func(c *apitest.Client, s *mixState) *apitest.Response {
			return c.Do("POST", "/v1/orders/preview", map[string]any{"items": []any{map[string]any{"bookId": s.bookID, "quantity": 1}},
				"shippingAddress": map[string]any{"postalCode": "97209", "country": "US"}}, "")
		}},
	}},
	// The point of sale: a counter scanning books and ringing up sales
	// (custom items, so that the mix can run any number of rounds), the
	// day's summary; a reader's trade credit.
	{"point of sale and trade credit", 2, []mixRequest{
		{"GET /api/pos/lookup/{barcode}", "", 2, 200, func(c *apitest.Client, s *mixState) *apitest.Response {
			return c.Do("GET", "/api/pos/lookup/"+s.isbn+"?storeId="+s.storeID, nil, s.seller.Token)
		}},
		{"POST /api/pos/sales", "a custom item, cash", 1, 201, func(c *apitest.Client, s *mixState) *apitest.Response {
			return c.Do("POST", "/api/pos/sales", map[string]any{"storeId": s.storeID, "paymentMethod": "cash",
				"items": []any{map[string]any{"customItem": map[string]any{"title": "Bookmark"}, "quantity": 1, "unitPriceCents": 250, "isUsed": false}}}, s.seller.Token)
		}},
		{"GET /api/pos/reports/summary", "today", 1, 200, func(c *apitest.Client, s *mixState) *apitest.Response {
			day := time.Now().UTC().Format("2006-01-02")
			return c.Do("GET", "/api/pos/reports/summary?storeId="+s.storeID+"&startDate="+day+"&endDate="+day, nil, s.seller.Token)
		}},
		{"GET /v1/trade-credit/me", "", 1, 200, func(c *apitest.Client, s *mixState) *apitest.Response {
			return c.Do("GET", "/v1/trade-credit/me", nil, s.reader.Token)
		}},
	}},
	// A store's owner looking at its webhook endpoints, their recent
	// deliveries and its email settings (events out).
	{"store settings: webhooks and email", 1, []mixRequest{
		{"GET /v1/stores/{slug}/webhooks", "", 1, 200, func(c *apitest.Client, s *mixState) *apitest.Response {
			return c.Do("GET", "/v1/stores/"+s.storeSlug+"/webhooks", nil, s.seller.Token)
		}},
		{"GET /v1/stores/{slug}/webhooks/{id}/deliveries", "", 1, 200, func(c *apitest.Client, s *mixState) *apitest.Response {
			return c.Do("GET", "/v1/stores/"+s.storeSlug+"/webhooks/"+s.webhookID+"/deliveries", nil, s.seller.Token)
		}},
		{"GET /v1/stores/{slug}/notification-settings", "", 1, 200, func(c *apitest.Client, s *mixState) *apitest.Response {
			return c.Do("GET", "/v1/stores/"+s.storeSlug+"/notification-settings", nil, s.seller.Token)
		}},
	}},
	// A reader looking at their premium subscription; an operator working
	// the back office's queues (the reports, the bookstore applications).
	{"premium and the back office", 1, []mixRequest{
		{"GET /v1/billing/premium", "", 2, 200, func(c *apitest.Client, s *mixState) *apitest.Response {
			return c.Do("GET", "/v1/billing/premium", nil, s.reader.Token)
		}},
		{"GET /v1/admin/reports", "open", 1, 200, func(c *apitest.Client, s *mixState) *apitest.Response {
			return c.Do("GET", "/v1/admin/reports", nil, s.operator.Token)
		}},
		{"GET /v1/admin/bookstore-applications", "pending", 1, 200, func(c *apitest.Client, s *mixState) *apitest.Response {
			return c.Do("GET", "/v1/admin/bookstore-applications", nil, s.operator.Token)
		}},
	}},
	{"auth", 5, []mixRequest{
		{"POST /v1/auth/login", "", 1, 200, func(c *apitest.Client, s *mixState) *apitest.Response {
			return c.Do("POST", "/v1/auth/login", map[string]any{"email": s.reader.Email, "password": testenv.Password}, "")
		}},
		{"POST /v1/auth/refresh", "", 1, 200, func(c *apitest.Client, s *mixState) *apitest.Response {
			res := c.Do("POST", "/v1/auth/refresh", map[string]any{"refreshToken": s.reader.Refresh}, "")
			if r, ok := res.JSON["refreshToken"].(string); ok {
				s.reader.Refresh = r
			}
			return res
		}},
	}},
}

// mixClass is one class of the mix: its share of all requests (percent)
// and its requests.
type mixClass struct {
	name     string
	share    float64
	requests []mixRequest
}

// mixRequest is one request of a class: the route it exercises ("METHOD
// /pattern", as the access log names it), a note telling cases of one
// route apart, its weight within the class, the status it must get, and
// how to send it.
type mixRequest struct {
	route, note string
	weight      float64
	want        int
	do          func(c *apitest.Client, s *mixState) *apitest.Response
}

// mixState is what the mix's requests read: the accounts and what
// seedCostMix made.
type mixState struct {
	reader     testenv.Account // signed in for the mix's reads
	posters    []testenv.Account
	bookID     string // a book with a full page of lines and some reviews
	lineID     string // one of its lines, which the reader likes and unlikes
	clubID     string
	wishlistID string
	storeSlug  string
	// The store's owner, its id and one of its items (bookID's).
	seller          testenv.Account
	storeID, itemID string
	// An order the reader placed at the store.
	orderID string
	// isbn is bookID's ISBN-13, which the counter scans.
	isbn string
	// webhookID is the store's webhook endpoint.
	webhookID string
	// operator works the back office.
	operator testenv.Account
}

// TestCost runs the mix through the real router against DynamoDB Local
// with the rate limits on, measures each request (the capacity every
// DynamoDB call reported, what the function and API Gateway log, whether
// the authorizer runs, how long each takes), and prices it
// (writeCostReport). It checks every request got its status and that the
// report has its shape: its capacity comes from real calls and is not
// zero, and it ends with the cost line.
func TestCost(t *testing.T) {
	// The function's and the authorizer's loggers are the ones they write
	// with in Lambda (config.NewLogger), so the bytes measured are the
	// bytes Lambda would write.
	logs := &countingWriter{}
	env := testenv.New(t, testenv.WithRateLimits(), testenv.WithLogger(config.NewLogger(logs, "info")))
	authLogs := &countingWriter{}
	authz := authorizer.New(env.App.Keys, env.Config.AccessTokenTTL, nil, config.NewLogger(authLogs, "info"))

	m := &costMeter{logs: logs, done: make(chan measured, 1)}
	srv := httptest.NewServer(m.wrap(env.Handler()))
	defer srv.Close()
	c := &apitest.Client{Base: srv.URL, HTTP: srv.Client()}
	st := seedCostMix(t, env)

	authOf := map[string]bool{}
	for _, r := range groups.Routes() {
		authOf[r.Method+" "+r.Path] = groups.AuthorizerInvoked(r)
	}

	var lines []costLine
	for _, class := range costMix {
		var weights float64
		for _, r := range class.requests {
			weights += r.weight
		}
		for _, r := range class.requests {
			lines = append(lines, costLine{class: fmt.Sprintf("%s, %.0f%%", class.name, class.share), route: r.route, note: r.note, share: class.share * r.weight / weights})
		}
	}
	var shares float64
	for _, class := range costMix {
		shares += class.share
	}
	require.InDelta(t, 100, shares, 1e-9, "the classes' shares of the mix add up to 100")

	for round := range *costRounds {
		i := 0
		for _, class := range costMix {
			for _, r := range class.requests {
				invoked, known := authOf[r.route]
				require.True(t, known, "%s is in no route table", r.route)
				res := r.do(c, st)
				var got measured
				select {
				case got = <-m.done:
				case <-time.After(10 * time.Second):
					t.Fatalf("%s (%s): no measurement", r.route, r.note)
				}
				// The authorizer's invocation, as API Gateway makes it
				// before the function's, with the request's header.
				var authBytes, authEvents int
				var authMs float64
				if invoked {
					b0, e0 := authLogs.snapshot()
					start := time.Now()
					_, _ = authz.Handle(t.Context(), authorizerRequest(r.route, got.authorization))
					authMs = billedMs(time.Since(start))
					b1, e1 := authLogs.snapshot()
					authBytes, authEvents = b1-b0, e1-e0
				}
				if res.Status != r.want {
					t.Errorf("round %d, %s (%s): HTTP %d, want %d: %s", round, r.route, r.note, res.Status, r.want, res.Body)
				}
				if got.route != r.route {
					t.Errorf("%s (%s): the router matched %q", r.route, r.note, got.route)
				}
				capacity, localIdxWRU := billedCapacity(got.rec.Calls())
				calls, _ := got.rec.Summary("dynamodb")
				method, path, _ := strings.Cut(got.target, " ")
				gw, err := gatewayLine(method, path, r.route, res.Status, len(res.Body))
				require.NoError(t, err)
				fnMs := billedMs(got.duration)
				pBytes, pEvents := platformLines(fnMs)
				if invoked {
					ab, ae := platformLines(authMs)
					pBytes, pEvents = pBytes+ab, pEvents+ae
				}
				lines[i].samples = append(lines[i].samples, costSample{
					route: r.route, note: r.note, status: res.Status,
					rru: capacity.Read(), wru: capacity.Write(), idxRRU: capacity.IndexRead, idxWRU: capacity.IndexWrite, localIdxWRU: localIdxWRU, calls: calls,
					fnLogBytes: got.logBytes + lambdaAccessLineExtra, fnLogEvents: got.logEvents, platformBytes: pBytes, platformLogs: pEvents, gatewayBytes: gw,
					authorized: invoked, authLogBytes: authBytes, authLogEvents: authEvents, fnBilledMs: fnMs, authBilledMs: authMs,
				})
				i++
			}
		}
	}

	var report bytes.Buffer
	perMillion := writeCostReport(&report, lines, *costRounds)
	t.Logf("cost report:\n%s", report.String())
	if *costOut != "" {
		require.NoError(t, os.WriteFile(*costOut, report.Bytes(), 0o644))
	}

	// The shape: a priced component per line, a last line a script can read.
	out := strings.Split(strings.TrimRight(report.String(), "\n"), "\n")
	last := out[len(out)-1]
	assert.Regexp(t, regexp.MustCompile(`^cost: \$\d+\.\d\d per million requests$`), last)
	assert.Equal(t, fmt.Sprintf("cost: $%.2f per million requests", math.Round(perMillion*100)/100), last)
	for _, component := range []string{"DynamoDB reads", "DynamoDB writes", "HTTP API", "Lambda requests", "Lambda duration", "CloudWatch Logs", "X-Ray", "monthly"} {
		assert.Contains(t, report.String(), "   "+component, "the report prices %s", component)
	}
	// The capacity is the calls' own, as DynamoDB Local reported it: every
	// read line read something, the counter wrote on every metered request.
	rru := weighted(lines, func(s costSample) float64 { return s.rru })
	wru := weighted(lines, func(s costSample) float64 { return s.wru })
	assert.Positive(t, rru)
	assert.GreaterOrEqual(t, wru, 0.9, "the rate-limit counter writes on nearly every request")
	for _, l := range lines {
		for _, s := range l.samples {
			assert.Positive(t, s.calls, "%s (%s) made no DynamoDB call", l.route, l.note)
			assert.Positive(t, s.rru+s.wru, "%s (%s) consumed no capacity", l.route, l.note)
		}
	}
}

// authorizerRequest is API Gateway's request to the authorizer for a
// request of route with the Authorization header header ("" for none).
func authorizerRequest(route, header string) events.APIGatewayV2CustomAuthorizerV2Request {
	req := events.APIGatewayV2CustomAuthorizerV2Request{RouteKey: route, Headers: map[string]string{}}
	if header != "" {
		req.Headers["authorization"] = header
	}
	return req
}

// lambdaAccessLineExtra is what the access line carries in Lambda beyond
// what it carries here (the logger is already Lambda's, TestCost): the trace id on the lines of kept traces at the
// sample rate (tracing is set up only in Lambda, and the id of a trace
// not kept is left out; the mix's requests neither fail nor are slow),
// and a request id of 36 characters, the invocation's, for the 24 of a
// local one (httpapi.NewRequestID).
var lambdaAccessLineExtra = int(math.Round(groups.Observability.TraceSampleRate*float64(len(`,"traceId":"1-6746c1f0-2b7e4f1a9c3d5e6f7a8b9c0d"`)))) + 36 - 24

// billedMs is a duration as Lambda bills it: whole milliseconds, rounded up.
func billedMs(d time.Duration) float64 {
	return math.Ceil(float64(d) / float64(time.Millisecond))
}

// seedCostMix makes what the mix reads, behind the API's rate limits (a
// few posters, each within the per-minute line limit): a catalog whose
// search finds a page of books, a book with a full page of lines and
// reviews by several users, some of which the reader likes, a club, a
// wishlist and a store.
func seedCostMix(t *testing.T, env *testenv.Env) *mixState {
	t.Helper()
	var recs []books.Record
	for i := range 30 {
		recs = append(recs, books.Record{
			ISBN: isbn13(fmt.Sprintf("978030640%03d", i)), Title: fmt.Sprintf("The Garden by the River, part %d", i+1),
			Authors: []string{"Ada Greenfield"}, Language: "en", Description: strings.Repeat("A quiet story of a garden and a river. ", 6),
		})
	}
	ids := env.ImportBooks(t, recs...)
	st := &mixState{bookID: ids[0], isbn: recs[0].ISBN}

	st.reader = env.Signup(t, "mixreader")
	env.SetTier(t, st.reader, users.TierPremium)
	for i := range 5 {
		p := env.Signup(t, fmt.Sprintf("mixposter%d", i))
		env.SetTier(t, p, users.TierPremium)
		st.posters = append(st.posters, p)
		for j := range 5 {
			res := env.Do("POST", "/v1/lines", map[string]any{"bookId": st.bookID, "content": fmt.Sprintf("Line %d of poster %d, worth a second look.", j, i), "pageNumber": 10 + j}, p.Token)
			require.Equal(t, http.StatusCreated, res.Status, "line: %s", res)
			if i == 0 && j == 0 {
				st.lineID, _ = res.JSON["id"].(string)
			} else if j == 1 {
				id, _ := res.JSON["id"].(string)
				liked := env.Do("POST", "/v1/lines/"+id+"/like", nil, st.reader.Token)
				require.Equal(t, http.StatusOK, liked.Status, "like: %s", liked)
			}
		}
		res := env.Do("POST", "/v1/reviews", map[string]any{"bookId": st.bookID, "rating": 4, "content": "Read it twice, the second time slower."}, p.Token)
		require.Equal(t, http.StatusCreated, res.Status, "review: %s", res)
	}

	res := env.Do("POST", "/v1/clubs", map[string]any{"name": "Garden readers", "description": "One chapter a week.", "isPublic": true}, st.reader.Token)
	require.Equal(t, http.StatusCreated, res.Status, "club: %s", res)
	st.clubID, _ = res.JSON["id"].(string)
	for j := range 5 {
		res := env.Do("POST", "/v1/lines", map[string]any{"bookId": ids[1], "content": fmt.Sprintf("Club line %d.", j), "clubId": st.clubID}, st.reader.Token)
		require.Equal(t, http.StatusCreated, res.Status, "club line: %s", res)
	}

	res = env.Do("POST", "/v1/wishlists", map[string]any{"name": "Next up", "isPublic": true}, st.reader.Token)
	require.Equal(t, http.StatusCreated, res.Status, "wishlist: %s", res)
	st.wishlistID, _ = res.JSON["id"].(string)
	for _, id := range ids[2:12] {
		res := env.Do("POST", "/v1/wishlists/"+st.wishlistID+"/items", map[string]any{"bookId": id}, st.reader.Token)
		require.Equal(t, http.StatusCreated, res.Status, "wishlist item: %s", res)
	}

	seller := env.Signup(t, "mixseller")
	env.SetTier(t, seller, users.TierBookstore)
	st.storeSlug = "garden-books"
	res = env.Do("POST", "/v1/stores", map[string]any{
		"name": "Garden Books", "slug": st.storeSlug, "description": "Books about gardens, and rivers.", "addressLine1": "1005 W Burnside St",
		"city": "Portland", "state": "OR", "postalCode": "97209", "country": "US", "phone": "+1 503 555 0100",
		"email": "garden@example.com", "primaryColor": "#336699", "hours": map[string]any{"monday": "9-17"}, "taxRate": 0.0,
	}, seller.Token)
	require.Equal(t, http.StatusCreated, res.Status, "store: %s", res)
	st.seller, st.storeID = seller, res.JSON["id"].(string)
	for i, id := range ids[:10] {
		res := env.Do("POST", "/v1/inventory", map[string]any{"storeId": st.storeID, "bookId": id, "quantity": 1 + i%3, "priceCents": 1499, "condition": "new"}, seller.Token)
		require.Equal(t, http.StatusCreated, res.Status, "inventory item: %s", res)
		if i == 0 {
			st.itemID, _ = res.JSON["id"].(string)
		}
	}
	res = env.Do("POST", "/v1/orders", map[string]any{"items": []any{map[string]any{"inventoryId": inventory.ItemID(st.storeID, ids[2]), "quantity": 1}},
		"paymentMethodId": "pm_card_visa", "shippingAddress": map[string]any{"name": "Cost Reader", "addressLine1": "1 Main St",
			"city": "Portland", "state": "OR", "postalCode": "97205", "country": "US"}}, st.reader.Token)
	require.Equal(t, http.StatusCreated, res.Status, "order: %s", res)
	st.orderID, _ = res.JSON["id"].(string)
	res = env.Do("POST", "/v1/stores/"+st.storeSlug+"/webhooks", map[string]any{"url": "https://hooks.example.com/garden-books"}, seller.Token)
	require.Equal(t, http.StatusCreated, res.Status, "webhook endpoint: %s", res)
	st.webhookID, _ = res.JSON["id"].(string)
	st.operator = env.Signup(t, "mixoperator")
	env.MakeOperator(t, st.operator)
	return st
}

// isbn13 completes 12 digits with their ISBN-13 check digit.
func isbn13(d string) string {
	sum := 0
	for i, c := range d {
		n := int(c - '0')
		if i%2 == 1 {
			n *= 3
		}
		sum += n
	}
	return d + fmt.Sprint((10-sum%10)%10)
}

// costMeter measures each request the router serves: its recorder (the
// router's passes every call on to it), its duration, the bytes and
// events the function logged while serving it, and the route it matched.
// The mix sends one request at a time and waits for its measurement.
type costMeter struct {
	logs *countingWriter
	done chan measured
}

type measured struct {
	rec                 *callstats.Recorder
	duration            time.Duration
	logBytes, logEvents int
	route, target       string
	authorization       string // the request's Authorization header
}

func (m *costMeter) wrap(next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		ctx, rec := callstats.With(r.Context())
		b0, e0 := m.logs.snapshot()
		start := time.Now()
		next.ServeHTTP(w, r.WithContext(ctx))
		d := time.Since(start)
		b1, e1 := m.logs.snapshot()
		m.done <- measured{rec: rec, duration: d, logBytes: b1 - b0, logEvents: e1 - e0, route: m.logs.lastRoute(), target: r.Method + " " + r.URL.Path, authorization: r.Header.Get("Authorization")}
	})
}

// countingWriter counts what a JSON logger writes: bytes and lines (one
// log event each), and remembers the route of the last access line.
type countingWriter struct {
	mu            sync.Mutex
	bytes, events int
	route         string
}

func (w *countingWriter) Write(p []byte) (int, error) {
	w.mu.Lock()
	defer w.mu.Unlock()
	w.bytes += len(p)
	w.events += bytes.Count(p, []byte("\n"))
	var rec accessRecord
	if json.Unmarshal(p, &rec) == nil && rec.Msg == "request" {
		w.route = rec.Route
	}
	return len(p), nil
}

func (w *countingWriter) snapshot() (int, int) {
	w.mu.Lock()
	defer w.mu.Unlock()
	return w.bytes, w.events
}

func (w *countingWriter) lastRoute() string {
	w.mu.Lock()
	defer w.mu.Unlock()
	return w.route
}
