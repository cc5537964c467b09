// Package admission lets a request's backend reads start before the
// request is admitted (rate limits decided) while its writes wait for the
// decision. The router opens the gate once the counters are in; the SDK
// middleware in shared/callstats makes every write operation wait on it.
// A refused request therefore never changes anything, and an admitted read
// does not pay the counter's round trip on top of its own.
package admission

import (
	"context"
	"strings"
)

// Gate is one request's admission decision, decided once.
type Gate struct {
	done chan struct{}
	err  error
}

// NewGate returns a closed (undecided) gate.
func NewGate() *Gate { return &Gate{done: make(chan struct{})} }

// Open records the decision: nil admits, an error refuses. Call once.
func (g *Gate) Open(err error) {
	g.err = err
	close(g.done)
}

// Wait blocks until the decision is made (or ctx ends) and returns it.
func (g *Gate) Wait(ctx context.Context) error {
	select {
	case <-g.done:
		return g.err
	case <-ctx.Done():
		return ctx.Err()
	}
}

type ctxKey struct{}

// With returns a context carrying the gate.
func With(ctx context.Context, g *Gate) context.Context { return context.WithValue(ctx, ctxKey{}, g) }

// Wait waits on the context's gate, if any.
func Wait(ctx context.Context) error {
	if g, ok := ctx.Value(ctxKey{}).(*Gate); ok {
		return g.Wait(ctx)
	}
	return nil
}

// readPrefixes name the AWS operations without side effects. Anything else
// (Put, Update, Delete, TransactWrite, BatchWrite, Send, Copy, Create, an
// operation added later) counts as a write and waits.
var readPrefixes = []string{"Get", "Query", "Scan", "BatchGet", "TransactGet", "Describe", "List", "Head"}

// IsRead reports whether an AWS operation name is side-effect free.
func IsRead(operation string) bool {
	for _, p := range readPrefixes {
		if strings.HasPrefix(operation, p) {
			return true
		}
	}
	return false
}
