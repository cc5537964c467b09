package tracing_test

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"io"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"regexp"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"
	"github.com/bookplatform/backend/local/testenv"
	"github.com/bookplatform/backend/shared/dynamo"
	"github.com/bookplatform/backend/shared/httpapi"
	"github.com/bookplatform/backend/shared/tracing"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func TestMain(m *testing.M) { testenv.Main(m) }

// xrayStandIn is the X-Ray API's PutTraceSegments, as the SDK calls it:
// it keeps each request's documents, answering with status (200 unless
// set) after delay.
type xrayStandIn struct {
	*httptest.Server
	mu       sync.Mutex
	requests [][]map[string]any
	status   int
	delay    time.Duration
}

func newXRay(t *testing.T) *xrayStandIn {
	x := &xrayStandIn{status: http.StatusOK}
	x.Server = httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.Method != http.MethodPost || r.URL.Path != "/TraceSegments" {
			http.Error(w, "not PutTraceSegments: "+r.Method+" "+r.URL.Path, http.StatusNotFound)
			return
		}
		var in struct{ TraceSegmentDocuments []string }
		body, _ := io.ReadAll(r.Body)
		if err := json.Unmarshal(body, &in); err != nil {
			http.Error(w, err.Error(), http.StatusBadRequest)
			return
		}
		var docs []map[string]any
		for _, d := range in.TraceSegmentDocuments {
			var m map[string]any
			if err := json.Unmarshal([]byte(d), &m); err != nil {
				http.Error(w, err.Error(), http.StatusBadRequest)
				return
			}
			docs = append(docs, m)
		}
		x.mu.Lock()
		x.requests = append(x.requests, docs)
		status, delay := x.status, x.delay
		x.mu.Unlock()
		time.Sleep(delay)
		w.Header().Set("Content-Type", "application/json")
		w.WriteHeader(status)
		_, _ = w.Write([]byte(`{"UnprocessedTraceSegments":[]}`))
	}))
	t.Cleanup(x.Close)
	return x
}

// sent returns and forgets the requests received so far.
func (x *xrayStandIn) sent() [][]map[string]any {
	x.mu.Lock()
	defer x.mu.Unlock()
	out := x.requests
	x.requests = nil
	return out
}

func (x *xrayStandIn) answer(status int, delay time.Duration) {
	x.mu.Lock()
	defer x.mu.Unlock()
	x.status, x.delay = status, delay
}

// fixture is a router of one route that reads an item from DynamoDB
// Local through an instrumented client, and fails (500) when asked to,
// with tracing set up at rate and slow, sending to the stand-in.
type fixture struct {
	xray   *xrayStandIn
	router http.Handler
	logs   *bytes.Buffer
	warns  *bytes.Buffer
	table  string
}

func setup(t *testing.T, rate string, slowMS int) *fixture {
	t.Helper()
	x := newXRay(t)
	f := &fixture{xray: x, logs: &bytes.Buffer{}, warns: &bytes.Buffer{}}
	cfg := testenv.AWSConfig(map[string]string{dynamodb.ServiceID: testenv.DynamoDBEndpoint(t)})
	env := map[string]string{
		"AWS_LAMBDA_FUNCTION_NAME": "bookplatform-books",
		tracing.EnvEndpoint:        x.URL,
		tracing.EnvSampleRate:      rate,
		tracing.EnvSlowMS:          strconv.Itoa(slowMS),
	}
	on, err := tracing.Setup(func(k string) string { return env[k] }, cfg, slog.New(slog.NewJSONHandler(f.warns, nil)))
	require.NoError(t, err)
	require.True(t, on)
	t.Cleanup(func() { _ = tracing.Shutdown(context.Background()) })
	tracing.Instrument(&cfg)
	db := dynamodb.NewFromConfig(cfg)
	f.table = "tracing-" + strings.ReplaceAll(t.Name(), "/", "-")
	require.NoError(t, dynamo.Table.EnsureTable(t.Context(), db, f.table))
	t.Cleanup(func() {
		_, _ = db.DeleteTable(context.Background(), &dynamodb.DeleteTableInput{TableName: aws.String(f.table)})
	})
	require.Empty(t, x.sent(), "the table's creation was in no request: nothing is sent")

	key := map[string]types.AttributeValue{"PK": &types.AttributeValueMemberS{Value: "A"}, "SK": &types.AttributeValueMemberS{Value: "B"}}
	f.router = httpapi.NewRouter(httpapi.Options{Logger: slog.New(slog.NewJSONHandler(f.logs, nil)), Group: "books"}, []httpapi.Route{
		{Method: "GET", Path: "/v1/books/{id}", Auth: httpapi.AuthNone, Unmetered: true, Handler: func(w http.ResponseWriter, r *http.Request) error {
			if _, err := db.GetItem(r.Context(), &dynamodb.GetItemInput{TableName: aws.String(f.table), Key: key}); err != nil {
				return err
			}
			if ms, _ := strconv.Atoi(r.URL.Query().Get("sleep")); ms > 0 {
				time.Sleep(time.Duration(ms) * time.Millisecond)
			}
			if r.URL.Query().Get("fail") != "" {
				return errors.New("the handler failed")
			}
			return httpapi.JSON(w, http.StatusOK, map[string]string{"id": r.PathValue("id")})
		}},
	})
	return f
}

