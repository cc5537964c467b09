package main

import (
	"bytes"
	"context"
	"encoding/json"
	"flag"
	"fmt"
	"io"
	"log/slog"
	"mime"
	"net"
	"net/http"
	"net/http/httptest"
	"os"
	"slices"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/bookplatform/backend/local/devserver"
	"github.com/bookplatform/backend/local/testenv"
	"github.com/bookplatform/backend/shared/api/apitest"
	"github.com/bookplatform/backend/shared/api/extposapi"
	"github.com/bookplatform/backend/shared/app"
	"github.com/bookplatform/backend/shared/config"
	"github.com/bookplatform/backend/shared/groups"
	"github.com/bookplatform/backend/shared/openapi"
)

// examplesOut is where TestRecordExamples writes the examples file
// (`go run ./local/bench examples` sets it; without it the test is
// skipped).
var examplesOut = flag.String("examples-out", "", "record the API reference's examples into this file")

// exampleItems is how many elements an array of an example keeps: enough
// to show what an element is, few enough to keep the reference small.
const exampleItems = 2

// TestRecordExamples runs the call benchmark's scenario once and writes
// what the service really answered as the API reference's examples
// (shared/openapi.Examples): per operation, the request body of the
// first step answered 2xx and the body of the first answer of each
// status, every array cut to exampleItems elements. A step counts only
// when it got the status it wants, so an example is never a fault.
func TestRecordExamples(t *testing.T) {
	if *examplesOut == "" {
		t.Skip("records the reference's examples only when asked: go run ./local/bench examples")
	}
	rec := newExampleRecorder()
	runScenario(t, scenario(t), map[string]map[string]bool{}, rec)
	if t.Failed() {
		t.Fatal("the scenario failed: no examples written")
	}
	data, err := rec.file()
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(*examplesOut, data, 0o644); err != nil {
		t.Fatal(err)
	}
	t.Logf("%d operations, %d bytes", len(rec.ops), len(data))
}

// exampleRecorder keeps the bodies of the scenario's requests (by request
// id, as the router names each answer in X-Request-Id) and, per step,
// the examples of its route.
type exampleRecorder struct {
	mu       sync.Mutex
	requests map[string][]byte // request id -> JSON body sent
	ops      map[string]*openapi.OperationExamples
	errors   map[string]any // status -> the first error body of the run
}

func newExampleRecorder() *exampleRecorder {
	return &exampleRecorder{requests: map[string][]byte{}, ops: map[string]*openapi.OperationExamples{}, errors: map[string]any{}}
}

// wrap reads each JSON request body before the router does, handing it
// on unchanged.
func (r *exampleRecorder) wrap(next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, req *http.Request) {
		var body []byte
		if req.Body != nil && isJSONMedia(req.Header.Get("Content-Type")) {
			body, _ = io.ReadAll(req.Body)
			req.Body = io.NopCloser(bytes.NewReader(body))
		}
		next.ServeHTTP(w, req)
		if id := w.Header().Get("X-Request-Id"); id != "" && len(body) > 0 {
			r.mu.Lock()
			r.requests[id] = body
			r.mu.Unlock()
		}
	})
}

// step keeps what one step's answer (the last request of its Do, the one
// of its route) shows that its route has no example of yet.
func (r *exampleRecorder) step(s apitest.Step, res *response) {
	r.mu.Lock()
	defer r.mu.Unlock()
	oe := r.ops[s.Route]
	if oe == nil {
		oe = &openapi.OperationExamples{Responses: map[string]any{}}
		r.ops[s.Route] = oe
	}
	status := strconv.Itoa(res.Status)
	exempt := openapi.ExampleExemptions[s.Route][status] != ""
	if _, seen := oe.Responses[status]; !seen && !exempt && len(res.Body) > 0 && isTextMedia(res.Header.Get("Content-Type")) {
		// A plain-text answer (a receipt) is its own example, as sent.
		oe.Responses[status] = string(res.Body)
	}
	if _, seen := oe.Responses[status]; !seen && !exempt && len(res.Body) > 0 && isJSONMedia(res.Header.Get("Content-Type")) {
		if v, ok := decodeExample(res.Body); ok {
			oe.Responses[status] = v
			if _, seen := r.errors[status]; !seen && res.Status >= 400 {
				r.errors[status] = v
			}
		}
	}
	if res.Status >= 200 && res.Status < 300 && oe.Request == nil {
		if v, ok := decodeExample(r.requests[res.Header.Get("X-Request-Id")]); ok {
			oe.Request = v
		}
	}
}

