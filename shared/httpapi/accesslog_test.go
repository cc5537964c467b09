package httpapi

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"regexp"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// accessLine serves one request on a router with the given options and
// returns its access log line, raw and decoded (keys in order).
func accessLine(t *testing.T, opts Options, req *http.Request) (string, map[string]any) {
	t.Helper()
	var buf bytes.Buffer
	opts.Logger = slog.New(slog.NewJSONHandler(&buf, nil))
	rt := NewRouter(opts, []Route{
		{Method: "GET", Path: "/v1/books/{id}", Auth: AuthNone, Unmetered: true, Handler: func(w http.ResponseWriter, r *http.Request) error {
			return JSON(w, http.StatusOK, map[string]string{"id": r.PathValue("id")})
		}},
	})
	rt.ServeHTTP(httptest.NewRecorder(), req)
	for _, line := range strings.Split(strings.TrimSpace(buf.String()), "\n") {
		var m map[string]any
		require.NoError(t, json.Unmarshal([]byte(line), &m), line)
		if m["msg"] == "request" {
			return line, m
		}
	}
	t.Fatalf("no access log line in %s", buf.String())
	return "", nil
}

// The access line carries what the metric filters (AccessMetricFilters,
// which infra puts on every HTTP function's log group) read: each filter's
// pattern selects it and no other line, its value is a number member and
// each dimension a non-empty string member. The line declares no metric
// itself (no EMF "_aws" member: the filters make the same metrics).
func TestAccessLog_MetricFilters(t *testing.T) {
	cases := map[string]struct {
		path, route, class string
		status             float64
	}{
		"a matched route": {"/v1/books/b1", "GET /v1/books/{id}", "2xx", 200},
		"no route":        {"/v1/nothing", UnmatchedRoute, "4xx", 404},
	}
	for name, c := range cases {
		t.Run(name, func(t *testing.T) {
			raw, line := accessLine(t, Options{Group: "books"}, httptest.NewRequest("GET", c.path, nil))

			// The fields people read.
			assert.Equal(t, c.route, line["route"])
			assert.Equal(t, c.status, line["status"])
			assert.Equal(t, c.class, line["statusClass"])
			assert.Equal(t, "books", line["group"])
			assert.NotEmpty(t, line["requestId"])
			for _, k := range []string{"durationMs", "dynamoCalls"} {
				assert.IsType(t, float64(0), line[k], k)
			}
			// The path and the call depth only where someone debugs
			// (TestAccessLog_Lean): the gateway's line has the path.
			if c.status >= 400 {
				assert.Equal(t, c.path, line["path"])
				assert.IsType(t, float64(0), line["dynamoDepth"])
			} else {
				assert.NotContains(t, line, "path")
				assert.NotContains(t, line, "dynamoDepth")
			}
			assert.NotContains(t, line, "_aws", "the metrics are the filters', not an EMF declaration")

			filters := AccessMetricFilters()
			require.Len(t, filters, 2)
			var sets [][]string
			for _, f := range filters {
				assert.True(t, filterSelects(t, f.Pattern, line), "%s selects the access line %s", f.Pattern, raw)
				field, ok := strings.CutPrefix(f.Value, "$.")
				require.True(t, ok, f.Value)
				assert.IsType(t, float64(0), line[field], "the value %s is a number member", f.Value)
				assert.Equal(t, MetricDuration, f.Metric)
				assert.Equal(t, "Milliseconds", f.Unit)
				for _, d := range f.Dimensions {
					v, ok := line[d].(string)
					assert.True(t, ok && v != "", "dimension %s must be a non-empty string member, got %v", d, line[d])
				}
				sets = append(sets, f.Dimensions)
			}
			assert.Equal(t, [][]string{{"route", "statusClass"}, {"group", "statusClass"}}, sets, "dynamoCalls is a field, not a metric")

			// Readable from the left: the message and the request first.
			assert.Equal(t, []string{"time", "level", "msg", "requestId"}, topLevelKeys(t, raw)[:4])
		})
	}

	// AND no other line of the router's matches: a panic's line is no
	// request sample.
	var buf bytes.Buffer
	rt := NewRouter(Options{Logger: slog.New(slog.NewJSONHandler(&buf, nil))}, []Route{
		{Method: "GET", Path: "/v1/panics", Auth: AuthNone, Unmetered: true, Handler: func(w http.ResponseWriter, r *http.Request) error {
			panic("boom")
		}},
	})
	rt.ServeHTTP(httptest.NewRecorder(), httptest.NewRequest("GET", "/v1/panics", nil))
	selected := 0
	for _, l := range strings.Split(strings.TrimSpace(buf.String()), "\n") {
		var m map[string]any
		require.NoError(t, json.Unmarshal([]byte(l), &m), l)
		if filterSelects(t, AccessMetricFilters()[0].Pattern, m) {
			selected++
		}
	}
	assert.Equal(t, 1, selected, "one sample for one request, its access line: %s", buf.String())
}