// serve sends one request and returns its status, the access line's
// traceId ("" without) and how long it took.
func (f *fixture) serve(t *testing.T, target string) (int, string, time.Duration) {
	t.Helper()
	f.logs.Reset()
	rec := httptest.NewRecorder()
	start := time.Now()
	f.router.ServeHTTP(rec, httptest.NewRequest("GET", target, nil))
	took := time.Since(start)
	for _, l := range strings.Split(strings.TrimSpace(f.logs.String()), "\n") {
		var line struct{ Msg, TraceID string }
		if json.Unmarshal([]byte(l), &line) == nil && line.Msg == "request" {
			return rec.Code, line.TraceID, took
		}
	}
	t.Fatalf("no access line in %s", f.logs.String())
	return 0, "", 0
}

var xrayTraceID = regexp.MustCompile(`^1-[0-9a-f]{8}-[0-9a-f]{24}$`)

// A 5xx is always traced, whatever the rate: one PutTraceSegments
// carries the function's segment (its own X-Ray trace id, Lambda's
// origin, the route, status and group as annotations, the fault) and
// the DynamoDB call's subsegment under it, with what X-Ray shows of an
// AWS call; the access line names the trace.
func TestTracing_FailedRequestIsKept(t *testing.T) {
	f := setup(t, "0", 60_000)
	status, traceID, _ := f.serve(t, "/v1/books/b1?fail=1")
	require.Equal(t, http.StatusInternalServerError, status)
	require.Regexp(t, xrayTraceID, traceID, "the access line names the kept trace")
	epoch, err := strconv.ParseInt(traceID[2:10], 16, 64)
	require.NoError(t, err)
	assert.InDelta(t, time.Now().Unix(), epoch, 60, "the trace id starts with the epoch second")

	sent := f.xray.sent()
	require.Len(t, sent, 1, "one PutTraceSegments")
	docs := sent[0]
	require.Len(t, docs, 2, "the segment and the call's subsegment: %v", docs)
	seg, call := docs[0], docs[1]
	for _, d := range docs {
		assert.Equal(t, traceID, d["trace_id"])
		assert.Len(t, d["id"], 16)
		assert.Less(t, d["start_time"], d["end_time"])
	}

	assert.Equal(t, "bookplatform-books", seg["name"], "named after the function")
	assert.Equal(t, "AWS::Lambda::Function", seg["origin"])
	assert.Nil(t, seg["type"], "a segment, not a subsegment")
	assert.Nil(t, seg["parent_id"], "the root of its trace")
	assert.Equal(t, map[string]any{"route": "GET /v1/books/{id}", "status": float64(500), "group": "books"}, seg["annotations"])
	assert.Equal(t, map[string]any{"response": map[string]any{"status": float64(500)}}, seg["http"])
	assert.Equal(t, true, seg["fault"])

	assert.Equal(t, "subsegment", call["type"])
	assert.Equal(t, seg["id"], call["parent_id"], "under the function's segment")
	assert.Equal(t, "DynamoDB", call["name"])
	assert.Equal(t, "aws", call["namespace"])
	awsPart := call["aws"].(map[string]any)
	assert.Equal(t, "GetItem", awsPart["operation"])
	assert.Equal(t, f.table, awsPart["table_name"])
	assert.Equal(t, testenv.Region, awsPart["region"])
	assert.NotEmpty(t, awsPart["request_id"])
	assert.Equal(t, map[string]any{"response": map[string]any{"status": float64(200)}}, call["http"])
	assert.Nil(t, call["fault"])
	assert.Empty(t, f.warns.String())
}

