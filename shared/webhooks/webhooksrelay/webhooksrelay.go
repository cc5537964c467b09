// Package webhooksrelay builds the outbox relay's webhooks consumer
// (shared/webhooks, FanOut) over its storage and the webhooks queue. It
// is apart from shared/webhooks, which imports no AWS package, and from
// the delivery worker's group, which only its own function links
// (shared/relay/registry registers it).
package webhooksrelay

import (
	"context"
	"time"

	"github.com/bookplatform/backend/shared/api"
	"github.com/bookplatform/backend/shared/dynamo"
	"github.com/bookplatform/backend/shared/queues"
	"github.com/bookplatform/backend/shared/queues/sqsqueue"
	"github.com/bookplatform/backend/shared/webhooks"
)

// Table are the fan-out's table actions: the Query of a store's
// endpoints, the conditional PutItem of each delivery, and the GetItem
// of one that exists already.
var Table = []string{"dynamodb:GetItem", "dynamodb:PutItem", "dynamodb:Query"}

// FanOut is the relay's webhooks consumer, sending to queues.Webhooks.
func FanOut(d api.Deps) *webhooks.FanOut {
	f := &webhooks.FanOut{Store: dynamo.NewWebhooks(d.Table), Now: d.Now, Logger: d.Logger}
	if d.Env != nil {
		webhooks.SettingsFrom(d.Env) // checked at start, as the worker's
		f.Queue = Sender(d, queues.Webhooks)
	}
	return f
}

// Sender is an SQS sender to names for the webhooks' code, their URLs
// read now: a missing one is reported at start (d.Env), and each send
// then fails naming it.
func Sender(d api.Deps, names ...queues.Name) webhooks.Queue {
	s, err := sqsqueue.NewSender(sqsqueue.NewClient(d.AWS), d.Env.String, names...)
	if err != nil {
		d.Env.Fail(err)
		return noQueue{err}
	}
	return s
}

// noQueue fails every send with why the sender could not be built.
type noQueue struct{ err error }

func (q noQueue) Send(context.Context, queues.Name, []byte, string) error { return q.err }
func (q noQueue) SendDelayed(context.Context, queues.Name, []byte, string, time.Duration) error {
	return q.err
}
