// Package tracing follows a request through X-Ray: the Lambda service
// starts the trace (active tracing) and hands each invocation its trace
// header; the router opens a span for the route under it and every AWS
// SDK call (DynamoDB, S3, SQS, Secrets Manager) opens one under that
// (the SDK middleware of awssdk.go). Sampled spans are sent to the X-Ray
// daemon Lambda runs beside the function, as X-Ray subsegment documents
// over UDP (xray.go), so a trace shows API Gateway's request id, the
// function, the route and each call with its table, operation and
// outcome.
//
// Why not the X-Ray SDK for Go: its xray package links gRPC, fasthttp and
// the retired aws-sdk-go v1, which doubles every bootstrap (13 MB to 32 MB,
// past the 15 MB budget of local/bench) and adds about 6 ms to a cold
// start. OpenTelemetry's SDK adds under 1 MB; what it lacks without a
// collector layer is an exporter to the daemon, which is the small
// documented UDP protocol of xray.go. Why not OpenTelemetry's otelaws
// for the SDK calls: its attribute builders import the SQS and SNS
// clients, so every function linked and initialized both; awssdk.go sets
// the same span names and attributes for the service's calls, and a
// function links only the clients its group uses.
//
// Outside Lambda (the local server, tests) nothing is set up: the global
// tracer provider stays OpenTelemetry's no-op one and the SDK clients are
// not instrumented, so tracing costs nothing there.
package tracing

import (
	"context"
	"encoding/hex"
	"fmt"
	"os"
	"strings"

	"github.com/aws/aws-sdk-go-v2/aws"
	"go.opentelemetry.io/otel"
	"go.opentelemetry.io/otel/attribute"
	"go.opentelemetry.io/otel/codes"
	sdktrace "go.opentelemetry.io/otel/sdk/trace"
	"go.opentelemetry.io/otel/trace"
	"go.opentelemetry.io/otel/trace/noop"
)

// Environment the Lambda runtime sets: the daemon's address when the
// function traces, and the function's name.
const (
	EnvDaemonAddress = "AWS_XRAY_DAEMON_ADDRESS"
	envFunctionName  = "AWS_LAMBDA_FUNCTION_NAME"
)

// lambdaTraceKey is the context key under which aws-lambda-go puts the
// invocation's X-Amzn-Trace-Id header (lambda/invoke_loop.go); the X-Ray
// SDK reads it the same way.
const lambdaTraceKey = "x-amzn-trace-id"

// instrumentationName names the router's spans.
const instrumentationName = "github.com/bookplatform/backend/shared/httpapi"

var provider *sdktrace.TracerProvider

// Setup turns tracing on when the process runs in Lambda with an X-Ray
// daemon to send to (AWS_XRAY_DAEMON_ADDRESS): spans are recorded only
// when the invocation's trace is sampled, and each one is sent as it
// ends. It reports whether tracing is on. Call it once, before Instrument.
func Setup(getenv func(string) string) (bool, error) {
	addr := getenv(EnvDaemonAddress)
	if addr == "" || getenv(envFunctionName) == "" {
		return false, nil
	}
	exp, err := newExporter(addr)
	if err != nil {
		return false, fmt.Errorf("tracing: %w", err)
	}
	provider = sdktrace.NewTracerProvider(
		sdktrace.WithSampler(sdktrace.ParentBased(sdktrace.NeverSample())),
		sdktrace.WithSpanProcessor(sdktrace.NewSimpleSpanProcessor(exp)),
	)
	otel.SetTracerProvider(provider)
	return true, nil
}

// SetupFromEnv is Setup from the process environment.
func SetupFromEnv() (bool, error) { return Setup(os.Getenv) }

// Instrument makes every call of the clients built from cfg a span, when
// Setup turned tracing on.
func Instrument(cfg *aws.Config) {
	if provider == nil {
		return
	}
	cfg.APIOptions = append(cfg.APIOptions, sdkMiddleware(provider.Tracer(sdkInstrumentationName)))
}

// FromLambda returns ctx with the invocation's trace (the header the
// Lambda runtime gave it) as the remote parent of the spans started
// under it. A context without one is returned as it is.
func FromLambda(ctx context.Context) context.Context {
	sc, ok := parseHeader(lambdaHeader(ctx))
	if !ok {
		return ctx
	}
	return trace.ContextWithRemoteSpanContext(ctx, sc)
}

