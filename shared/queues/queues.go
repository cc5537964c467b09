// Package queues names the service's work queues, once: the CDK stack
// creates each with its dead-letter queue from this list, the local run
// creates the same on its SQS stand-in, and a group declares the queues it
// sends to or consumes by these names (shared/api). Sending is
// shared/queues/sqsqueue's, consuming shared/worker's: apart, so that a
// function links the SQS client only when its group sends (only Lambda
// calls SQS for a consumer).
package queues

import (
	"strings"
	"time"
)

// Name is a queue's name, in AWS and on the local stack.
type Name string

// The work queues.
const (
	CSVImport Name = "csv-import" // inventory bulk imports, one message per uploaded file
	POSSync   Name = "pos-sync"   // synchronisation with the external point-of-sale system
	Webhooks  Name = "webhooks"   // webhook deliveries, one message per event and endpoint
)

// All lists every queue.
var All = []Name{CSVImport, POSSync, Webhooks}

// Every queue's settings: a message that fails MaxReceiveCount times goes
// to the queue's dead-letter queue instead of being retried forever;
// VisibilityTimeout is how long a received message stays hidden (at least
// the consuming function's timeout, as AWS requires); dead letters are
// kept for DLQRetention.
const (
	MaxReceiveCount   = 5
	VisibilityTimeout = 60 * time.Second
	DLQRetention      = 14 * 24 * time.Hour
)

// KeyAttribute is the message attribute that carries a message's key:
// what makes its work unique across resends (an upload id, an event id).
// The consumer keeps one idempotency record per key (shared/worker).
const KeyAttribute = "key"

// DLQ is the name of n's dead-letter queue.
func (n Name) DLQ() Name { return n + "-dlq" }

// URLEnv is the environment variable that gives a function the URL of
// queue n (QUEUE_URL_CSV_IMPORT for csv-import); the CDK stack sets it on
// the functions that send to n, the local run on its own process. Each is
// also named in shared/config, with the service's other variables.
func (n Name) URLEnv() string {
	return "QUEUE_URL_" + strings.ToUpper(strings.ReplaceAll(string(n), "-", "_"))
}