// A router told no group logs its lines under "local" (the local run's
// single process), so the group dimension is never empty.
func TestAccessLog_DefaultGroup(t *testing.T) {
	_, line := accessLine(t, Options{}, httptest.NewRequest("GET", "/v1/books/b1", nil))
	assert.Equal(t, "local", line["group"])
}

// filterSelects evaluates a CloudWatch Logs JSON filter pattern of the one
// form the access metrics use, { $.field = "value" }, on a line.
func filterSelects(t *testing.T, pattern string, line map[string]any) bool {
	t.Helper()
	m := regexp.MustCompile(`^\{ \$\.(\w+) = "([^"]*)" \}$`).FindStringSubmatch(pattern)
	require.NotNil(t, m, "a pattern of the form { $.field = \"value\" }: %s", pattern)
	return line[m[1]] == m[2]
}

// The access line names a trace only when shared/tracing kept it
// (tracing TestTracing_*): without tracing set up, none, and Lambda's own
// trace header (which Lambda records nothing for, its tracing being off)
// is not one.
func TestAccessLog_TraceID(t *testing.T) {
	req := httptest.NewRequest("GET", "/v1/books/b1", nil)
	_, line := accessLine(t, Options{}, req)
	assert.NotContains(t, line, "traceId", "no trace without tracing")

	//nolint:staticcheck // aws-lambda-go's key is a plain string.
	ctx := context.WithValue(context.Background(), "x-amzn-trace-id", "Root=1-5759e988-bd862e3fe1be46a994272793;Parent=53995c3f42cd8ad8;Sampled=1")
	_, line = accessLine(t, Options{}, req.WithContext(ctx))
	assert.NotContains(t, line, "traceId", "Lambda's header names no trace of ours")
}

// The line leaves out what is said elsewhere: on a 2xx or 3xx the path,
// the method and dynamoDepth (the gateway's access line, which joins this
// one on the request id, has the path and method); on a 4xx or 5xx, read
// to debug, the path and dynamoDepth are there, and the method unless the
// route key names it (a request no route matched keeps it). The AWS
// operations are listed on a 5xx only. dynamoCalls is on every line.
func TestAccessLog_Lean(t *testing.T) {
	_, line := accessLine(t, Options{}, httptest.NewRequest("GET", "/v1/books/b1", nil))
	assert.EqualValues(t, 200, line["status"])
	for _, k := range []string{"method", "path", "dynamoDepth", "awsOps"} {
		assert.NotContains(t, line, k, "a 2xx line leaves out %s", k)
	}
	assert.Contains(t, line, "dynamoCalls")

	_, line = accessLine(t, Options{}, httptest.NewRequest("HEAD", "/v1/books/b1", nil))
	assert.Equal(t, "GET /v1/books/{id}", line["route"])
	assert.NotContains(t, line, "method", "a 2xx HEAD's method is the gateway line's")
	assert.NotContains(t, line, "path")

	_, line = accessLine(t, Options{}, httptest.NewRequest("POST", "/v1/nothing", nil))
	assert.Equal(t, UnmatchedRoute, line["route"])
	assert.Equal(t, "4xx", line["statusClass"])
	assert.Equal(t, "POST", line["method"])
	assert.Equal(t, "/v1/nothing", line["path"])
	assert.IsType(t, float64(0), line["dynamoDepth"], "a 4xx line has the call depth")
	assert.Contains(t, line, "dynamoCalls")
	assert.NotContains(t, line, "awsOps", "a 4xx lists no operations")

	var buf bytes.Buffer
	rt := NewRouter(Options{Logger: slog.New(slog.NewJSONHandler(&buf, nil))}, []Route{
		{Method: "GET", Path: "/v1/broken", Auth: AuthNone, Unmetered: true, Handler: func(w http.ResponseWriter, r *http.Request) error {
			return errors.New("broken")
		}},
	})
	rt.ServeHTTP(httptest.NewRecorder(), httptest.NewRequest("GET", "/v1/broken", nil))
	var failed map[string]any
	for _, l := range strings.Split(strings.TrimSpace(buf.String()), "\n") {
		var m map[string]any
		require.NoError(t, json.Unmarshal([]byte(l), &m), l)
		if m["msg"] == "request" {
			failed = m
		}
	}
	require.NotNil(t, failed, buf.String())
	assert.EqualValues(t, 500, failed["status"])
	assert.Contains(t, failed, "awsOps", "a 5xx lists the operations it called")
	assert.Equal(t, "/v1/broken", failed["path"])
	assert.IsType(t, float64(0), failed["dynamoDepth"], "a 5xx line has the call depth")
	assert.Contains(t, failed, "dynamoCalls")
	assert.NotContains(t, failed, "method", "GET is in the route key")
}

// topLevelKeys are the keys of a JSON object, in order.
func topLevelKeys(t *testing.T, raw string) []string {
	t.Helper()
	dec := json.NewDecoder(strings.NewReader(raw))
	_, err := dec.Token() // {
	require.NoError(t, err)
	var keys []string
	for dec.More() {
		k, err := dec.Token()
		require.NoError(t, err)
		keys = append(keys, k.(string))
		var skip json.RawMessage
		require.NoError(t, dec.Decode(&skip))
	}
	return keys
}
