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
	c := &consumer{handle: h, queue: queue, logger: logger,
		once: Once{Store: store, Lock: lockFor, Keep: keepFor, Now: now, Logger: logger.With("worker", string(queue))}}
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
	once   Once
	queue  queues.Name
	logger *slog.Logger
}

// process runs one message under its idempotency record. A nil error
// means the message may be deleted.
func (c *consumer) process(ctx context.Context, m Message) error {
	return c.once.Do(ctx, "worker:"+string(c.queue)+":"+m.Key, m.ID, func(ctx context.Context) error {
		return run(ctx, c.handle, m)
	})
}

// Once runs a piece of work at most once to completion per key, however
// often it is delivered, under an idempotency record in Store: the queue
// workers' messages here, the relay's events per consumer
// (shared/relay). Lock is how long an attempt holds the key (at least
// the invocation's timeout: an attempt that died holding it is taken
// over after it); Keep how long a done record is kept (at least as long
// as a duplicate can still arrive). Now may be nil for the wall clock,
// Logger nil for slog.Default().
type Once struct {
	Store      idempotency.Store
	Lock, Keep time.Duration
	Now        func() time.Time
	Logger     *slog.Logger
}

// Do runs work under key's record; by names the delivery (a message id,
// an event id) for whoever reads the record:
//
//   - a record that is done means an earlier delivery did the work: Do
//     returns nil without running it;
//   - a record another live attempt holds is ErrInProgress;
//   - otherwise work runs: on success the record is completed, on an
//     error it is released, so the next delivery runs work again, and
//     the error is returned.
func (o Once) Do(ctx context.Context, key, by string, work func(ctx context.Context) error) error {
	now, logger := o.Now, o.Logger
	if now == nil {
		now = time.Now
	}
	if logger == nil {
		logger = slog.Default()
	}
	// The fingerprint names the delivery that took the key, for whoever
	// reads the record; the key alone decides what is a duplicate.
	rec := idempotency.Record{Fingerprint: by, Owner: ids.New()}
	t := now()
	rec.LockedUntil = t.Add(o.Lock)
	held, err := o.Store.Begin(ctx, key, rec, t, t.Add(o.Keep))
	switch {
	case err != nil:
		return fmt.Errorf("take idempotency record: %w", err)
	case held != nil && held.Done:
		logger.Debug("duplicate delivery skipped", "key", key, "by", by)
		return nil
	case held != nil:
		return ErrInProgress
	}

	werr := work(ctx)
	// The record must follow the outcome even if the invocation is being
	// cancelled: a stale lock would fail the redelivery too.
	ctx = context.WithoutCancel(ctx)
	if werr != nil {
		if err := o.Store.Release(ctx, key, rec.Owner); err != nil {
			// The redelivery meets the lock until it expires, then runs.
			logger.Warn("releasing the idempotency record failed", "key", key, "error", err.Error())
		}
		return werr
	}
	rec.Done = true
	if err := o.Store.Complete(ctx, key, rec, now().Add(o.Keep)); err != nil {
		// The work is done. Only a duplicate delivery after the lock
		// expires would run it again.
		logger.Warn("completing the idempotency record failed", "key", key, "error", err.Error())
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
