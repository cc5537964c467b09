package callstats

import (
	"context"
	"time"

	"github.com/aws/smithy-go/middleware"
	"github.com/bookplatform/backend/shared/effects"
)

// Middleware is AWS SDK middleware for every client of the service: it
// refuses every operation with a side effect in a context that may have
// none (shared/effects: a GET handler before admission), and records each
// call (operation, start, end, whether it failed, whether every attempt
// the SDK made was refused) in the context's recorder. Register it in a
// client's APIOptions.
func Middleware(service string) func(*middleware.Stack) error {
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
				rec.Record(Call{Service: service, Operation: op, Start: start, End: time.Now(), Failed: err != nil, Refused: err != nil && refusedCall(md, err)})
				return out, md, err
			}), middleware.After)
	}
}
