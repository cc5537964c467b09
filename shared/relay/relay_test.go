package relay_test

import (
	"context"
	"encoding/json"
	"errors"
	"slices"
	"sync"
	"testing"
	"time"

	awsevents "github.com/aws/aws-lambda-go/events"
	"github.com/bookplatform/backend/local/testenv"
	"github.com/bookplatform/backend/shared/dynamo"
	"github.com/bookplatform/backend/shared/events"
	"github.com/bookplatform/backend/shared/idempotency"
	"github.com/bookplatform/backend/shared/relay"
	"github.com/bookplatform/backend/shared/relay/relaytest"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func TestMain(m *testing.M) { testenv.Main(m) }

var start = time.Date(2026, 11, 27, 12, 0, 0, 0, time.UTC)

var pinged = events.Declaration{Type: "test.pinged", Version: 1, Data: map[string]string{}}

// insert is the stream record of an outbox item's INSERT, as Lambda
// delivers it.
func insert(t *testing.T, seq string) (awsevents.DynamoDBEventRecord, events.Event) {
	t.Helper()
	return relaytest.Insert(t, pinged, start, seq)
}

func batch(rs ...awsevents.DynamoDBEventRecord) awsevents.DynamoDBEvent {
	return awsevents.DynamoDBEvent{Records: rs}
}

func failed(resp awsevents.DynamoDBEventResponse) []string {
	out := []string{}
	for _, f := range resp.BatchItemFailures {
		out = append(out, f.ItemIdentifier)
	}
	return out
}

// outbox records what was marked delivered.
type outbox struct {
	mu        sync.Mutex
	delivered []string
}

func (o *outbox) Delivered(_ context.Context, id string, _ time.Time) error {
	o.mu.Lock()
	o.delivered = append(o.delivered, id)
	o.mu.Unlock()
	return nil
}

func (o *outbox) ids() []string {
	o.mu.Lock()
	defer o.mu.Unlock()
	return slices.Clone(o.delivered)
}

func ids(evs []events.Event) []string {
	out := []string{}
	for _, ev := range evs {
		out = append(out, ev.ID)
	}
	return out
}

// newRelay is a relay over a fresh table's dedupe records.
func newRelay(t *testing.T, consumers ...relay.Consumer) (*relay.Relay, *outbox) {
	env := testenv.New(t)
	o := &outbox{}
	return relay.New(relay.Deps{Consumers: consumers, Records: dynamo.NewIdempotency(env.App.Table), Outbox: o, Now: testenv.NewClock(start).Now}), o
}

func TestHandle_aRedeliveredRecordIsAppliedOnce(t *testing.T) {
	rec := testenv.NewRecorder("c")
	r, o := newRelay(t, rec)
	r1, ev := insert(t, "100")
	ctx := context.Background()

	for range 3 {
		resp, err := r.Handle(ctx, batch(r1))
		require.NoError(t, err)
		assert.Empty(t, failed(resp))
	}
	assert.Equal(t, []string{ev.ID}, ids(rec.Events()), "consumed once")
	assert.Contains(t, o.ids(), ev.ID)
}

func TestHandle_aFailingConsumerFailsOnlyItsRecord(t *testing.T) {
	flaky, steady := testenv.NewRecorder("flaky"), testenv.NewRecorder("steady")
	r, o := newRelay(t, flaky, steady)
	r1, e1 := insert(t, "100")
	r2, e2 := insert(t, "200")
	r3, e3 := insert(t, "300")
	flaky.SetFail(func(ev events.Event) error {
		if ev.ID == e2.ID {
			return errors.New("endpoint down")
		}
		return nil
	})
	ctx := context.Background()

	resp, err := r.Handle(ctx, batch(r1, r2, r3))
	require.NoError(t, err, "one record never fails the batch")
	assert.Equal(t, []string{"200"}, failed(resp))
	assert.Equal(t, []string{e1.ID, e3.ID}, ids(flaky.Events()))
	assert.Equal(t, []string{e1.ID, e2.ID, e3.ID}, ids(steady.Events()), "the other consumer had every event")
	assert.ElementsMatch(t, []string{e1.ID, e3.ID}, o.ids(), "the failed event is not marked delivered")

	// The stream retries from the failed record: the ones after it come
	// again, and each consumer gets only what it has not had.
	flaky.SetFail(nil)
	resp, err = r.Handle(ctx, batch(r2, r3))
	require.NoError(t, err)
	assert.Empty(t, failed(resp))
	assert.Equal(t, []string{e1.ID, e3.ID, e2.ID}, ids(flaky.Events()))
	assert.Equal(t, []string{e1.ID, e2.ID, e3.ID}, ids(steady.Events()))
	assert.Contains(t, o.ids(), e2.ID)
}

type panicking struct{}

func (panicking) Name() string                                { return "panicking" }
func (panicking) Consume(context.Context, events.Event) error { panic("nil map") }

func TestHandle_aPanickingConsumerFailsOnlyItsRecords(t *testing.T) {
	r, o := newRelay(t, panicking{})
	r1, _ := insert(t, "100")
	resp, err := r.Handle(context.Background(), batch(r1))
	require.NoError(t, err)
	assert.Equal(t, []string{"100"}, failed(resp))
	assert.Empty(t, o.ids())
}

// The delivered mark (a MODIFY), TTL's removal and every other item's
// changes are not relayed, whatever filter let them through.
func TestHandle_onlyOutboxInsertsAreRelayed(t *testing.T) {
	rec := testenv.NewRecorder("c")
	r, o := newRelay(t, rec)
	modify, _ := insert(t, "100")
	modify.EventName = "MODIFY"
	remove, _ := insert(t, "200")
	remove.EventName = "REMOVE"
	other, _ := insert(t, "300")
	other.Change.Keys[dynamo.AttrPK] = awsevents.NewStringAttribute("USER#1")
	for _, x := range []awsevents.DynamoDBEventRecord{modify, remove, other} {
		assert.False(t, relay.Selects(x), x.EventName)
	}
	resp, err := r.Handle(context.Background(), batch(modify, remove, other))
	require.NoError(t, err)
	assert.Empty(t, failed(resp))
	assert.Empty(t, rec.Events())
	assert.Empty(t, o.ids())
}

func TestHandle_anItemWithoutItsEventFails(t *testing.T) {
	r, _ := newRelay(t, testenv.NewRecorder("c"))
	broken, _ := insert(t, "100")
	delete(broken.Change.NewImage, dynamo.OutboxAttrEvent)
	resp, err := r.Handle(context.Background(), batch(broken))
	require.NoError(t, err)
	assert.Equal(t, []string{"100"}, failed(resp), "left to the retries and the dead-letter queue, not dropped")
}

// The event source's filter says what Selects says.
func TestFilterPattern(t *testing.T) {
	b, err := json.Marshal(relay.FilterPattern())
	require.NoError(t, err)
	assert.JSONEq(t, `{"eventName":["INSERT"],"dynamodb":{"Keys":{"PK":{"S":[{"prefix":"EVENT#"}]}}}}`, string(b))
}

// The settings keep a slow consumer from using up the stream's retries:
// a consumer call and its mark end within the lock, and the function
// lives at least as long as the lock (infra sets its timeout from
// Timeout; infra/relay_test.go checks the template).
func TestSettings_aConsumerCallEndsWithinItsLock(t *testing.T) {
	assert.Less(t, relay.ConsumeTimeout+relay.MarkTime, relay.Lock)
	assert.LessOrEqual(t, relay.Lock, relay.Timeout)
}

// consumeTimeout is the consumer deadline of the tests that block a
// consumer. It covers the record's lock (a DynamoDB write) before the
// call, so it leaves room for a DynamoDB Local slowed by the other test
// packages on two cores: at one second the lock alone ran out in CI.
const consumeTimeout = 4 * time.Second

// blocking blocks until its context ends the first time it gets an
// event, and records why it ended; then it consumes.
type blocking struct {
	mu    sync.Mutex
	calls int
	ended []error
}

func (*blocking) Name() string { return "blocking" }

func (b *blocking) Consume(ctx context.Context, _ events.Event) error {
	b.mu.Lock()
	b.calls++
	first := b.calls == 1
	b.mu.Unlock()
	if !first {
		return nil
	}
	select {
	case <-ctx.Done():
	case <-time.After(time.Minute): // a guard against a hang, not a measure
	}
	b.mu.Lock()
	b.ended = append(b.ended, ctx.Err())
	b.mu.Unlock()
	return errors.New("gave up")
}

// A consumer that blocks is stopped by its deadline, which fails only
// its record and releases the record's dedupe lock: the stream's next
// delivery of it succeeds rather than meeting ErrInProgress until the
// lock lapses. Without a deadline of its own the consumer would block
// until the invocation was killed, holding the lock.
func TestHandle_aBlockedConsumerIsStoppedAndReleased(t *testing.T) {
	env := testenv.New(t)
	slow, steady := &blocking{}, testenv.NewRecorder("steady")
	o := &outbox{}
	r := relay.New(relay.Deps{Consumers: []relay.Consumer{slow, steady}, Records: dynamo.NewIdempotency(env.App.Table), Outbox: o,
		Now: testenv.NewClock(start).Now, ConsumeTimeout: consumeTimeout})
	r1, e1 := insert(t, "100")
	r2, e2 := insert(t, "200")
	ctx := context.Background()

	resp, err := r.Handle(ctx, batch(r1, r2))
	require.NoError(t, err)
	assert.Equal(t, []string{"100"}, failed(resp), "only the blocked record fails")
	slow.mu.Lock()
	assert.Equal(t, []error{context.DeadlineExceeded}, slow.ended, "the consumer's own deadline stopped it")
	slow.mu.Unlock()
	assert.Equal(t, []string{e2.ID}, o.ids())

	resp, err = r.Handle(ctx, batch(r1, r2))
	require.NoError(t, err)
	assert.Empty(t, failed(resp), "the released record is delivered at once, not refused as in progress")
	assert.Contains(t, o.ids(), e1.ID)
	assert.Equal(t, []string{e1.ID, e2.ID}, ids(steady.Events()))
}

// A consumer call near the end of the invocation is cut MarkTime before
// it, so its record is marked before the invocation is killed; with no
// time left the consumer is not called and no lock is taken.
func TestHandle_aConsumerDeadlineLeavesTimeToMark(t *testing.T) {
	env := testenv.New(t)
	slow := &blocking{}
	r := relay.New(relay.Deps{Consumers: []relay.Consumer{slow}, Records: dynamo.NewIdempotency(env.App.Table), Outbox: &outbox{},
		Now: testenv.NewClock(start).Now})
	r1, _ := insert(t, "100")

	ctx, cancel := context.WithTimeout(context.Background(), relay.MarkTime+consumeTimeout)
	defer cancel()
	resp, err := r.Handle(ctx, batch(r1))
	require.NoError(t, err)
	assert.Equal(t, []string{"100"}, failed(resp))
	require.NoError(t, ctx.Err(), "the consumer ended before the invocation's deadline")
	slow.mu.Lock()
	assert.Equal(t, []error{context.DeadlineExceeded}, slow.ended)
	slow.mu.Unlock()

	ctx, cancel = context.WithTimeout(context.Background(), relay.MarkTime/2)
	defer cancel()
	resp, err = r.Handle(ctx, batch(r1))
	require.NoError(t, err)
	assert.Equal(t, []string{"100"}, failed(resp), "too late to start")
	slow.mu.Lock()
	assert.Equal(t, 1, slow.calls, "not called without the time to mark")
	slow.mu.Unlock()
}

// selective takes one type of event (relay.Selective).
type selective struct {
	*testenv.Recorder
	takes events.Type
}

func (s selective) Takes(t events.Type) bool { return t == s.takes }

// begins counts the dedupe records the relay takes.
type begins struct {
	idempotency.Store
	mu   sync.Mutex
	keys []string
}

func (b *begins) Begin(ctx context.Context, key string, rec idempotency.Record, now, expires time.Time) (*idempotency.Record, error) {
	b.mu.Lock()
	b.keys = append(b.keys, key)
	b.mu.Unlock()
	return b.Store.Begin(ctx, key, rec, now, expires)
}

// A consumer that takes some types of event only is handed no other, and
// the relay keeps no dedupe record of those for it; the event is still
// marked delivered once every other consumer had it.
func TestHandle_aSelectiveConsumerGetsItsTypesOnly(t *testing.T) {
	env := testenv.New(t)
	other := events.Declaration{Type: "test.other", Version: 1, Data: map[string]string{}}
	sel := selective{Recorder: testenv.NewRecorder("selective"), takes: other.Type}
	all := testenv.NewRecorder("all")
	records := &begins{Store: dynamo.NewIdempotency(env.App.Table)}
	o := &outbox{}
	r := relay.New(relay.Deps{Consumers: []relay.Consumer{sel, all}, Records: records, Outbox: o, Now: testenv.NewClock(start).Now})

	rec1, ping := insert(t, "1")
	rec2, oth := relaytest.Insert(t, other, start, "2")
	resp, err := r.Handle(context.Background(), batch(rec1, rec2))
	require.NoError(t, err)
	assert.Empty(t, failed(resp))
	assert.Equal(t, []string{oth.ID}, ids(sel.Events()), "only the type it takes")
	assert.Equal(t, []string{ping.ID, oth.ID}, ids(all.Events()))
	assert.ElementsMatch(t, []string{"relay:all:" + ping.ID, "relay:all:" + oth.ID, "relay:selective:" + oth.ID}, records.keys)
	assert.ElementsMatch(t, []string{ping.ID, oth.ID}, o.ids())
}