// probeEnv is what a probe may use: the scenario's server, its state,
// the handler the server serves (the router and the media route), the
// app's clock and the test environment.
type probeEnv struct {
	c       *client
	s       *apitest.State
	handler http.Handler
	clock   *benchClock
	env     *testenv.Env
}

// probes are requests after the scenario for the answers the router
// gives on any route, which no group's steps ask for: each names the
// route it is recorded under (one whose operation documents the status)
// and is kept only when answered with the status it wants. The faults
// (500, 503) are real: the service run over an environment whose
// dependency is broken. The two 403s come last: they move the app's
// clock forward (the monthly limit's by an hour).
var probes = []struct {
	route string
	want  int
	do    func(p *probeEnv) *response
}{
	{"GET /health", http.StatusMethodNotAllowed, func(p *probeEnv) *response {
		return p.c.Do(http.MethodDelete, "/health", nil, "")
	}},
	{"POST /v1/auth/login", http.StatusUnsupportedMediaType, func(p *probeEnv) *response {
		return p.c.Raw(http.MethodPost, "/v1/auth/login", "text/plain", strings.NewReader(p.s.Email), "")
	}},
	{"POST /v1/auth/login", http.StatusRequestEntityTooLarge, func(p *probeEnv) *response {
		big := `{"email":"` + p.s.Email + `","password":"` + strings.Repeat("x", 1<<20) + `"}`
		return p.c.Raw(http.MethodPost, "/v1/auth/login", "application/json", strings.NewReader(big), "")
	}},
	{"POST /v1/auth/login", http.StatusTooManyRequests, func(p *probeEnv) *response {
		// Wrong passwords for one account until its attempts run out.
		var res *response
		for range 30 {
			res = p.c.Do(http.MethodPost, "/v1/auth/login", map[string]any{"email": p.s.Email, "password": "not-the-password"}, "")
			if res.Status == http.StatusTooManyRequests {
				break
			}
		}
		return res
	}},
	{"POST /v1/follows/users/{userId}", http.StatusUnprocessableEntity, func(p *probeEnv) *response {
		// One Idempotency-Key, then the same key with another request.
		keyed := p.c.Keyed("examples-follow-1")
		keyed.Do(http.MethodPost, "/v1/follows/users/"+p.s.UserID, nil, p.s.SellerToken)
		return keyed.Do(http.MethodPost, "/v1/follows/users/"+p.s.MigratedID, nil, p.s.SellerToken)
	}},
	{"GET /v1/books/{id}", http.StatusRequestHeaderFieldsTooLarge, func(p *probeEnv) *response {
		// The local server's front, as `make run` serves the app (in AWS,
		// API Gateway refuses the request before any function), with a
		// request line over its 10,240 bytes.
		front := devserver.NewFront(devserver.DefaultSettings(), slog.New(slog.DiscardHandler))
		front.Ready(p.handler)
		return serve(front, func(c *client) *response {
			return c.Do(http.MethodGet, "/v1/books/"+p.s.BookID+"?fields="+strings.Repeat("title,", 2000), nil, "")
		})
	}},
	{"GET /v1/books/{id}", http.StatusInternalServerError, func(p *probeEnv) *response {
		// The service deployed with a table name that names no table:
		// DynamoDB answers ResourceNotFoundException, a fault the service
		// does not expect.
		cfg := p.env.Config
		cfg.TableName = "examples-no-such-table"
		return serve(faultyHandler(p.env, cfg, p.env.AWS), func(c *client) *response {
			return c.Do(http.MethodGet, "/v1/books/"+p.s.BookID, nil, "")
		})
	}},
	{"GET /v1/books/{id}", http.StatusServiceUnavailable, func(p *probeEnv) *response {
		// DynamoDB stopped (its port refuses connections), behind the
		// local server's front with a short request deadline: the SDK
		// retries with growing pauses until the deadline ends the request.
		ln, err := net.Listen("tcp", "127.0.0.1:0")
		if err != nil {
			return &response{Body: []byte(err.Error())}
		}
		stopped := "http://" + ln.Addr().String()
		ln.Close()
		awsCfg := p.env.AWS.Copy()
		awsCfg.ConfigSources = append([]any{dynamoEndpoint(stopped)}, awsCfg.ConfigSources...)
		settings := devserver.DefaultSettings()
		settings.RequestTimeout = time.Second
		front := devserver.NewFront(settings, slog.New(slog.DiscardHandler))
		front.Ready(faultyHandler(p.env, p.env.Config, awsCfg))
		return serve(front, func(c *client) *response {
			return c.Do(http.MethodGet, "/v1/books/"+p.s.BookID, nil, "")
		})
	}},
	{"POST /v1/inventory/sync-extpos", http.StatusAccepted, func(p *probeEnv) *response {
		// The service deployed with a sync wait (EXTPOS_SYNC_WAIT) shorter
		// than the worker's round trip through the queue: the sync is
		// answered while still queued, and the scenario's worker runs it.
		cfg, err := config.LoadFrom(func(name string) string {
			if name == extposapi.EnvSyncWait {
				return "1ms"
			}
			return p.env.Config.Env().String(name)
		})
		if err != nil {
			return &response{Body: []byte(err.Error())}
		}
		return serve(faultyHandler(p.env, cfg, p.env.AWS), func(c *client) *response {
			return c.Do(http.MethodPost, "/v1/inventory/sync-extpos?storeId="+p.s.StoreID, map[string]any{"mode": "import"}, p.s.SellerToken)
		})
	}},
	{"POST /v1/lines", http.StatusForbidden, notAMember},
	{"POST /v1/lines/{id}/replies", http.StatusForbidden, monthlyLimit},
}

