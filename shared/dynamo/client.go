package dynamo

import (
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/aws/retry"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/bookplatform/backend/shared/callstats"
	"github.com/guregu/dynamo/v2"
)

// NewClient builds the DynamoDB client. The endpoint comes from the SDK's
// standard AWS_ENDPOINT_URL_DYNAMODB, so one binary runs against DynamoDB
// Local or AWS. Every call goes through callstats.Middleware: writes wait for
// admission, and each call is recorded for logs and benchmarks.
func NewClient(cfg aws.Config) *dynamodb.Client {
	return dynamodb.NewFromConfig(cfg, func(o *dynamodb.Options) {
		// DynamoDB Local sends no CRC32 on error responses.
		o.DisableValidateResponseChecksum = true
		// Retry transactions cancelled only by a conflicting transaction
		// (concurrent sign-ups, likes); condition failures are not retried.
		// Every like of a popular line, and every line of a popular book,
		// updates one shared item: allow more than the default 3 attempts
		// before a conflict becomes a 500.
		o.Retryer = retry.NewStandard(dynamo.RetryTxConflicts, func(so *retry.StandardOptions) { so.MaxAttempts = 8 })
		o.APIOptions = append(o.APIOptions, callstats.Middleware("dynamodb"))
	})
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
