package callstats

import (
	"context"
	"time"

	"github.com/aws/smithy-go/middleware"
	"github.com/bookplatform/backend/shared/admission"
)

// Middleware is AWS SDK middleware for every client of the service: it
// makes write operations wait for the request's admission decision
// (shared/admission) and records each call (operation, start, end) in the
// context's recorder. Register it in a client's APIOptions.
func Middleware(service string) func(*middleware.Stack) error {
	return func(stack *middleware.Stack) error {
		return stack.Initialize.Add(middleware.InitializeMiddlewareFunc("CallStats",
			func(ctx context.Context, in middleware.InitializeInput, next middleware.InitializeHandler) (middleware.InitializeOutput, middleware.Metadata, error) {
				op := middleware.GetOperationName(ctx)
				if !admission.IsRead(op) {
					if err := admission.Wait(ctx); err != nil {
						return middleware.InitializeOutput{}, middleware.Metadata{}, err
					}
				}
				rec := From(ctx)
				if rec == nil {
					return next.HandleInitialize(ctx, in)
				}
				start := time.Now()
				out, md, err := next.HandleInitialize(ctx, in)
				rec.Record(Call{Service: service, Operation: op, Start: start, End: time.Now()})
				return out, md, err
			}), middleware.After)
	}
}
