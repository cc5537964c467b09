// Package tracing records each request's trace and keeps it in X-Ray
// when it is worth reading: tail-based sampling owned by the application.
// The router opens a span for the route (a worker, the relay and a job
// one for their invocation, app.traced) and every AWS SDK call
// (DynamoDB, S3, SQS, Secrets Manager) opens one under it (the SDK
// middleware of awssdk.go). The spans stay in memory (tail.go) until the
// request ends; then the trace is kept when the request failed (a 5xx, a
// worker's failure), was slow (TRACE_SLOW_MS), or won a draw at
// TRACE_SAMPLE_RATE, and is sent, before the handler returns, as X-Ray
// segment documents through the PutTraceSegments API (xray.go): a
// segment named after the function with the route, its status and group
// as annotations, and each call a subsegment under it with its table,
// operation and outcome. Any other trace is dropped where it was made.
//
// Why not Lambda's active tracing: Lambda records one request a second
// per function and 5% of the rest, a rate no sampling rule changes, and
// decides before the request has run, so it keeps a fast 200 as readily
// as a 500 and may keep neither. Its reservoir alone cost more a month
// than the traces worth reading (docs/decisions.md, "Traces are sampled
// by the application").
//
// Why not the X-Ray SDK for Go: its xray package links gRPC, fasthttp and
// the retired aws-sdk-go v1, which doubles every bootstrap (13 MB to 32 MB,
// past the 15 MB budget of local/bench) and adds about 6 ms to a cold
// start. OpenTelemetry's SDK adds under 1 MB; the segment documents of
// xray.go are the small documented format. Why not OpenTelemetry's otelaws
// for the SDK calls: its attribute builders import the SQS and SNS
// clients, so every function linked and initialized both; awssdk.go sets
// the same span names and attributes for the service's calls, and a
// function links only the clients its group uses.
//
// Outside Lambda (the local server, tests) nothing is set up unless an
// X-Ray endpoint is configured (AWS_ENDPOINT_URL_XRAY): the global tracer
// provider stays OpenTelemetry's no-op one and the SDK clients are not
// instrumented, so tracing costs nothing there.
package tracing

import (
	"context"
	"fmt"
	"log/slog"
	"math/rand/v2"
	"os"
	"strconv"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/xray"
	"go.opentelemetry.io/otel"
	"go.opentelemetry.io/otel/attribute"
	"go.opentelemetry.io/otel/codes"
	sdktrace "go.opentelemetry.io/otel/sdk/trace"
	"go.opentelemetry.io/otel/trace"
	"go.opentelemetry.io/otel/trace/noop"
)

// Environment: the sampling settings, the SDK's endpoint override for
// X-Ray (a stand-in's; set, tracing is on outside Lambda too), and the
// function's name, which the Lambda runtime sets.
const (
	EnvSampleRate   = "TRACE_SAMPLE_RATE"
	EnvSlowMS       = "TRACE_SLOW_MS"
	EnvEndpoint     = "AWS_ENDPOINT_URL_XRAY"
	envFunctionName = "AWS_LAMBDA_FUNCTION_NAME"
)

// Defaults of the sampling settings: 0.1% of the requests that neither
// failed nor were slow, and a second as slow (the API's answers take a
// few tens of milliseconds; a second is what a reader notices). Every
// failed or slow request is kept whatever the rate: the draw only adds
// ordinary requests, for their latency's breakdown, and a thousandth of
// the traffic is a thousand traces a day at a million requests a day
// (docs/decisions.md, "Traces are sampled by the application").
const (
	DefaultSampleRate = 0.001
	DefaultSlowMS     = 1000
)

// sendTimeout bounds the sending of a kept trace, which the request
// waits for: a trace is worth less than a reader's time.
const sendTimeout = 300 * time.Millisecond

// sendMargin is the time a send leaves before the invocation's deadline
// (for the answer to be returned); with less than minSendWait left after
// it, a kept trace is not sent at all.
const (
	sendMargin  = 50 * time.Millisecond
	minSendWait = 20 * time.Millisecond
)