// notAMember provokes the other 403 of the operations that charge the
// monthly quota: a new premium account's club (the scenario's is gone by
// now), and a line in it by the bookseller, who is not its member.
func notAMember(p *probeEnv) *response {
	p.clock.Advance(time.Minute) // a fresh minute for the sign-up's address
	res := p.c.Do(http.MethodPost, "/v1/auth/signup", map[string]any{
		"username": "bench_host", "email": "bench.host@example.com", "password": password, "displayName": "Bench Host",
	}, "")
	u, _ := res.JSON["user"].(map[string]any)
	id, _ := u["id"].(string)
	if id == "" {
		return res
	}
	if err := p.s.Promote(id); err != nil {
		return &response{Body: []byte(err.Error())}
	}
	// A token that carries the new tier.
	res = p.c.Do(http.MethodPost, "/v1/auth/login", map[string]any{"email": "bench.host@example.com", "password": password}, "")
	token, _ := res.JSON["token"].(string)
	if token == "" {
		return res
	}
	res = p.c.Do(http.MethodPost, "/v1/clubs", map[string]any{"name": "Bench hosts", "description": "Members post here.", "isPublic": true}, token)
	club, _ := res.JSON["id"].(string)
	if club == "" {
		return res
	}
	return p.c.Do(http.MethodPost, "/v1/lines", map[string]any{"bookId": p.s.BookID, "clubId": club, "content": "Not a member."}, p.s.SellerToken)
}

