package main

import (
	"bytes"
	"context"
	"encoding/json"
	"flag"
	"fmt"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"os"
	"slices"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	awsmiddleware "github.com/aws/aws-sdk-go-v2/aws/middleware"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"
	"github.com/aws/smithy-go/middleware"
	"github.com/bookplatform/backend/local/devserver"
	"github.com/bookplatform/backend/local/testenv"
	"github.com/bookplatform/backend/shared/api/apitest"
	"github.com/bookplatform/backend/shared/app"
	"github.com/bookplatform/backend/shared/books"
	"github.com/bookplatform/backend/shared/callstats"
	"github.com/bookplatform/backend/shared/dynamo"
	"github.com/bookplatform/backend/shared/groups"
	"github.com/bookplatform/backend/shared/groups/groupstest"
	"github.com/bookplatform/backend/shared/httpapi"
	"github.com/bookplatform/backend/shared/notify/notifydeps"
	"github.com/bookplatform/backend/shared/users"
	guregu "github.com/guregu/dynamo/v2"
)

func TestMain(m *testing.M) { testenv.Main(m) }

// callsOut is where TestCallCounts writes its table for the report
// (`go run ./local/bench calls` sets it).
var callsOut = flag.String("calls-out", "", "write the DynamoDB calls table to this file")

// The scenario's steps and the state they pass on are declared by each
// group, beside it (shared/api/<name>api/<name>apitest), and collected in
// the group list's order, stage by stage (groupstest.Steps): a new route
// of a group gets its step in its group's package.
type (
	client   = apitest.Client
	response = apitest.Response
)

const password = apitest.Password

// scenario visits every route of every group in an order that a client
// could follow: sign up, use the account, end with logout. A new route
// without a step fails TestCallScenarioCoversEveryRoute.
func scenario(t *testing.T) []apitest.Step {
	t.Helper()
	steps, err := groupstest.Steps()
	if err != nil {
		t.Fatal(err)
	}
	return steps
}

// routeKeys lists every route of every group, as the access log names them.
func routeKeys() []string {
	var keys []string
	for _, r := range groups.Routes() {
		keys = append(keys, r.Method+" "+r.Path)
	}
	return keys
}

func TestCallScenarioCoversEveryRoute(t *testing.T) {
	covered := map[string]bool{}
	for _, s := range scenario(t) {
		covered[s.Route] = true
	}
	known := map[string]bool{}
	for _, k := range routeKeys() {
		known[k] = true
		if !covered[k] {
			t.Errorf("route %s has no step in the scenario: add one to its group's apitest package (Facts) so its DynamoDB calls are measured", k)
		}
	}
	for k := range covered {
		if !known[k] {
			t.Errorf("scenario step names %s, which is not in any route table", k)
		}
	}
}

// callRuns is how often the scenario runs, each time on a fresh table.
// Depth is read from call start and end times, and two calls launched
// side by side look sequential when the second goroutine starts after the
// first call has already returned (a busy machine, a 1 ms DynamoDB Local
// call). The minimum over several runs is the depth the code allows; the
// maximum shows what scheduling added.
const callRuns = 5

// observation is one step of one run.
type observation struct {
	status, calls, depth int
	chain                string
}

