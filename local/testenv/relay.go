package testenv

import (
	"context"
	"strconv"
	"sync"
	"testing"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"
	"github.com/bookplatform/backend/local/streampoll"
	"github.com/bookplatform/backend/shared/dynamo"
	"github.com/bookplatform/backend/shared/events"
	"github.com/bookplatform/backend/shared/relay"
)

// StartRelay runs the outbox relay over the environment's table, as the
// local run does: local/streampoll reading the table's stream on DynamoDB
// Local and feeding the relay's one handler (App.Relay) with consumers.
// The environment needs WithStream.
// The returned stop ends it and waits for the batch it is running; the
// test's end stops it too.
func (e *Env) StartRelay(consumers ...relay.Consumer) (stop func()) {
	e.tb.Helper()
	if !e.Stream {
		e.tb.Fatalf("testenv: StartRelay needs the table's stream: build the environment with testenv.WithStream()")
	}
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	r := e.App.Relay(consumers...)
	go func() {
		done <- streampoll.Run(ctx, streampoll.Options{
			AWS: e.AWS, Endpoint: DynamoDBEndpoint(e.tb), DB: e.App.DB, Table: e.Config.TableName,
			Filter: relay.Selects, Handle: r.Handle, Idle: 50 * time.Millisecond, RetryPause: 100 * time.Millisecond,
			Logger: e.App.Logger,
		})
	}()
	var once sync.Once
	stop = func() {
		once.Do(func() {
			cancel()
			if err := <-done; err != nil {
				e.tb.Errorf("testenv: relay: %v", err)
			}
		})
	}
	e.tb.Cleanup(stop)
	return stop
}

// Recorder is a relay consumer that keeps every event it is given, for
// tests: Fail makes it refuse the events a test chooses.
type Recorder struct {
	name string
	mu   sync.Mutex
	got  []events.Event
	// Fail, when set, decides whether an event is refused (its error).
	Fail func(ev events.Event) error
	more chan struct{}
}

// NewRecorder returns a recorder consuming under name.
func NewRecorder(name string) *Recorder { return &Recorder{name: name, more: make(chan struct{}, 1)} }

// Name is the consumer's name.
func (r *Recorder) Name() string { return r.name }

// Consume records ev, unless Fail refuses it.
func (r *Recorder) Consume(_ context.Context, ev events.Event) error {
	r.mu.Lock()
	fail := r.Fail
	r.mu.Unlock()
	if fail != nil {
		if err := fail(ev); err != nil {
			return err
		}
	}
	r.mu.Lock()
	r.got = append(r.got, ev)
	r.mu.Unlock()
	select {
	case r.more <- struct{}{}:
	default:
	}
	return nil
}

// SetFail replaces Fail while the relay may be calling Consume.
func (r *Recorder) SetFail(f func(ev events.Event) error) {
	r.mu.Lock()
	r.Fail = f
	r.mu.Unlock()
}

// Events returns what was consumed so far, in order.
func (r *Recorder) Events() []events.Event {
	r.mu.Lock()
	defer r.mu.Unlock()
	return append([]events.Event(nil), r.got...)
}

// WaitFor waits until n events have been consumed and returns them; it
// fails the test after a minute (a delivery normally takes well under a
// second: the limit is only how long a broken relay is waited for).
func (r *Recorder) WaitFor(tb testing.TB, n int) []events.Event {
	tb.Helper()
	deadline := time.After(time.Minute)
	for {
		if got := r.Events(); len(got) >= n {
			return got
		}
		select {
		case <-r.more:
		case <-deadline:
			tb.Fatalf("testenv: consumer %s got %d events, want %d", r.name, len(r.Events()), n)
		}
	}
}

// OutboxItem is an outbox item as a test sees it.
type OutboxItem struct {
	Event events.Event
	// DeliveredAt (epoch ms) and ExpiresAt (the TTL, epoch s) are zero
	// until the relay has delivered the event.
	DeliveredAt, ExpiresAt int64
}

// Outbox reads every outbox item of the table (a consistent Scan: test
// tables are small), in no particular order.
func (e *Env) Outbox(tb testing.TB) []OutboxItem {
	tb.Helper()
	var out []OutboxItem
	in := &dynamodb.ScanInput{
		TableName: aws.String(e.Config.TableName), ConsistentRead: aws.Bool(true),
		FilterExpression:          aws.String("begins_with(#pk, :p)"),
		ExpressionAttributeNames:  map[string]string{"#pk": dynamo.AttrPK},
		ExpressionAttributeValues: map[string]types.AttributeValue{":p": &types.AttributeValueMemberS{Value: dynamo.OutboxKeyPrefix}},
	}
	for {
		page, err := e.App.DB.Scan(context.Background(), in)
		if err != nil {
			tb.Fatalf("testenv: scan the outbox: %v", err)
		}
		for _, it := range page.Items {
			var o OutboxItem
			s, _ := it[dynamo.OutboxAttrEvent].(*types.AttributeValueMemberS)
			if s == nil {
				tb.Fatalf("testenv: outbox item %v without its event", it[dynamo.AttrPK])
			}
			ev, err := events.Parse([]byte(s.Value))
			if err != nil {
				tb.Fatalf("testenv: %v", err)
			}
			o.Event = ev
			o.DeliveredAt, o.ExpiresAt = number(it["deliveredAt"]), number(it[dynamo.AttrTTL])
			out = append(out, o)
		}
		if page.LastEvaluatedKey == nil {
			return out
		}
		in.ExclusiveStartKey = page.LastEvaluatedKey
	}
}

func number(v types.AttributeValue) int64 {
	n, ok := v.(*types.AttributeValueMemberN)
	if !ok {
		return 0
	}
	i, _ := strconv.ParseInt(n.Value, 10, 64)
	return i
}

// WaitDelivered waits until the outbox holds n items, all marked
// delivered, and returns them; it fails the test after a minute.
func (e *Env) WaitDelivered(tb testing.TB, n int) []OutboxItem {
	tb.Helper()
	deadline := time.Now().Add(time.Minute)
	for {
		items := e.Outbox(tb)
		delivered := 0
		for _, it := range items {
			if it.DeliveredAt != 0 {
				delivered++
			}
		}
		if len(items) == n && delivered == n {
			return items
		}
		if time.Now().After(deadline) {
			tb.Fatalf("testenv: %d outbox items, %d delivered; want %d delivered", len(items), delivered, n)
		}
		time.Sleep(50 * time.Millisecond)
	}
}