// instrumentationName names the router's spans.
const instrumentationName = "github.com/bookplatform/backend/shared/httpapi"

// tracer is what Setup turned on.
type tracer struct {
	provider *sdktrace.TracerProvider
	pending  *pending
	keep     policy
	send     func(context.Context, []string) error
	service  string // the segment's name: the function's
	logger   *slog.Logger
}

var current *tracer

// Setup turns tracing on when the process runs in Lambda or an X-Ray
// endpoint is configured (EnvEndpoint): every span is recorded, and each
// request's trace is kept or dropped when it ends (End, EndInvocation).
// cfg is the SDK configuration the X-Ray client is made from, before
// Instrument adds the spans to it (the sending of a trace is not part of
// it). It reports whether tracing is on; a sampling setting out of range
// is an error. Call it once, before Instrument.
func Setup(getenv func(string) string, cfg aws.Config, logger *slog.Logger) (bool, error) {
	endpoint, service := getenv(EnvEndpoint), getenv(envFunctionName)
	if endpoint == "" && service == "" {
		return false, nil
	}
	if service == "" {
		service = "bookplatform"
	}
	keep, err := policyFrom(getenv)
	if err != nil {
		return false, fmt.Errorf("tracing: %w", err)
	}
	if logger == nil {
		logger = slog.Default()
	}
	client := xray.NewFromConfig(cfg, func(o *xray.Options) {
		if endpoint != "" {
			o.BaseEndpoint = aws.String(endpoint)
		}
		// One attempt: a retry would not fit in sendTimeout, and a lost
		// trace costs nothing but the trace.
		o.RetryMaxAttempts = 1
	})
	t := &tracer{pending: newPending(), keep: keep, service: segmentName(service), logger: logger}
	t.send = func(ctx context.Context, docs []string) error { return putSegments(ctx, client, docs) }
	t.provider = sdktrace.NewTracerProvider(
		// Every span is recorded: whether its trace is kept is known only
		// when the request ends.
		sdktrace.WithSampler(sdktrace.AlwaysSample()),
		sdktrace.WithIDGenerator(xrayIDs{}),
		sdktrace.WithSpanProcessor(t.pending),
	)
	current = t
	otel.SetTracerProvider(t.provider)
	return true, nil
}

// policyFrom reads the sampling settings.
func policyFrom(getenv func(string) string) (policy, error) {
	p := policy{rate: DefaultSampleRate, slow: DefaultSlowMS * time.Millisecond, draw: rand.Float64}
	if v := getenv(EnvSampleRate); v != "" {
		r, err := strconv.ParseFloat(v, 64)
		if err != nil || r < 0 || r > 1 {
			return policy{}, fmt.Errorf("%s=%q: want a share from 0 to 1", EnvSampleRate, v)
		}
		p.rate = r
	}
	if v := getenv(EnvSlowMS); v != "" {
		ms, err := strconv.Atoi(v)
		if err != nil || ms <= 0 {
			return policy{}, fmt.Errorf("%s=%q: want a whole number of milliseconds above 0", EnvSlowMS, v)
		}
		p.slow = time.Duration(ms) * time.Millisecond
	}
	return p, nil
}

// SetupFromEnv is Setup from the process environment.
func SetupFromEnv(cfg aws.Config, logger *slog.Logger) (bool, error) {
	return Setup(os.Getenv, cfg, logger)
}

// Instrument makes every call of the clients built from cfg a span, when
// Setup turned tracing on.
func Instrument(cfg *aws.Config) {
	if current == nil {
		return
	}
	cfg.APIOptions = append(cfg.APIOptions, sdkMiddleware(current.provider.Tracer(sdkInstrumentationName)))
}

// Start starts the span of a route (name: "GET /v1/users/{userId}") or
// of an invocation (a worker's batch), the root of its trace. Without
// Setup it records nothing.
func Start(ctx context.Context, name string) (context.Context, trace.Span) {
	return otel.Tracer(instrumentationName).Start(ctx, name, trace.WithSpanKind(trace.SpanKindServer))
}