// TestCallCounts runs the scenario against DynamoDB Local and reports, per
// request, the DynamoDB calls and their sequential depth as the router's
// access log records them (shared/callstats), with the operations in the
// order they ran. It fails when a step gets an unexpected status or an
// authenticated read exceeds its depth target in every run, and holds the
// grants to the calls both ways: a step whose calls need an IAM action
// its function is not granted fails (checkGranted), and so does a
// function granted an action that no step it serves needed in any run
// (checkUsed).
func TestCallCounts(t *testing.T) {
	steps := scenario(t)
	obs := make([][]observation, len(steps))
	used := map[string]map[string]bool{} // function -> IAM actions its steps needed
	for range callRuns {
		for i, o := range runScenario(t, steps, used, nil) {
			obs[i] = append(obs[i], o)
		}
		if t.Failed() {
			break
		}
	}

	if !t.Failed() {
		checkUsed(t, used)
	}

	authRoutes := map[string]httpapi.Auth{}
	for _, r := range groups.Routes() {
		authRoutes[r.Method+" "+r.Path] = r.Auth
	}
	var table strings.Builder
	fmt.Fprintf(&table, "   %-38s %-19s %6s %5s %7s   %s\n", "route", "case", "status", "calls", "depth", "operations (+ = concurrent, -> = after)")
	for i, s := range steps {
		if len(obs[i]) == 0 {
			continue
		}
		best, worst := obs[i][0], obs[i][0]
		minCalls, maxCalls := best.calls, best.calls
		for _, o := range obs[i][1:] {
			if o.depth < best.depth {
				best = o
			}
			worst.depth = max(worst.depth, o.depth)
			minCalls, maxCalls = min(minCalls, o.calls), max(maxCalls, o.calls)
		}
		calls := strconv.Itoa(minCalls)
		if maxCalls != minCalls {
			calls += "-" + strconv.Itoa(maxCalls)
		}
		depth := strconv.Itoa(best.depth)
		if worst.depth != best.depth {
			depth += " (" + strconv.Itoa(worst.depth) + ")"
		}
		note := s.Note
		if note == "" {
			note = "ok"
		}
		fmt.Fprintf(&table, "   %-38s %-19s %6d %5s %7s   %s\n", s.Route, note, best.status, calls, depth, best.chain)

		if best.status < 300 && strings.HasPrefix(s.Route, "GET ") && !s.Writes && authRoutes[s.Route] == httpapi.AuthBearer && best.depth > maxAuthenticatedReadDepth {
			t.Errorf("%s: depth %d in every run, target at most %d for an authenticated read", s.Route, best.depth, maxAuthenticatedReadDepth)
		}
		if s.Route == "GET /v1/users/me" && best.status == 200 && best.depth != usersMeDepth {
			t.Errorf("GET /v1/users/me: depth %d in every run, target %d", best.depth, usersMeDepth)
		}
	}
	fmt.Fprintf(&table, "   depth: fewest sequential round trips in %d runs on fresh tables; (n): the most seen, when a late goroutine made concurrent calls look sequential\n", callRuns)
	t.Logf("DynamoDB calls per request:\n%s", table.String())
	if *callsOut != "" {
		if err := os.WriteFile(*callsOut, []byte(table.String()), 0o644); err != nil {
			t.Fatal(err)
		}
	}
}