// Start starts the span of a route (name: "GET /v1/users/{userId}").
// Without Setup, or in an unsampled trace, it records nothing.
func Start(ctx context.Context, name string) (context.Context, trace.Span) {
	return otel.Tracer(instrumentationName).Start(ctx, name, trace.WithSpanKind(trace.SpanKindServer))
}

// Attributes of the route span, read back by the exporter as X-Ray
// annotations (searchable) and the subsegment's HTTP status.
const (
	AttrRoute  = attribute.Key("http.route")
	AttrStatus = attribute.Key("http.response.status_code")
	AttrGroup  = attribute.Key("bookplatform.group")
)

// End ends the route span with its status: a 5xx marks it failed.
func End(span trace.Span, route, group string, status int) {
	span.SetAttributes(AttrRoute.String(route), AttrStatus.Int(status), AttrGroup.String(group))
	if status >= 500 {
		span.SetStatus(codes.Error, fmt.Sprintf("HTTP %d", status))
	}
	span.End()
}

// TraceID is the X-Ray trace id ("1-5759e988-bd862e3fe1be46a994272793")
// of the trace ctx is in: its span's, else the Lambda header's. Empty
// outside a trace.
func TraceID(ctx context.Context) string {
	if sc := trace.SpanContextFromContext(ctx); sc.HasTraceID() {
		return xrayTraceID(sc.TraceID())
	}
	if sc, ok := parseHeader(lambdaHeader(ctx)); ok {
		return xrayTraceID(sc.TraceID())
	}
	return ""
}

// SampledTraceID is TraceID when the trace is sampled, that is when X-Ray
// records it, and "" otherwise: the id of an unsampled trace (Lambda's
// 95%) leads to nothing, and the access line pays for every byte.
func SampledTraceID(ctx context.Context) string {
	if sc := trace.SpanContextFromContext(ctx); sc.HasTraceID() {
		if sc.IsSampled() {
			return xrayTraceID(sc.TraceID())
		}
		return ""
	}
	if sc, ok := parseHeader(lambdaHeader(ctx)); ok && sc.IsSampled() {
		return xrayTraceID(sc.TraceID())
	}
	return ""
}

// lambdaHeader is the invocation's trace header, under aws-lambda-go's
// plain-string context key.
func lambdaHeader(ctx context.Context) string {
	h, _ := ctx.Value(lambdaTraceKey).(string)
	return h
}

// parseHeader reads an X-Amzn-Trace-Id header
// ("Root=1-5759e988-bd862e3fe1be46a994272793;Parent=53995c3f42cd8ad8;Sampled=1")
// into the span context of its parent.
func parseHeader(h string) (trace.SpanContext, bool) {
	var cfg trace.SpanContextConfig
	var root, parent bool
	for _, part := range strings.Split(h, ";") {
		k, v, _ := strings.Cut(strings.TrimSpace(part), "=")
		switch k {
		case "Root":
			p := strings.Split(v, "-")
			if len(p) != 3 || p[0] != "1" || len(p[1]) != 8 || len(p[2]) != 24 {
				return trace.SpanContext{}, false
			}
			b, err := hex.DecodeString(p[1] + p[2])
			if err != nil {
				return trace.SpanContext{}, false
			}
			copy(cfg.TraceID[:], b)
			root = true
		case "Parent":
			b, err := hex.DecodeString(v)
			if err != nil || len(b) != 8 {
				return trace.SpanContext{}, false
			}
			copy(cfg.SpanID[:], b)
			parent = true
		case "Sampled":
			if v == "1" {
				cfg.TraceFlags = trace.FlagsSampled
			}
		}
	}
	if !root || !parent {
		return trace.SpanContext{}, false
	}
	cfg.Remote = true
	sc := trace.NewSpanContext(cfg)
	return sc, sc.IsValid()
}

// xrayTraceID writes an OpenTelemetry trace id the X-Ray way: version 1,
// the first 4 bytes (X-Ray's start time), the other 12.
func xrayTraceID(id trace.TraceID) string {
	s := id.String()
	return "1-" + s[:8] + "-" + s[8:]
}

// Shutdown stops tracing: spans are no longer recorded nor sent.
func Shutdown(ctx context.Context) error {
	if provider == nil {
		return nil
	}
	p := provider
	provider = nil
	otel.SetTracerProvider(noop.NewTracerProvider())
	return p.Shutdown(ctx)
}
