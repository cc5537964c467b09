// Package effects guards side effects by construction. The router marks
// the context of a request that may have none (a GET handler runs beside
// the caller read and the rate-limit decision, before the request is
// admitted); every adapter that can change something outside the process
// checks the mark and refuses: the AWS SDK middleware (every DynamoDB,
// S3 and SQS write), and the outbound HTTP transport (payments, the
// external POS, webhooks, anything else). A GET handler that tries a
// side effect fails loudly in its first test instead of changing data
// for a request that may be answered 401 or 429.
//
// Domain packages never import this package: the guard lives in the
// adapters, so a service cannot forget it.
package effects

import (
	"context"
	"errors"
	"fmt"
	"strings"
)

// ErrReadOnly is a side effect attempted in a read-only context: a bug in
// the handler (or a GET route that should start after admission).
var ErrReadOnly = errors.New("side effect refused: the request is not admitted to change anything")

type ctxKey struct{}

// ReadOnly returns a context in which side effects are refused.
func ReadOnly(ctx context.Context) context.Context { return context.WithValue(ctx, ctxKey{}, true) }

// IsReadOnly reports whether ctx refuses side effects.
func IsReadOnly(ctx context.Context) bool {
	ro, _ := ctx.Value(ctxKey{}).(bool)
	return ro
}

// Check returns ErrReadOnly, naming what was attempted, when ctx refuses
// side effects.
func Check(ctx context.Context, what string) error {
	if IsReadOnly(ctx) {
		return fmt.Errorf("%s: %w", what, ErrReadOnly)
	}
	return nil
}

// readPrefixes name the AWS operations without side effects. Anything else
// (Put, Update, Delete, TransactWrite, BatchWrite, Send, Copy, Create, an
// operation added later) counts as a side effect.
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
