// Package relay hands the events of the outbox to their consumers. The
// table's stream carries every outbox item's INSERT (shared/dynamo,
// outbox.go); one handler (Relay.Handle) takes those stream records, in
// AWS as the relay Lambda's DynamoDB stream event source (filtered to
// outbox INSERTs, partial batch responses), on the local run and in the
// tests as what local/streampoll feeds it from DynamoDB Local's stream.
//
// Delivery is at least once, applied once: each consumer gets each event
// under an idempotency record keyed by the consumer and the event id
// (worker.Once, the queue workers' mechanism), so a record the stream
// delivers again, or an event redelivered after another consumer failed,
// reaches a consumer that has had it no second time. When every consumer
// has had the event, the outbox item is marked delivered and given its
// TTL; that MODIFY is not an INSERT, so it is not relayed. A record one
// of whose consumers fails is reported in the batch's failures, alone:
// the other records of the batch are delivered.
package relay

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"runtime/debug"
	"time"

	awsevents "github.com/aws/aws-lambda-go/events"
	"github.com/bookplatform/backend/shared/dynamo"
	"github.com/bookplatform/backend/shared/events"
	"github.com/bookplatform/backend/shared/idempotency"
	"github.com/bookplatform/backend/shared/worker"
)

// Consumer is one receiver of every event (webhook deliveries,
// notifications). Consume may be called again for an event it has had
// only if it failed, or its dedupe record could not be completed;
// consumers that must never act twice deduplicate by Event.ID too.
type Consumer interface {
	// Name identifies the consumer in its dedupe records: stable across
	// deployments, unique among consumers.
	Name() string
	// Consume takes one event. An error makes the relay retry the event
	// (for this consumer only).
	Consume(ctx context.Context, ev events.Event) error
}

// Selective is a Consumer that takes some types of event only (the
// search feed: book.changed). The relay hands it no other and keeps no
// dedupe record of them for it: the record's two writes would be spent
// on every event of every other type.
type Selective interface {
	Consumer
	// Takes reports whether the consumer wants events of type t.
	Takes(t events.Type) bool
}

// Outbox marks an event delivered (dynamo.Outbox).
type Outbox interface {
	Delivered(ctx context.Context, eventID string, at time.Time) error
}

// Settings of the relay. Their order is what keeps a slow consumer from
// sending a record to the dead-letter queue without a real failure:
// ConsumeTimeout + MarkTime < Lock <= Timeout (relay_test.go, and infra
// sets the function's timeout from Timeout). A consumer call ends by its
// deadline and its dedupe record is released while the lock still
// holds, so the stream's retry finds it free; were the invocation killed
// holding the lock instead, each retry within the lock would meet
// ErrInProgress and count against the event source's retries.
const (
	// ConsumeTimeout is the deadline of one consumer's call on one
	// event (its context's), shortened to leave MarkTime before the
	// invocation's own deadline.
	ConsumeTimeout = 10 * time.Second
	// MarkTime is kept after a consumer's deadline to release or
	// complete its dedupe record (one DynamoDB write, with retries).
	MarkTime = 5 * time.Second
	// Lock is how long one delivery holds its dedupe record: longer
	// than a consumer call and its mark, so no live delivery's record is
	// taken over; a delivery that died holding it is taken over by the
	// stream's retry after that.
	Lock = 20 * time.Second
	// Timeout is the relay function's timeout: no shorter than Lock, so
	// a consumer call started near the end of an invocation is cut by
	// its shortened deadline, not by the invocation's end.
	Timeout = 30 * time.Second
	// KeepRecords is how long a done dedupe record is kept: the stream
	// keeps records 24 hours, so no duplicate can come later; as long as
	// a delivered outbox item, whatever reads one finds the other.
	KeepRecords = dynamo.OutboxKeep
)

// errNoTime fails a record the invocation has no time left to deliver:
// it is not started, so it takes no dedupe record.
var errNoTime = errors.New("relay: too little of the invocation left to call a consumer")

// Deps are the relay's collaborators.
type Deps struct {
	Consumers []Consumer
	// Records keep the dedupe records (the idempotency store).
	Records idempotency.Store
	Outbox  Outbox
	Now     func() time.Time
	Logger  *slog.Logger
	// ConsumeTimeout replaces the package's (zero: ConsumeTimeout), for
	// tests.
	ConsumeTimeout time.Duration
}

// Relay is the one handler of outbox records.
type Relay struct {
	d    Deps
	once worker.Once
}

// New returns the relay; Now may be nil for the wall clock, Logger nil
// for slog.Default().
func New(d Deps) *Relay {
	if d.Now == nil {
		d.Now = time.Now
	}
	if d.Logger == nil {
		d.Logger = slog.Default()
	}
	if d.ConsumeTimeout == 0 {
		d.ConsumeTimeout = ConsumeTimeout
	}
	seen := map[string]bool{}
	for _, c := range d.Consumers {
		if seen[c.Name()] {
			panic("relay: two consumers named " + c.Name())
		}
		seen[c.Name()] = true
	}
	return &Relay{d: d, once: worker.Once{Store: d.Records, Lock: Lock, Keep: KeepRecords, Now: d.Now, Logger: d.Logger.With("relay", true)}}
}