// runScenario runs every step once on a fresh environment: a new table
// (so rate-limit windows start empty) and the app wired a second time
// over it, with one more SDK middleware that notes each operation's name.
// The access log carries only counts; the names make the table
// actionable. Steps run one at a time, so every call noted during a step
// belongs to it. A recorder, when given, keeps the bodies of each step's
// request and answer (TestRecordExamples).
func runScenario(t *testing.T, steps []apitest.Step, used map[string]map[string]bool, examples *exampleRecorder) []observation {
	t.Helper()
	env := testenv.New(t, testenv.WithWorkers())
	logs := newAccessLog()
	ops := &opLog{}
	awsCfg := env.AWS.Copy()
	awsCfg.APIOptions = append(slices.Clone(awsCfg.APIOptions), ops.middleware)
	clock := &benchClock{}
	a := app.New(env.Config, app.NewClients(awsCfg), slog.New(slog.NewJSONHandler(logs, nil)), clock.Now)
	a.DNS = env.DNS // before the router is built: the DNS stand-in the scenario sets records in
	requests := &requestCalls{}
	handler := requests.wrap(logs.wrap(devserver.Handler(a, groups.All(a.Deps()))))
	if examples != nil {
		handler = examples.wrap(handler)
	}
	srv := httptest.NewServer(handler)
	defer srv.Close()
	c := &client{Base: srv.URL, HTTP: srv.Client()}

	var out []observation
	auditedOK := map[string]bool{} // back-office write routes a step changed something with
	defer func() {
		if t.Failed() {
			return
		}
		for _, f := range groups.Functions() {
			for _, rt := range f.Routes {
				if f.Name == "admin" && rt.Method != http.MethodGet && rt.Method != http.MethodHead && !auditedOK[rt.Method+" "+rt.Path] {
					t.Errorf("%s %s: no step of the scenario succeeded, so its audit entry is never checked", rt.Method, rt.Path)
				}
			}
		}
	}()
	bookIDs := seedBenchCatalog(t, a)
	st := &apitest.State{BookID: bookIDs[0], Book2ID: bookIDs[2], SetCNAME: env.DNS.SetCNAME, Promote: func(id string) error {
		_, err := a.Users.SetTier(t.Context(), id, users.TierPremium)
		return err
	}, SignUnsubscribe: func(storeID string) string {
		tok, err := notifydeps.Tokens(a.Deps()).Sign(storeID)
		if err != nil {
			t.Fatalf("sign an unsubscribe token: %v", err)
		}
		return tok
	}}
	st.PutItem = func(item map[string]any) error {
		av, err := guregu.MarshalItem(item)
		if err != nil {
			return err
		}
		_, err = a.DB.PutItem(t.Context(), &dynamodb.PutItemInput{TableName: aws.String(env.Config.TableName), Item: av})
		return err
	}
	st.SellerID, st.SellerToken = seedBookseller(t, a)
	st.OperatorID, st.OperatorToken = seedOperator(t, a)
	for _, s := range steps {
		if s.Before != nil {
			if err := s.Before(st); err != nil {
				t.Fatalf("%s (%s): arrange: %v", s.Route, s.Note, err)
			}
		}
		// An operator's change writes one audit entry, with it; a refused
		// one writes none (shared/audit).
		f, _ := functionOf(s.Route)
		audited := f.Name == "admin" && !strings.HasPrefix(s.Route, "GET ")
		var trailBefore int
		if audited {
			trailBefore = len(auditTrail(t, a, env.Config.TableName))
		}
		ops.reset()
		requests.actions() // the arrangement's calls are no step's
		res := s.Do(c, st)
		rec, ok := logs.wait(res.Header.Get("X-Request-Id"), 2*time.Second)
		if !ok {
			t.Fatalf("%s: no access-log record for request id %q (HTTP %d)", s.Route, res.Header.Get("X-Request-Id"), res.Status)
		}
		noted := ops.take()
		actions := requests.actions()
		if f := checkGranted(t, s.Route, actions); f != "" {
			if used[f] == nil {
				used[f] = map[string]bool{}
			}
			for _, a := range actions {
				used[f][a] = true
			}
		}
		dynamoCalls := 0
		for _, c := range noted {
			if c.Service == "dynamodb" {
				dynamoCalls++
			}
		}
		if rec.Route != s.Route {
			t.Errorf("%s (%s): the router matched %q", s.Route, s.Note, rec.Route)
		}
		if res.Status != s.Want {
			t.Errorf("%s (%s): HTTP %d, want %d: %s", s.Route, s.Note, res.Status, s.Want, res.Body)
		}
		if audited {
			checkAuditEntry(t, s, res.Status, trailBefore, auditTrail(t, a, env.Config.TableName), st.OperatorID)
			if res.Status < 300 {
				auditedOK[s.Route] = true
			}
		}
		if dynamoCalls != rec.Calls {
			t.Errorf("%s (%s): access log counts %d DynamoDB calls, the SDK saw %d", s.Route, s.Note, rec.Calls, dynamoCalls)
		}
		if examples != nil && res.Status == s.Want {
			examples.step(s, res)
		}
		out = append(out, observation{status: res.Status, calls: rec.Calls, depth: rec.Depth, chain: chain(noted)})
	}
	if examples != nil {
		examples.probe(t, &probeEnv{c: c, s: st, handler: handler, clock: clock, env: env})
	}
	return out
}

// auditTrail reads the audit log behind the API, newest first.
func auditTrail(t *testing.T, a *app.App, table string) []map[string]any {
	t.Helper()
	var out []map[string]any
	p := dynamodb.NewQueryPaginator(a.DB, &dynamodb.QueryInput{
		TableName: aws.String(table), KeyConditionExpression: aws.String("PK = :pk"), ScanIndexForward: aws.Bool(false),
		ExpressionAttributeValues: map[string]types.AttributeValue{":pk": &types.AttributeValueMemberS{Value: dynamo.AuditKey(time.Time{}, "").PK}},
	})
	for p.HasMorePages() {
		page, err := p.NextPage(t.Context())
		if err != nil {
			t.Fatalf("read the audit log: %v", err)
		}
		for _, item := range page.Items {
			var m map[string]any
			if err := guregu.UnmarshalItem(item, &m); err != nil {
				t.Fatalf("read the audit log: %v", err)
			}
			out = append(out, m)
		}
	}
	return out
}

