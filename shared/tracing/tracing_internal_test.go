package tracing

import (
	"context"
	"strings"
	"testing"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	sdktrace "go.opentelemetry.io/otel/sdk/trace"
	"go.opentelemetry.io/otel/sdk/trace/tracetest"
	"go.opentelemetry.io/otel/trace"
)

// At its bound the processor makes room for a new trace by dropping the
// one held longest, not the new one: the running request's spans are the
// ones a failure would need.
func TestPending_evictsTheOldestTrace(t *testing.T) {
	p := newPending()
	base := time.Now().Add(-30 * time.Second)
	var first trace.TraceID
	for i := range maxPendingTraces {
		var id trace.TraceID
		id[0], id[1], id[15] = byte(i>>8), byte(i), 1
		if i == 0 {
			first = id
		}
		p.traces[id] = &held{since: base.Add(time.Duration(i) * time.Millisecond)}
	}
	var fresh trace.TraceID
	fresh[0] = 0xff
	p.OnEnd(childSpan(fresh))
	assert.Equal(t, maxPendingTraces, p.heldTraces())
	assert.Len(t, p.take(fresh), 1, "the new trace's span is held")
	assert.Nil(t, p.take(first), "the oldest made room")
}

// childSpan is an ended span of trace id under a parent span.
func childSpan(id trace.TraceID) sdktrace.ReadOnlySpan {
	cfg := trace.SpanContextConfig{TraceID: id, SpanID: newSpanID(), TraceFlags: trace.FlagsSampled}
	parent := cfg
	parent.SpanID = newSpanID()
	return tracetest.SpanStub{SpanContext: trace.NewSpanContext(cfg), Parent: trace.NewSpanContext(parent)}.Snapshot()
}

func TestSegmentName(t *testing.T) {
	assert.Equal(t, "GET /v1/users/:userId/lines", segmentName("GET /v1/users/{userId}/lines"))
	assert.Equal(t, "DELETE /v1/lines/:lineId/replies/:replyId", segmentName("DELETE /v1/lines/{lineId}/replies/{replyId}"))
	assert.Equal(t, "GET /health_", segmentName("GET /health?"))
	assert.Len(t, segmentName(strings.Repeat("a", 300)), 200)
}

// Tracing is off outside Lambda unless an X-Ray endpoint is configured;
// a sampling setting out of range stops the start.
func TestSetup(t *testing.T) {
	env := func(kv map[string]string) func(string) string { return func(k string) string { return kv[k] } }
	on, err := Setup(env(nil), aws.Config{}, nil)
	require.NoError(t, err)
	assert.False(t, on, "the local run")

	for _, bad := range []map[string]string{
		{envFunctionName: "books", EnvSampleRate: "1.5"},
		{envFunctionName: "books", EnvSampleRate: "-0.1"},
		{envFunctionName: "books", EnvSampleRate: "often"},
		{envFunctionName: "books", EnvSlowMS: "0"},
		{envFunctionName: "books", EnvSlowMS: "1s"},
	} {
		_, err := Setup(env(bad), aws.Config{}, nil)
		assert.Error(t, err, "%v", bad)
		assert.Nil(t, current, "%v", bad)
	}

	on, err = Setup(env(map[string]string{EnvEndpoint: "http://127.0.0.1:9"}), aws.Config{}, nil)
	require.NoError(t, err)
	assert.True(t, on, "an X-Ray endpoint outside Lambda")
	assert.Equal(t, "bookplatform", current.service)
	assert.Equal(t, DefaultSampleRate, current.keep.rate)
	assert.Equal(t, DefaultSlowMS*time.Millisecond, current.keep.slow)
	require.NoError(t, Shutdown(t.Context()))

	on, err = Setup(env(map[string]string{envFunctionName: "bookplatform-books", EnvSampleRate: "0.25", EnvSlowMS: "300"}), aws.Config{}, nil)
	require.NoError(t, err)
	assert.True(t, on, "in Lambda")
	assert.Equal(t, "bookplatform-books", current.service)
	assert.Equal(t, 0.25, current.keep.rate)
	assert.Equal(t, 300*time.Millisecond, current.keep.slow)
	require.NoError(t, Shutdown(t.Context()))
}

// The policy keeps every failure and every slow request, and of the rest
// those whose draw falls under the rate.
func TestPolicy(t *testing.T) {
	draw := 0.5
	p := policy{rate: 0.01, slow: time.Second, draw: func() float64 { return draw }}
	assert.True(t, p.keeps(true, time.Millisecond))
	assert.True(t, p.keeps(false, time.Second))
	assert.False(t, p.keeps(false, 999*time.Millisecond))
	draw = 0.009
	assert.True(t, p.keeps(false, time.Millisecond))
	p.rate = 0
	draw = 0
	assert.False(t, p.keeps(false, time.Millisecond), "rate 0 keeps no quick success")
}

// What a request whose trace is dropped pays for tracing: its route span
// and three SDK calls' spans recorded, held and let go (docs/decisions.md,
// "Traces are sampled by the application").
func BenchmarkDroppedRequest(b *testing.B) {
	on, err := Setup(func(k string) string {
		return map[string]string{EnvEndpoint: "http://127.0.0.1:9", EnvSampleRate: "0", EnvSlowMS: "60000"}[k]
	}, aws.Config{}, nil)
	require.NoError(b, err)
	require.True(b, on)
	defer func() { _ = Shutdown(context.Background()) }()
	calls := current.provider.Tracer(sdkInstrumentationName)
	b.ReportAllocs()
	for b.Loop() {
		ctx, span := Start(context.Background(), "GET /v1/books/{id}")
		for range 3 {
			_, call := calls.Start(ctx, "DynamoDB.GetItem", trace.WithSpanKind(trace.SpanKindClient), trace.WithAttributes(
				AttrRPCSystem.String("aws-api"), AttrRPCService.String("DynamoDB"), AttrRPCMethod.String("DynamoDB/GetItem"),
				AttrRegion.String("us-east-1"), AttrDynamoTables.StringSlice([]string{"bookplatform"})))
			call.SetAttributes(AttrStatus.Int(200), AttrRequestID.String("REQ"))
			call.End()
		}
		if id := End(ctx, span, "GET /v1/books/{id}", "books", 200); id != "" {
			b.Fatal("kept at rate 0")
		}
	}
	if n := current.pending.heldTraces(); n != 0 {
		b.Fatalf("%d traces left in memory", n)
	}
}
