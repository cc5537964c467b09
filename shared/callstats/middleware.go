package callstats

import (
	"context"
	"time"

	"github.com/aws/smithy-go/middleware"
	"github.com/bookplatform/backend/shared/effects"
)

// Actions names the IAM actions one call of a service needs, from its
// operation and its input (the SDK's *<Operation>Input): the rule is the
// service's adapter's (shared/dynamo, shared/s3media), which knows how
// AWS authorizes that service's calls. A nil Actions is the rule of most
// services: the action of the operation's own name.
type Actions func(operation string, input any) []string

type capacityKey struct{}

// SetCapacity notes in a call's metadata the capacity the service
// reported it consumed, for Middleware to record with the call: a
// service's adapter sets it from a middleware of its own that runs
// inside Middleware (registered after it), which knows where that
// service reports it (shared/dynamo).
func SetCapacity(md *middleware.Metadata, c Capacity) { md.Set(capacityKey{}, c) }

// Middleware is AWS SDK middleware for every client of the service: it
// refuses every operation with a side effect in a context that may have
// none (shared/effects: a GET handler before admission), and records each
// call (operation, start, end, whether it failed, whether every attempt
// the SDK made was refused, the IAM actions it needed by the rule
// actions, the capacity it consumed when its adapter noted it with
// SetCapacity) in the context's recorder. Register it in a client's
// APIOptions.
func Middleware(service string, actions Actions) func(*middleware.Stack) error {
	if actions == nil {
		actions = func(op string, _ any) []string { return []string{service + ":" + op} }
	}
	return func(stack *middleware.Stack) error {
		return stack.Initialize.Add(middleware.InitializeMiddlewareFunc("CallStats",
			func(ctx context.Context, in middleware.InitializeInput, next middleware.InitializeHandler) (middleware.InitializeOutput, middleware.Metadata, error) {
				op := middleware.GetOperationName(ctx)
				if !effects.IsRead(op) {
					if err := effects.Check(ctx, service+":"+op); err != nil {
						return middleware.InitializeOutput{}, middleware.Metadata{}, err
					}
				}
				rec := From(ctx)
				if rec == nil {
					return next.HandleInitialize(ctx, in)
				}
				start := time.Now()
				out, md, err := next.HandleInitialize(ctx, in)
				capacity, _ := md.Get(capacityKey{}).(Capacity)
				rec.Record(Call{Service: service, Operation: op, Start: start, End: time.Now(), Failed: err != nil,
					Refused: err != nil && refusedCall(md, err), Actions: actions(op, in.Parameters), Capacity: capacity})
				return out, md, err
			}), middleware.After)
	}
}