// monthlyLimit signs up a free account, posts fifty lines
// (config.DefaultMonthlyPosts), then a reply, which its monthly limit
// refuses (lines and replies count together). The app's clock moves a
// minute after every ten posts (create_line allows ten a minute) and to
// the next hour before the last (create_line_hourly allows fifty an
// hour; the account logs in again), so that the rate limits, counted
// first, refuse none; and past the month's end first when the run is too
// close to it for every post to be charged to one month.
func monthlyLimit(p *probeEnv) *response {
	now := p.clock.Now().UTC()
	if next := time.Date(now.Year(), now.Month()+1, 1, 0, 0, 0, 0, time.UTC); next.Sub(now) < 3*time.Hour {
		p.clock.Advance(next.Sub(now) + time.Hour)
	}
	p.clock.Advance(time.Minute) // a fresh minute for the sign-up's address
	res := p.c.Do(http.MethodPost, "/v1/auth/signup", map[string]any{
		"username": "bench_poster", "email": "bench.poster@example.com", "password": password, "displayName": "Bench Poster",
	}, "")
	token, _ := res.JSON["token"].(string)
	if token == "" {
		return res
	}
	post := func(i int) *response {
		return p.c.Do(http.MethodPost, "/v1/lines", map[string]any{"bookId": p.s.BookID, "content": fmt.Sprintf("Line %d of the month.", i+1)}, token)
	}
	var first string // the line the last post replies to
	for i := range config.DefaultMonthlyPosts {
		if i > 0 && i%10 == 0 {
			p.clock.Advance(time.Minute)
		}
		res := post(i)
		if res.Status != http.StatusCreated {
			return res
		}
		if first == "" {
			first, _ = res.JSON["id"].(string)
		}
	}
	now = p.clock.Now()
	p.clock.Advance(now.Truncate(time.Hour).Add(time.Hour).Sub(now) + time.Second)
	// The hour outlived the access token: a new one.
	res = p.c.Do(http.MethodPost, "/v1/auth/login", map[string]any{"email": "bench.poster@example.com", "password": password}, "")
	if token, _ = res.JSON["token"].(string); token == "" {
		return res
	}
	// The 51st post is a reply: lines and replies count together.
	return p.c.Do(http.MethodPost, "/v1/lines/"+first+"/replies", map[string]any{"content": "One more."}, token)
}

// serve sends one request, by do, to a server of h made for it.
func serve(h http.Handler, do func(c *client) *response) *response {
	srv := httptest.NewServer(h)
	defer srv.Close()
	return do(&client{Base: srv.URL, HTTP: srv.Client()})
}

// faultyHandler is the service as the scenario serves it, over cfg and
// awsCfg (a broken environment), logging nowhere.
func faultyHandler(env *testenv.Env, cfg config.Config, awsCfg aws.Config) http.Handler {
	a := app.New(cfg, app.NewClients(awsCfg), slog.New(slog.DiscardHandler), nil)
	a.DNS = env.DNS
	return devserver.Handler(a, groups.All(a.Deps()))
}

// dynamoEndpoint is an SDK configuration source that names DynamoDB's
// endpoint; put first, it wins over the environment's.
type dynamoEndpoint string

// GetServiceBaseEndpoint returns the endpoint for DynamoDB only.
func (e dynamoEndpoint) GetServiceBaseEndpoint(_ context.Context, sdkID string) (string, bool, error) {
	return string(e), sdkID == dynamodb.ServiceID, nil
}

// probe sends the probes and keeps what they show.
func (r *exampleRecorder) probe(t *testing.T, p *probeEnv) {
	t.Helper()
	for _, pr := range probes {
		if !slices.Contains(routeKeys(), pr.route) {
			t.Errorf("probe %s: no such route", pr.route)
			continue
		}
		res := pr.do(p)
		if res.Status != pr.want {
			t.Logf("probe %s: HTTP %d, want %d: not recorded: %.300s", pr.route, res.Status, pr.want, res.Body)
			continue
		}
		r.step(apitest.Step{Route: pr.route, Want: pr.want}, res)
	}
}

