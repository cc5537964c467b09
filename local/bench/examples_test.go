package main

import (
	"bytes"
	"encoding/json"
	"flag"
	"fmt"
	"io"
	"mime"
	"net/http"
	"os"
	"slices"
	"strconv"
	"strings"
	"sync"
	"testing"

	"github.com/bookplatform/backend/shared/api/apitest"
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

// probes are requests after the scenario for the answers the router
// gives on any route, which no group's steps ask for: each names the
// route it is recorded under (one whose operation documents the status)
// and is kept only when answered with the status it wants. 431 (the
// local server's front, in AWS API Gateway, answers it before any
// route), 500 and 503 (faults) and the monthly limit's 403 (fifty posts
// of a free account) are not provoked.
var probes = []struct {
	route string
	want  int
	do    func(c *client, s *apitest.State) *response
}{
	{"GET /health", http.StatusMethodNotAllowed, func(c *client, _ *apitest.State) *response {
		return c.Do(http.MethodDelete, "/health", nil, "")
	}},
	{"POST /v1/auth/login", http.StatusUnsupportedMediaType, func(c *client, s *apitest.State) *response {
		return c.Raw(http.MethodPost, "/v1/auth/login", "text/plain", strings.NewReader(s.Email), "")
	}},
	{"POST /v1/auth/login", http.StatusRequestEntityTooLarge, func(c *client, s *apitest.State) *response {
		big := `{"email":"` + s.Email + `","password":"` + strings.Repeat("x", 1<<20) + `"}`
		return c.Raw(http.MethodPost, "/v1/auth/login", "application/json", strings.NewReader(big), "")
	}},
	{"POST /v1/auth/login", http.StatusTooManyRequests, func(c *client, s *apitest.State) *response {
		// Wrong passwords for one account until its attempts run out.
		var res *response
		for range 30 {
			res = c.Do(http.MethodPost, "/v1/auth/login", map[string]any{"email": s.Email, "password": "not-the-password"}, "")
			if res.Status == http.StatusTooManyRequests {
				break
			}
		}
		return res
	}},
	{"POST /v1/follows/users/{userId}", http.StatusUnprocessableEntity, func(c *client, s *apitest.State) *response {
		// One Idempotency-Key, then the same key with another request.
		keyed := c.Keyed("examples-follow-1")
		keyed.Do(http.MethodPost, "/v1/follows/users/"+s.UserID, nil, s.SellerToken)
		return keyed.Do(http.MethodPost, "/v1/follows/users/"+s.MigratedID, nil, s.SellerToken)
	}},
}

// probe sends the probes and keeps what they show.
func (r *exampleRecorder) probe(t *testing.T, c *client, s *apitest.State) {
	t.Helper()
	for _, p := range probes {
		res := p.do(c, s)
		if res.Status != p.want {
			t.Logf("probe %s: HTTP %d, want %d: not recorded", p.route, res.Status, p.want)
			continue
		}
		r.step(apitest.Step{Route: p.route, Want: p.want}, res)
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
