package dynamo

import (
	"context"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/aws/retry"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/smithy-go/middleware"
	"github.com/bookplatform/backend/shared/callstats"
	"github.com/guregu/dynamo/v2"
)

// NewClient builds the DynamoDB client. The endpoint comes from the SDK's
// standard AWS_ENDPOINT_URL_DYNAMODB, so one binary runs against DynamoDB
// Local or AWS. Every call is recorded in the request's callstats.
func NewClient(cfg aws.Config) *dynamodb.Client {
	return dynamodb.NewFromConfig(cfg, func(o *dynamodb.Options) {
		// DynamoDB Local sends no CRC32 on error responses.
		o.DisableValidateResponseChecksum = true
		// Retry transactions cancelled only by a conflicting transaction
		// (concurrent sign-ups, likes); condition failures are not retried.
		o.Retryer = retry.NewStandard(dynamo.RetryTxConflicts)
		o.APIOptions = append(o.APIOptions, RecordCalls("dynamodb"))
	})
}

// RecordCalls is SDK middleware that records each call (operation, start,
// end) in the context's callstats recorder.
func RecordCalls(service string) func(*middleware.Stack) error {
	return func(stack *middleware.Stack) error {
		return stack.Initialize.Add(middleware.InitializeMiddlewareFunc("RecordCalls",
			func(ctx context.Context, in middleware.InitializeInput, next middleware.InitializeHandler) (middleware.InitializeOutput, middleware.Metadata, error) {
				rec := callstats.From(ctx)
				if rec == nil {
					return next.HandleInitialize(ctx, in)
				}
				start := time.Now()
				out, md, err := next.HandleInitialize(ctx, in)
				rec.Record(callstats.Call{Service: service, Operation: middleware.GetOperationName(ctx), Start: start, End: time.Now()})
				return out, md, err
			}), middleware.After)
	}
}

// Store is the storage adapter over the one table.
type Store struct {
	db    *dynamo.DB
	table dynamo.Table
	name  string
	now   func() time.Time
}

// NewStore returns a store over the named table.
func NewStore(client *dynamodb.Client, tableName string, now func() time.Time) *Store {
	if now == nil {
		now = time.Now
	}
	db := dynamo.NewFromIface(client)
	return &Store{db: db, table: db.Table(tableName), name: tableName, now: now}
}
