package worker

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"runtime/debug"
	"strconv"
	"time"

	"github.com/aws/aws-lambda-go/events"
	"github.com/bookplatform/backend/shared/idempotency"
	"github.com/bookplatform/backend/shared/ids"
	"github.com/bookplatform/backend/shared/queues"
)

// BatchHandler is the Lambda handler of an SQS event source with partial
// batch responses (ReportBatchItemFailures): the messages it lists in
// BatchItemFailures are retried, the others deleted.
type BatchHandler func(ctx context.Context, ev events.SQSEvent) (events.SQSEventResponse, error)

// Settings of the idempotency record of each message.
const (
	// lockFor is how long an attempt holds its message's record: the
	// queue's visibility timeout, which outlasts the function (its
	// timeout is below it) and is when SQS would deliver the message
	// again anyway. An attempt that died holding it is taken over then.
	lockFor = queues.VisibilityTimeout
	// keepFor is how long a done record is kept: SQS keeps no message
	// longer than 14 days, so no duplicate can arrive later.
	keepFor = 14 * 24 * time.Hour
)

// ErrInProgress is a message whose record another live attempt holds (a
// duplicate delivery running concurrently): it is reported as failed, to
// be delivered again once that attempt is done.
var ErrInProgress = errors.New("another attempt is processing this message")

// ErrPanic is a handler that panicked; the error carries the panic value
// and the stack.
var ErrPanic = errors.New("handler panicked")

// Lambda returns the Lambda handler of a worker group consuming queue:
// each record of the batch becomes a Message and runs h, in order, under
// an idempotency record keyed "worker:<queue>:<Message.Key>" in store:
//
//   - a record that is done means the message's work was done by an
//     earlier delivery: the message succeeds without running h;
//   - a record another live attempt holds fails the message
//     (ErrInProgress), to be retried;
//   - otherwise h runs: on success the record is completed, on an error
//     or a panic it is released, so the redelivery runs h again, and the
//     message is reported in BatchItemFailures.
//
// One message never fails the batch: the returned error is always nil.
// now may be nil for the wall clock, logger nil for slog.Default(); each
// failed message is logged with its id, key and receive count.
func Lambda(h Handler, store idempotency.Store, queue queues.Name, now func() time.Time, logger *slog.Logger) BatchHandler {
	if now == nil {
		now = time.Now
	}
	if logger == nil {
		logger = slog.Default()
	}
	c := &consumer{handle: h, store: store, queue: queue, now: now, logger: logger}
	return func(ctx context.Context, ev events.SQSEvent) (events.SQSEventResponse, error) {
		var resp events.SQSEventResponse
		for _, r := range ev.Records {
			m := messageOf(r)
			if err := c.process(ctx, m); err != nil {
				c.logger.Warn("worker: message failed", "queue", string(queue), "messageId", m.ID, "key", m.Key,
					"receiveCount", m.ReceiveCount, "error", err.Error())
				resp.BatchItemFailures = append(resp.BatchItemFailures, events.SQSBatchItemFailure{ItemIdentifier: r.MessageId})
			}
		}
		return resp, nil
	}
}

// consumer is one worker group's message processing.
type consumer struct {
	handle Handler
	store  idempotency.Store
	queue  queues.Name
	now    func() time.Time
	logger *slog.Logger
}

// process runs one message under its idempotency record. A nil error
// means the message may be deleted.
func (c *consumer) process(ctx context.Context, m Message) error {
	key := "worker:" + string(c.queue) + ":" + m.Key
	// The fingerprint names the message that took the key, for whoever
	// reads the record; a worker's key alone decides what is a duplicate.
	rec := idempotency.Record{Fingerprint: m.ID, Owner: ids.New()}
	t := c.now()
	rec.LockedUntil = t.Add(lockFor)
	held, err := c.store.Begin(ctx, key, rec, t, t.Add(keepFor))
	switch {
	case err != nil:
		return fmt.Errorf("take idempotency record: %w", err)
	case held != nil && held.Done:
		c.logger.Debug("worker: duplicate delivery skipped", "queue", string(c.queue), "messageId", m.ID, "key", m.Key)
		return nil
	case held != nil:
		return ErrInProgress
	}

	herr := run(ctx, c.handle, m)
	// The record must follow the outcome even if the invocation is being
	// cancelled: a stale lock would fail the redelivery too.
	ctx = context.WithoutCancel(ctx)
	if herr != nil {
		if err := c.store.Release(ctx, key, rec.Owner); err != nil {
			// The redelivery meets the lock until it expires, then runs.
			c.logger.Warn("worker: releasing the idempotency record failed", "queue", string(c.queue), "key", m.Key, "error", err.Error())
		}
		return herr
	}
	rec.Done = true
	if err := c.store.Complete(ctx, key, rec, c.now().Add(keepFor)); err != nil {
		// The work is done: delete the message. Only a duplicate delivery
		// after the lock expires would run it again.
		c.logger.Warn("worker: completing the idempotency record failed", "queue", string(c.queue), "key", m.Key, "error", err.Error())
	}
	return nil
}

// run calls h and turns a panic into an error: one bad message must not
// crash the invocation and fail the whole batch with it.
func run(ctx context.Context, h Handler, m Message) (err error) {
	defer func() {
		if r := recover(); r != nil {
			err = fmt.Errorf("%w: %v\n%s", ErrPanic, r, debug.Stack())
		}
	}()
	return h(ctx, m)
}

// messageOf converts an SQS record: the key attribute (else the message
// id) is the key, string and number attributes are kept.
func messageOf(r events.SQSMessage) Message {
	m := Message{ID: r.MessageId, Key: r.MessageId, Body: []byte(r.Body), Attributes: map[string]string{}}
	for name, a := range r.MessageAttributes {
		if a.StringValue != nil {
			m.Attributes[name] = *a.StringValue
		}
	}
	if k := m.Attributes[queues.KeyAttribute]; k != "" {
		m.Key = k
	}
	m.ReceiveCount, _ = strconv.Atoi(r.Attributes[receiveCountAttribute])
	return m
}

// receiveCountAttribute is the system attribute counting deliveries.
const receiveCountAttribute = "ApproximateReceiveCount"
