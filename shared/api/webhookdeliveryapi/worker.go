// Package webhookdeliveryapi is the webhook delivery worker group: no
// routes, the consumer of queues.Webhooks. Each message is one attempt
// of one delivery (shared/webhooks, Deliverer): signed, sent through the
// SSRF-safe client, recorded, retried with backoff and jitter, and after
// the last retry failed, copied to the queue's dead-letter queue. The
// deliveries and their first attempts come from the relay's webhooks
// consumer (shared/webhooks/webhooksrelay).
package webhookdeliveryapi

import (
	"context"
	"log/slog"

	"github.com/bookplatform/backend/shared/api"
	"github.com/bookplatform/backend/shared/dynamo"
	"github.com/bookplatform/backend/shared/queues"
	"github.com/bookplatform/backend/shared/webhooks"
	"github.com/bookplatform/backend/shared/webhooks/webhooksrelay"
	"github.com/bookplatform/backend/shared/worker"
)

// Sends are the queues the worker sends to: the next attempt's message
// (and a not-yet-due one's hop) to the webhooks queue, a delivery that
// failed for good to its dead-letter queue.
var Sends = []queues.Name{queues.Webhooks, queues.Webhooks.DLQ()}

// Group is the delivery worker. Its calls: GetItem of the delivery and
// of its endpoint; PutItem of the delivery after its attempt
// (conditional on its version), in a TransactWriteItems with the
// UpdateItem of the endpoint when its run of failures changes; SendMessage
// of the next attempt or of the dead letter.
func Group(d api.Deps) api.Group {
	dl := &webhooks.Deliverer{Store: dynamo.NewWebhooks(d.Table), Now: d.Now, Logger: logger(d)}
	if d.Env != nil {
		dl.Settings = webhooks.SettingsFrom(d.Env)
		dl.Poster = webhooks.NewClient(dl.Settings)
		dl.Queue = webhooksrelay.Sender(d, Sends...)
	}
	return api.Group{
		Name:  "webhookdelivery",
		Table: []string{"dynamodb:GetItem", "dynamodb:PutItem", "dynamodb:UpdateItem"},
		Sends: Sends,
		// One message per invocation: an attempt may wait on its
		// receiver for up to WEBHOOK_TIMEOUT, within the function's own
		// timeout (the Deliverer keeps time to record it).
		Worker: &api.Worker{Queue: queues.Webhooks, BatchSize: 1, Handle: func(ctx context.Context, m worker.Message) error {
			return dl.Handle(ctx, m.Body)
		}},
	}
}

func logger(d api.Deps) *slog.Logger {
	if d.Logger == nil {
		return slog.Default()
	}
	return d.Logger
}
