// Package worker runs the service's queue consumers: one Handler per
// worker group, served the same way by an SQS-triggered Lambda (Lambda)
// and by the local run's poller (shared/worker/sqspoll). Each message is
// processed at most once to completion, however often SQS delivers it: an
// idempotency record per message (shared/idempotency) makes a redelivered
// message that was already handled a no-op. A message whose handler fails is
// reported as a batch item failure, so only it is retried; after
// queues.MaxReceiveCount failures SQS moves it to the dead-letter queue.
package worker

import "context"

// Message is one queue message as a handler sees it.
type Message struct {
	// ID is SQS's message id; Key is what makes the message's work
	// unique for the idempotency record: the sender's key attribute
	// (queues.KeyAttribute) when it set one (an upload id, an event id),
	// else ID.
	ID, Key string
	Body    []byte
	// ReceiveCount is how many times SQS has delivered the message,
	// this delivery included (the local stand-in counts it too:
	// local/sqslocal).
	ReceiveCount int
	// Attributes are the message's string (and number) attributes.
	Attributes map[string]string
}

// Handler processes one message. A nil error deletes it from the queue;
// an error leaves it for redelivery (and, after queues.MaxReceiveCount,
// the dead-letter queue).
type Handler func(ctx context.Context, m Message) error