// checkAuditEntry: a back-office step that changed something (2xx) left
// exactly one audit entry, by the operator, written in the action's
// transaction (not apart); a refused one left none.
func checkAuditEntry(t *testing.T, s apitest.Step, status, before int, after []map[string]any, operatorID string) {
	t.Helper()
	switch {
	case status >= 300:
		if len(after) != before {
			t.Errorf("%s (%s): refused (HTTP %d) but the audit log grew by %d", s.Route, s.Note, status, len(after)-before)
		}
	case len(after) != before+1:
		t.Errorf("%s (%s): HTTP %d wrote %d audit entries, want 1", s.Route, s.Note, status, len(after)-before)
	case after[0]["actorId"] != operatorID:
		t.Errorf("%s (%s): the audit entry's actor is %v, want the operator %s", s.Route, s.Note, after[0]["actorId"], operatorID)
	case after[0]["apart"] == true:
		t.Errorf("%s (%s): the audit entry was written apart from the action's transaction", s.Route, s.Note)
	case after[0]["action"] == "" || after[0]["targetId"] == "":
		t.Errorf("%s (%s): the audit entry names no action or target: %v", s.Route, s.Note, after[0])
	}
}

// benchClock is the scenario's app's clock: the wall clock, moved
// forward only by the examples' probes (a free account's fifty posts
// spread over rate-limit windows). Time keeps running, as the service
// expects.
type benchClock struct{ offset atomic.Int64 }

// Now is the wall clock plus the offset.
func (c *benchClock) Now() time.Time { return time.Now().Add(time.Duration(c.offset.Load())) }

// Advance moves the clock forward by d.
func (c *benchClock) Advance(d time.Duration) { c.offset.Add(int64(d)) }

// benchCatalog is the handful of books the scenario's catalog steps read,
// imported before the first step (the import is not a route, so its calls
// are not part of any step).
var benchCatalog = []books.Record{
	{ISBN: "0-306-40615-2", Title: "Harry Potter", Authors: []string{"J. K. Rowling"}, Language: "en"},
	{ISBN: "9780439785969", Title: "Harry Potter and the Philosopher's Stone", Authors: []string{"J. K. Rowling"}, Language: "en"},
	{ISBN: "9780198534532", Title: "The Hobbit", Authors: []string{"J. R. R. Tolkien"}, Language: "en"},
	{ISBN: "9780261103573", Title: "The Lord of the Rings", Authors: []string{"J. R. R. Tolkien"}, Language: "en"},
}

// seedBookseller signs up the scenario's bookseller, of the bookstore
// tier (no route changes a tier), before the first step.
func seedBookseller(t *testing.T, a *app.App) (id, token string) {
	t.Helper()
	res, err := a.Users.Signup(t.Context(), users.SignupInput{
		Username: "bench_seller", Email: "bench.seller@example.com", Password: password, DisplayName: "Bench Seller",
	})
	if err != nil {
		t.Fatalf("bookseller: %v", err)
	}
	if _, err := a.Users.SetTier(t.Context(), res.User.ID, users.TierBookstore); err != nil {
		t.Fatalf("bookseller tier: %v", err)
	}
	return res.User.ID, res.AccessToken
}

// seedOperator signs up the scenario's operator and grants it the role
// behind the API, as the first operator's command does.
func seedOperator(t *testing.T, a *app.App) (id, token string) {
	t.Helper()
	res, err := a.Users.Signup(t.Context(), users.SignupInput{
		Username: "bench_operator", Email: "bench.operator@example.com", Password: password, DisplayName: "Bench Operator",
	})
	if err != nil {
		t.Fatalf("operator: %v", err)
	}
	if err := dynamo.NewUsers(a.Table).SetOperator(t.Context(), res.User, true, time.Now()); err != nil {
		t.Fatalf("operator role: %v", err)
	}
	return res.User.ID, res.AccessToken
}

// seedBenchCatalog imports benchCatalog and returns the ids of its books,
// in its order.
func seedBenchCatalog(t *testing.T, a *app.App) []string {
	t.Helper()
	res, err := a.Books.Import(t.Context(), benchCatalog)
	if err != nil || res.Failed > 0 {
		t.Fatalf("import bench catalog: %v %+v", err, res.Errors)
	}
	ids := make([]string, len(benchCatalog))
	for i, rec := range benchCatalog {
		b, err := a.Books.GetByISBN(t.Context(), rec.ISBN)
		if err != nil {
			t.Fatalf("bench catalog: %v", err)
		}
		ids[i] = b.ID
	}
	return ids
}

