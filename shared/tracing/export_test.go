package tracing

// SDKMiddleware is the SDK middleware Instrument adds, for the tests of
// package tracing_test to run over a tracer of their own.
var SDKMiddleware = sdkMiddleware

// HeldTraces counts the traces whose spans wait in memory.
func HeldTraces() int {
	if current == nil {
		return 0
	}
	return current.pending.heldTraces()
}