// Handle is the Lambda handler of the table's stream with partial batch
// responses (ReportBatchItemFailures): it delivers every outbox INSERT of
// the batch and lists, by sequence number, the records that failed; the
// stream retries from the first of them (the ones after it that
// succeeded are then skipped by their dedupe records). Records that are
// not outbox INSERTs are ignored, whatever filter let them through. One
// record never fails the batch: the error is always nil.
func (r *Relay) Handle(ctx context.Context, ev awsevents.DynamoDBEvent) (awsevents.DynamoDBEventResponse, error) {
	var resp awsevents.DynamoDBEventResponse
	for _, rec := range ev.Records {
		if !Selects(rec) {
			continue
		}
		if err := r.deliver(ctx, rec); err != nil {
			r.d.Logger.Warn("relay: record failed", "eventId", rec.EventID, "sequenceNumber", rec.Change.SequenceNumber,
				"pk", rec.Change.Keys[dynamo.AttrPK].String(), "error", err.Error())
			resp.BatchItemFailures = append(resp.BatchItemFailures, awsevents.DynamoDBBatchItemFailure{ItemIdentifier: rec.Change.SequenceNumber})
		}
	}
	return resp, nil
}

// deliver hands one outbox item's event to every consumer, each once,
// then marks it delivered. Every consumer is tried even when one fails,
// so one failing consumer delays no other.
func (r *Relay) deliver(ctx context.Context, rec awsevents.DynamoDBEventRecord) error {
	attr, ok := rec.Change.NewImage[dynamo.OutboxAttrEvent]
	if !ok || attr.DataType() != awsevents.DataTypeString {
		return fmt.Errorf("outbox item without its event (attribute %q)", dynamo.OutboxAttrEvent)
	}
	ev, err := events.Parse([]byte(attr.String()))
	if err != nil {
		return err
	}
	var errs []error
	for _, c := range r.d.Consumers {
		if s, ok := c.(Selective); ok && !s.Takes(ev.Type) {
			continue
		}
		err := r.consumeOnce(ctx, c, ev, rec.EventID)
		if err != nil {
			errs = append(errs, fmt.Errorf("consumer %s, event %s (%s): %w", c.Name(), ev.ID, ev.Type, err))
		}
	}
	if err := errors.Join(errs...); err != nil {
		return err
	}
	return r.d.Outbox.Delivered(context.WithoutCancel(ctx), ev.ID, r.d.Now())
}

// consumeOnce hands ev to c under its dedupe record, with a deadline
// (ConsumeTimeout, and MarkTime before the invocation's) by which the
// call ends and the record is released or completed while the lock
// holds. A consumer must honour its context's deadline.
func (r *Relay) consumeOnce(ctx context.Context, c Consumer, ev events.Event, by string) error {
	deadline := time.Now().Add(r.d.ConsumeTimeout)
	if end, ok := ctx.Deadline(); ok && end.Add(-MarkTime).Before(deadline) {
		deadline = end.Add(-MarkTime)
	}
	if !time.Now().Before(deadline) {
		return errNoTime
	}
	cctx, cancel := context.WithDeadline(ctx, deadline)
	defer cancel()
	return r.once.Do(cctx, "relay:"+c.Name()+":"+ev.ID, by, func(ctx context.Context) error {
		return consume(ctx, c, ev)
	})
}

// consume calls c and turns a panic into an error: one bad event must
// not crash the invocation and fail the whole batch with it.
func consume(ctx context.Context, c Consumer, ev events.Event) (err error) {
	defer func() {
		if p := recover(); p != nil {
			err = fmt.Errorf("%w: %v\n%s", worker.ErrPanic, p, debug.Stack())
		}
	}()
	return c.Consume(ctx, ev)
}

// Selects reports whether a stream record is one the relay delivers: an
// outbox item's INSERT. The event source's filter (FilterPattern) keeps
// the others away in AWS; the local poller relies on this.
func Selects(rec awsevents.DynamoDBEventRecord) bool {
	pk, ok := rec.Change.Keys[dynamo.AttrPK]
	return rec.EventName == string(awsevents.DynamoDBOperationTypeInsert) &&
		ok && pk.DataType() == awsevents.DataTypeString && dynamo.IsOutboxKey(pk.String())
}

// FilterPattern is the event source's filter (Lambda event filtering),
// the same test as Selects: INSERTs of items whose partition key begins
// with the outbox prefix. The delivered mark (a MODIFY) and TTL's
// removal (a REMOVE) never invoke the relay.
func FilterPattern() map[string]any {
	return map[string]any{
		"eventName": []any{string(awsevents.DynamoDBOperationTypeInsert)},
		"dynamodb": map[string]any{
			"Keys": map[string]any{
				dynamo.AttrPK: map[string]any{"S": []any{map[string]any{"prefix": dynamo.OutboxKeyPrefix}}},
			},
		},
	}
}