// opLog notes every AWS operation (DynamoDB, S3) with its start and end.
type opLog struct {
	mu    sync.Mutex
	calls []callstats.Call
}

func (l *opLog) middleware(stack *middleware.Stack) error {
	return stack.Initialize.Add(middleware.InitializeMiddlewareFunc("BenchOpLog",
		func(ctx context.Context, in middleware.InitializeInput, next middleware.InitializeHandler) (middleware.InitializeOutput, middleware.Metadata, error) {
			start := time.Now()
			out, md, err := next.HandleInitialize(ctx, in)
			c := callstats.Call{Service: "dynamodb", Operation: middleware.GetOperationName(ctx), Start: start, End: time.Now()}
			if id := awsmiddleware.GetServiceID(ctx); id != dynamodb.ServiceID {
				// Other services' calls stay in the chain, named as such:
				// they are round trips too.
				c.Service, c.Operation = id, id+":"+c.Operation
			}
			l.mu.Lock()
			l.calls = append(l.calls, c)
			l.mu.Unlock()
			return out, md, err
		}), middleware.After)
}

func (l *opLog) reset() {
	l.mu.Lock()
	l.calls = nil
	l.mu.Unlock()
}

func (l *opLog) take() []callstats.Call {
	l.mu.Lock()
	defer l.mu.Unlock()
	return slices.Clone(l.calls)
}

// chain writes the calls by level of sequential depth, the same measure
// callstats uses: calls on one level ran side by side.
func chain(calls []callstats.Call) string {
	if len(calls) == 0 {
		return "-"
	}
	slices.SortFunc(calls, func(a, b callstats.Call) int { return a.Start.Compare(b.Start) })
	level := make([]int, len(calls))
	var levels [][]string
	for i, c := range calls {
		level[i] = 0
		for j := range i {
			if !calls[j].End.After(c.Start) && level[j]+1 > level[i] {
				level[i] = level[j] + 1
			}
		}
		for len(levels) <= level[i] {
			levels = append(levels, nil)
		}
		levels[level[i]] = append(levels[level[i]], c.Operation)
	}
	parts := make([]string, len(levels))
	for i, names := range levels {
		slices.Sort(names)
		parts[i] = strings.Join(names, "+")
	}
	return strings.Join(parts, " -> ")
}

// accessRecord is what the router logs per request (shared/httpapi).
type accessRecord struct {
	Msg       string `json:"msg"`
	RequestID string `json:"requestId"`
	Route     string `json:"route"`
	Status    int    `json:"status"`
	Calls     int    `json:"dynamoCalls"`
	Depth     int    `json:"dynamoDepth"`
}

// accessLog collects the router's "request" records by request id. The
// record is written when the handler returns, which can be a moment after
// the client has the answer, hence wait. The line has dynamoDepth only on
// a 4xx or 5xx (shared/httpapi), so a handler wrapped by wrap records
// every request's depth itself, from the calls the router passes on to
// its recorder, and wait returns the record with it.
type accessLog struct {
	mu      sync.Mutex
	cond    *sync.Cond
	records map[string]accessRecord
	depths  map[string]int
	wrapped bool
}

func newAccessLog() *accessLog {
	l := &accessLog{records: map[string]accessRecord{}, depths: map[string]int{}}
	l.cond = sync.NewCond(&l.mu)
	return l
}

// wrap records the DynamoDB depth of each request next serves, by the
// request id the router answers with.
func (l *accessLog) wrap(next http.Handler) http.Handler {
	l.wrapped = true
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		ctx, rec := callstats.With(r.Context())
		next.ServeHTTP(w, r.WithContext(ctx))
		_, depth := rec.Summary("dynamodb")
		l.mu.Lock()
		l.depths[w.Header().Get("X-Request-Id")] = depth
		l.cond.Broadcast()
		l.mu.Unlock()
	})
}

