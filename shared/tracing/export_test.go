package tracing

// SDKMiddleware is the SDK middleware Instrument adds, for the tests of
// package tracing_test to run over a tracer of their own.
var SDKMiddleware = sdkMiddleware