// Attributes of the route span, read back as the segment's X-Ray
// annotations (searchable) and HTTP status.
const (
	AttrRoute  = attribute.Key("http.route")
	AttrStatus = attribute.Key("http.response.status_code")
	AttrGroup  = attribute.Key("bookplatform.group")
)

// End ends the route span with its status (a 5xx marks it failed) and
// keeps or drops its trace (finish). It returns the X-Ray trace id
// ("1-5759e988-bd862e3fe1be46a994272793") of a trace it sent, and ""
// otherwise: the id of a trace X-Ray does not hold leads nowhere, and the
// access line pays for every byte.
func End(ctx context.Context, span trace.Span, route, group string, status int) string {
	span.SetAttributes(AttrRoute.String(route), AttrStatus.Int(status), AttrGroup.String(group))
	if status >= 500 {
		span.SetStatus(codes.Error, fmt.Sprintf("HTTP %d", status))
	}
	span.End()
	return finish(ctx, span, status >= 500)
}

// EndInvocation is End for an invocation that is not an HTTP request (a
// queue's batch, the table stream's, a scheduled job): failed (an error,
// or messages given back for another attempt) marks it failed and keeps
// its trace.
func EndInvocation(ctx context.Context, span trace.Span, failed bool) string {
	if failed {
		span.SetStatus(codes.Error, "failed")
	}
	span.End()
	return finish(ctx, span, failed)
}

// finish takes the spans of the ended root span's trace out of memory
// and, when the policy keeps the trace, sends them, waiting at most
// sendTimeout. A trace not sent is logged at WARN and fails nothing.
func finish(ctx context.Context, span trace.Span, failed bool) string {
	t := current
	root, ok := span.(sdktrace.ReadOnlySpan)
	if t == nil || !ok || root.Parent().IsValid() {
		return "" // tracing off, or not the root of its trace
	}
	id := root.SpanContext().TraceID()
	spans := t.pending.take(id)
	if !t.keep.keeps(failed, root.EndTime().Sub(root.StartTime())) {
		return ""
	}
	traceID := xrayTraceID(id)
	docs, skipped := documents(t.service, lambdaRequestID(ctx), root, spans)
	if skipped > 0 {
		t.logger.Warn("tracing: spans left out of a trace", "traceId", traceID, "spans", skipped)
	}
	// The send outlives a cancelled request (a client that hung up) but
	// never the invocation's deadline: past it Lambda would end the
	// invocation, turning a finished answer (or batch) into a timeout.
	wait := sendTimeout
	if dl, ok := ctx.Deadline(); ok {
		wait = min(wait, time.Until(dl)-sendMargin)
	}
	if wait < minSendWait {
		t.logger.Warn("tracing: trace not sent, too near the invocation's deadline", "traceId", traceID)
		return ""
	}
	sctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), wait)
	defer cancel()
	if err := t.send(sctx, docs); err != nil {
		t.logger.Warn("tracing: trace not sent", "traceId", traceID, "error", err.Error())
		return ""
	}
	return traceID
}

// policy decides at the end of a request whether its trace is kept.
type policy struct {
	rate float64
	slow time.Duration
	draw func() float64 // [0, 1)
}

// keeps keeps every failed or slow request, and a share rate of the rest.
func (p policy) keeps(failed bool, took time.Duration) bool {
	return failed || took >= p.slow || p.draw() < p.rate
}

// xrayTraceID writes an OpenTelemetry trace id the X-Ray way: version 1,
// the first 4 bytes (X-Ray's start time, xrayIDs), the other 12.
func xrayTraceID(id trace.TraceID) string {
	s := id.String()
	return "1-" + s[:8] + "-" + s[8:]
}

// Shutdown stops tracing: spans are no longer recorded nor sent.
func Shutdown(ctx context.Context) error {
	if current == nil {
		return nil
	}
	p := current.provider
	current = nil
	otel.SetTracerProvider(noop.NewTracerProvider())
	return p.Shutdown(ctx)
}