// Write takes one JSON record per call, as slog's JSON handler writes them.
func (l *accessLog) Write(p []byte) (int, error) {
	for _, line := range bytes.Split(p, []byte("\n")) {
		var rec accessRecord
		if json.Unmarshal(line, &rec) != nil || rec.Msg != "request" || rec.RequestID == "" {
			continue
		}
		l.mu.Lock()
		l.records[rec.RequestID] = rec
		l.cond.Broadcast()
		l.mu.Unlock()
	}
	return len(p), nil
}

func (l *accessLog) wait(id string, timeout time.Duration) (accessRecord, bool) {
	deadline := time.Now().Add(timeout)
	timer := time.AfterFunc(timeout, func() {
		l.mu.Lock()
		l.cond.Broadcast()
		l.mu.Unlock()
	})
	defer timer.Stop()
	l.mu.Lock()
	defer l.mu.Unlock()
	for {
		rec, ok := l.records[id]
		depth, measured := l.depths[id]
		if ok && (measured || !l.wrapped) {
			if measured {
				rec.Depth = depth
			}
			return rec, true
		}
		if id == "" || time.Now().After(deadline) {
			return accessRecord{}, false
		}
		l.cond.Wait()
	}
}

// checkGranted fails when a step made an AWS call that needs an IAM
// action the function serving its route in AWS is not granted
// (groups.Functions is what CDK grants), so a new call cannot pass
// locally and fail with AccessDenied in AWS. The actions are those the
// call recorder noted for each call (callstats, by the rules of
// shared/dynamo and shared/s3media: a transaction by each of its parts, a
// copy as a read and a write). It returns the function's name.
func checkGranted(t *testing.T, route string, actions []string) string {
	t.Helper()
	f, ok := functionOf(route)
	if !ok {
		t.Errorf("%s: no function serves this route", route)
		return ""
	}
	granted := granted(f)
	for _, a := range actions {
		if !granted[a] {
			t.Errorf("%s: needs %s, which function %s is not granted (shared/groups/functions.go, its group's routes.go)", route, a, f.Name)
		}
	}
	return f.Name
}

// checkUsed fails when a function is granted a table, media or CDN
// action that no step of the scenario served by it needed in any run:
// a grant nothing calls is a permission an attacker gets for free.
func checkUsed(t *testing.T, used map[string]map[string]bool) {
	t.Helper()
	for _, f := range groups.Functions() {
		if len(f.Routes) == 0 {
			continue // the authorizer and the rotation function: no step; the relay: TestCallGrants_relay
		}
		for a := range granted(f) {
			if !used[f.Name][a] {
				t.Errorf("function %s is granted %s, which no step of the scenario needed: remove the grant, or add the step that needs it", f.Name, a)
			}
		}
	}
}

// granted are a function's table, media and CDN actions, and
// sqs:SendMessage when it sends to a queue (the stack grants it on the
// queues of its Sends).
func granted(f groups.Function) map[string]bool {
	out := map[string]bool{}
	for _, list := range [][]string{f.TableActions, f.MediaActions, f.CDNActions} {
		for _, a := range list {
			out[a] = true
		}
	}
	if len(f.Sends) > 0 {
		out["sqs:SendMessage"] = true
	}
	return out
}

// functionOf is the function serving a route ("METHOD /pattern").
func functionOf(route string) (groups.Function, bool) {
	for _, f := range groups.Functions() {
		for _, r := range f.Routes {
			if r.Method+" "+r.Path == route {
				return f, true
			}
		}
	}
	return groups.Function{}, false
}

// requestCalls hands each request the router serves a recorder of the
// bench's own, made in the request's context before the router makes its
// own: the router's recorder passes every call on to it (callstats.With),
// so the bench reads the actions the service recorded, not a list of its
// own.
type requestCalls struct {
	mu   sync.Mutex
	recs []*callstats.Recorder
}

func (c *requestCalls) wrap(next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		ctx, rec := callstats.With(r.Context())
		c.mu.Lock()
		c.recs = append(c.recs, rec)
		c.mu.Unlock()
		next.ServeHTTP(w, r.WithContext(ctx))
	})
}

// actions are the IAM actions of the requests since the last call.
func (c *requestCalls) actions() []string {
	c.mu.Lock()
	recs := c.recs
	c.recs = nil
	c.mu.Unlock()
	var out []string
	for _, r := range recs {
		out = append(out, r.Actions()...)
	}
	slices.Sort(out)
	return slices.Compact(out)
}