// file writes the examples: sorted keys, one operation a line, so that a
// new recording reads as a diff per operation.
func (r *exampleRecorder) file() ([]byte, error) {
	keys := make([]string, 0, len(r.ops))
	for k := range r.ops {
		keys = append(keys, k)
	}
	slices.Sort(keys)
	var b bytes.Buffer
	about, _ := json.Marshal("Generated by `make examples` (go run ./local/bench examples): the call benchmark's scenario, run once, " +
		"as the service answered it; do not edit. errors: the first body of each error status; per operation: the request body of its first 2xx answer and the first body of each status, " +
		"arrays cut to " + strconv.Itoa(exampleItems) + " elements. shared/openapi merges them into the reference.")
	errs, err := marshalExample(r.errors)
	if err != nil {
		return nil, err
	}
	fmt.Fprintf(&b, "{\"about\": %s,\n\"errors\": %s,\n\"operations\": {\n", about, errs)
	for i, k := range keys {
		key, _ := json.Marshal(k)
		val, err := marshalExample(r.ops[k])
		if err != nil {
			return nil, fmt.Errorf("%s: %w", k, err)
		}
		sep := ","
		if i == len(keys)-1 {
			sep = ""
		}
		fmt.Fprintf(&b, "%s: %s%s\n", key, val, sep)
	}
	b.WriteString("}}\n")
	// What is written must read back as the file shared/openapi embeds.
	var check openapi.Examples
	if err := json.Unmarshal(b.Bytes(), &check); err != nil {
		return nil, err
	}
	return b.Bytes(), nil
}

// marshalExample writes v compactly, as it was answered (no HTML
// escaping of <, > and &).
func marshalExample(v any) ([]byte, error) {
	var b bytes.Buffer
	enc := json.NewEncoder(&b)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(v); err != nil {
		return nil, err
	}
	return bytes.TrimSuffix(b.Bytes(), []byte("\n")), nil
}

// decodeExample reads a JSON body, numbers as written, arrays cut short.
func decodeExample(data []byte) (any, bool) {
	if len(data) == 0 {
		return nil, false
	}
	dec := json.NewDecoder(bytes.NewReader(data))
	dec.UseNumber()
	var v any
	if dec.Decode(&v) != nil {
		return nil, false
	}
	return trimExample(v), true
}

// trimExample cuts every array, at any depth, to exampleItems elements.
func trimExample(v any) any {
	switch x := v.(type) {
	case []any:
		if len(x) > exampleItems {
			x = x[:exampleItems]
		}
		for i := range x {
			x[i] = trimExample(x[i])
		}
		return x
	case map[string]any:
		for k := range x {
			x[k] = trimExample(x[k])
		}
		return x
	}
	return v
}

// isTextMedia reports whether a Content-Type is plain text.
func isTextMedia(ctype string) bool {
	mt, _, err := mime.ParseMediaType(ctype)
	return err == nil && mt == "text/plain"
}

// isJSONMedia reports whether a Content-Type is JSON.
func isJSONMedia(ctype string) bool {
	mt, _, err := mime.ParseMediaType(ctype)
	return err == nil && mt == "application/json"
}

// An example keeps the first elements of every array, at any depth, and
// its numbers as they were written.
func TestTrimExample(t *testing.T) {
	v, ok := decodeExample([]byte(`{"items":[{"tags":["a","b","c"]},{"n":1.50},{"n":3}],"total":12345678901}`))
	if !ok {
		t.Fatal("not decoded")
	}
	got, err := marshalExample(v)
	if err != nil {
		t.Fatal(err)
	}
	if want := `{"items":[{"tags":["a","b"]},{"n":1.50}],"total":12345678901}`; string(got) != want {
		t.Errorf("got %s, want %s", got, want)
	}
}