// At rate 0 a quick 2xx is not sent and its access line names no trace;
// a slow one (TRACE_SLOW_MS) is sent.
func TestTracing_QuickSuccessDroppedAtRateZero(t *testing.T) {
	f := setup(t, "0", 200)
	for range 5 {
		status, traceID, _ := f.serve(t, "/v1/books/b1")
		require.Equal(t, http.StatusOK, status)
		assert.Empty(t, traceID)
	}
	assert.Empty(t, f.xray.sent(), "no 2xx is sent at rate 0")
	assert.Zero(t, tracing.HeldTraces(), "a dropped trace leaves nothing in memory")

	status, traceID, _ := f.serve(t, "/v1/books/b1?sleep=250")
	require.Equal(t, http.StatusOK, status)
	require.Regexp(t, xrayTraceID, traceID, "a slow request is kept")
	sent := f.xray.sent()
	require.Len(t, sent, 1)
	assert.Equal(t, traceID, sent[0][0]["trace_id"])
	assert.Nil(t, sent[0][0]["fault"])
}

// At rate 1 every request is sent.
func TestTracing_SuccessSentAtRateOne(t *testing.T) {
	f := setup(t, "1", 60_000)
	status, traceID, _ := f.serve(t, "/v1/books/b1")
	require.Equal(t, http.StatusOK, status)
	require.Regexp(t, xrayTraceID, traceID)
	sent := f.xray.sent()
	require.Len(t, sent, 1)
	require.Len(t, sent[0], 2)
	assert.Equal(t, traceID, sent[0][0]["trace_id"])
	assert.Equal(t, sent[0][0]["id"], sent[0][1]["parent_id"])
}

// X-Ray refusing the trace, or answering too late, changes nothing of
// the response: the request waits at most the send's timeout, the
// failure is a WARN line, and the access line names no trace.
func TestTracing_SenderFailureDoesNotFailTheRequest(t *testing.T) {
	f := setup(t, "1", 60_000)
	f.xray.answer(http.StatusInternalServerError, 0)
	status, traceID, _ := f.serve(t, "/v1/books/b1")
	assert.Equal(t, http.StatusOK, status)
	assert.Empty(t, traceID, "the trace was not sent")
	assert.Contains(t, f.warns.String(), `"level":"WARN","msg":"tracing: trace not sent"`)

	f.warns.Reset()
	f.xray.answer(http.StatusOK, 2*time.Second)
	status, traceID, took := f.serve(t, "/v1/books/b1?fail=1")
	assert.Equal(t, http.StatusInternalServerError, status, "the handler's own answer")
	assert.Empty(t, traceID)
	assert.Less(t, took, time.Second, "the send gives up after its timeout")
	assert.Contains(t, f.warns.String(), "tracing: trace not sent")
}

// A worker's invocation is the root of its own trace: a failed one is
// kept with its calls under it, a quick successful one is not (rate 0).
func TestTracing_FailedInvocationIsKept(t *testing.T) {
	f := setup(t, "0", 60_000)
	ctx, span := tracing.Start(context.Background(), "worker webhooks")
	assert.Empty(t, tracing.EndInvocation(ctx, span, false))
	assert.Empty(t, f.xray.sent())

	ctx, span = tracing.Start(context.Background(), "worker webhooks")
	_, child := tracing.Start(ctx, "inner")
	child.End()
	traceID := tracing.EndInvocation(ctx, span, true)
	require.Regexp(t, xrayTraceID, traceID)
	sent := f.xray.sent()
	require.Len(t, sent, 1)
	require.Len(t, sent[0], 2)
	assert.Equal(t, map[string]any{"invocation": "worker webhooks"}, sent[0][0]["annotations"])
	assert.Equal(t, true, sent[0][0]["fault"])
	assert.Equal(t, sent[0][0]["id"], sent[0][1]["parent_id"])
}
