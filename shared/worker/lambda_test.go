package worker_test

import (
	"context"
	"errors"
	"github.com/bookplatform/backend/shared/dynamo"
	"sync"
	"testing"
	"time"

	"github.com/aws/aws-lambda-go/events"
	"github.com/aws/aws-lambda-go/lambda"
	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/bookplatform/backend/local/testenv"
	"github.com/bookplatform/backend/shared/idempotency"
	"github.com/bookplatform/backend/shared/queues"
	"github.com/bookplatform/backend/shared/worker"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func TestMain(m *testing.M) { testenv.Main(m) }

const queue queues.Name = "test-queue"

// stores are the idempotency stores every scenario runs against: the
// in-memory one of these tests, and the DynamoDB one the functions use,
// so the fake is held to the behaviour of the real store.
var stores = map[string]func(t *testing.T) idempotency.Store{
	"memory":   func(*testing.T) idempotency.Store { return newMemoryStore() },
	"dynamodb": func(t *testing.T) idempotency.Store { return dynamo.NewIdempotency(testenv.New(t).App.Table) },
}

// forEachStore runs a scenario once per store, in parallel.
func forEachStore(t *testing.T, scenario func(t *testing.T, store idempotency.Store)) {
	t.Helper()
	for name, newStore := range stores {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			scenario(t, newStore(t))
		})
	}
}

// record is one SQS record as Lambda delivers it; key "" sends no key
// attribute.
func record(id, key, body string) events.SQSMessage {
	r := events.SQSMessage{
		MessageId: id, Body: body, EventSource: "aws:sqs",
		Attributes:        map[string]string{"ApproximateReceiveCount": "1"},
		MessageAttributes: map[string]events.SQSMessageAttribute{},
	}
	if key != "" {
		r.MessageAttributes[queues.KeyAttribute] = events.SQSMessageAttribute{DataType: "String", StringValue: aws.String(key)}
	}
	return r
}

func batch(rs ...events.SQSMessage) events.SQSEvent { return events.SQSEvent{Records: rs} }

// failedIDs are the ids a response asks SQS to retry.
func failedIDs(resp events.SQSEventResponse) []string {
	ids := []string{}
	for _, f := range resp.BatchItemFailures {
		ids = append(ids, f.ItemIdentifier)
	}
	return ids
}

// calls records the messages a handler was given.
type calls struct {
	mu   sync.Mutex
	msgs []worker.Message
}

func (c *calls) add(m worker.Message) {
	c.mu.Lock()
	c.msgs = append(c.msgs, m)
	c.mu.Unlock()
}

func (c *calls) ids() []string {
	c.mu.Lock()
	defer c.mu.Unlock()
	ids := []string{}
	for _, m := range c.msgs {
		ids = append(ids, m.ID)
	}
	return ids
}

var start = time.Date(2026, 11, 23, 12, 0, 0, 0, time.UTC)

func TestLambda_oneFailureInABatchReportsExactlyThatMessage(t *testing.T) {
	forEachStore(t, func(t *testing.T, store idempotency.Store) {
		var seen calls
		h := worker.Lambda(func(_ context.Context, m worker.Message) error {
			seen.add(m)
			if string(m.Body) == "bad" {
				return errors.New("cannot import")
			}
			return nil
		}, store, queue, testenv.NewClock(start).Now, nil)

		resp, err := h(context.Background(), batch(record("m1", "", "ok"), record("m2", "", "bad"), record("m3", "", "ok")))
		require.NoError(t, err, "one message never fails the batch")
		assert.Equal(t, []string{"m2"}, failedIDs(resp))
		assert.Equal(t, []string{"m1", "m2", "m3"}, seen.ids(), "the messages after the failed one still run")
	})
}

func TestLambda_aMessageDeliveredAgainAfterSuccessRunsOnce(t *testing.T) {
	forEachStore(t, func(t *testing.T, store idempotency.Store) {
		clock := testenv.NewClock(start)
		var seen calls
		h := worker.Lambda(func(_ context.Context, m worker.Message) error { seen.add(m); return nil }, store, queue, clock.Now, nil)
		ctx := context.Background()

		resp, err := h(ctx, batch(record("m1", "", "a"), record("m2", "upload-7", "b")))
		require.NoError(t, err)
		require.Empty(t, failedIDs(resp))

		// SQS delivers m1 again (at-least-once), and the sender resends
		// upload-7's work as a new message with the same key.
		clock.Advance(2 * queues.VisibilityTimeout)
		resp, err = h(ctx, batch(record("m1", "", "a"), record("m9", "upload-7", "b again")))
		require.NoError(t, err)
		assert.Empty(t, failedIDs(resp), "a duplicate succeeds, so SQS deletes it")
		assert.Equal(t, []string{"m1", "m2"}, seen.ids(), "each message's work ran once")
	})
}

func TestLambda_aFailedMessageRunsAgainOnRedelivery(t *testing.T) {
	forEachStore(t, func(t *testing.T, store idempotency.Store) {
		clock := testenv.NewClock(start)
		var seen calls
		h := worker.Lambda(func(_ context.Context, m worker.Message) error {
			seen.add(m)
			if len(seen.ids()) == 1 {
				return errors.New("temporary failure")
			}
			return nil
		}, store, queue, clock.Now, nil)
		ctx := context.Background()

		resp, err := h(ctx, batch(record("m1", "k1", "x")))
		require.NoError(t, err)
		assert.Equal(t, []string{"m1"}, failedIDs(resp))

		// Redelivered right away (no lock left behind to wait out).
		clock.Advance(time.Second)
		resp, err = h(ctx, batch(record("m1", "k1", "x")))
		require.NoError(t, err)
		assert.Empty(t, failedIDs(resp))

		resp, err = h(ctx, batch(record("m1", "k1", "x")))
		require.NoError(t, err)
		assert.Empty(t, failedIDs(resp))
		assert.Equal(t, []string{"m1", "m1"}, seen.ids(), "ran again after the failure, not after the success")
	})
}

func TestLambda_aPanickingHandlerFailsOnlyItsMessage(t *testing.T) {
	forEachStore(t, func(t *testing.T, store idempotency.Store) {
		clock := testenv.NewClock(start)
		var seen calls
		h := worker.Lambda(func(_ context.Context, m worker.Message) error {
			seen.add(m)
			if string(m.Body) == "boom" && len(seen.ids()) < 4 {
				panic("nil map")
			}
			return nil
		}, store, queue, clock.Now, nil)
		ctx := context.Background()

		resp, err := h(ctx, batch(record("m1", "", "ok"), record("m2", "", "boom"), record("m3", "", "ok")))
		require.NoError(t, err)
		assert.Equal(t, []string{"m2"}, failedIDs(resp))

		// The panic released the record like an error does.
		resp, err = h(ctx, batch(record("m2", "", "boom")))
		require.NoError(t, err)
		assert.Empty(t, failedIDs(resp))
		assert.Equal(t, []string{"m1", "m2", "m3", "m2"}, seen.ids())
	})
}

func TestLambda_aMessageHeldByALiveAttemptIsRetriedLater(t *testing.T) {
	forEachStore(t, func(t *testing.T, store idempotency.Store) {
		clock := testenv.NewClock(start)
		var seen calls
		h := worker.Lambda(func(_ context.Context, m worker.Message) error { seen.add(m); return nil }, store, queue, clock.Now, nil)
		ctx := context.Background()

		// GIVEN an attempt that took the message's record and died (its
		// function timed out) without completing or releasing it
		now := clock.Now()
		prev, err := store.Begin(ctx, "worker:"+string(queue)+":k1",
			idempotency.Record{Fingerprint: "m1", LockedUntil: now.Add(queues.VisibilityTimeout)}, now, now.Add(time.Hour))
		require.NoError(t, err)
		require.Nil(t, prev)

		// WHEN the message arrives while that lock is live THEN it fails, to come back
		resp, err := h(ctx, batch(record("m1", "k1", "x")))
		require.NoError(t, err)
		assert.Equal(t, []string{"m1"}, failedIDs(resp))
		assert.Empty(t, seen.ids())

		// WHEN it comes back after the visibility timeout THEN the dead lock is taken over
		clock.Advance(queues.VisibilityTimeout + time.Second)
		resp, err = h(ctx, batch(record("m1", "k1", "x")))
		require.NoError(t, err)
		assert.Empty(t, failedIDs(resp))
		assert.Equal(t, []string{"m1"}, seen.ids())
	})
}

func TestLambda_aStoreFailureFailsOnlyThatMessage(t *testing.T) {
	store := newMemoryStore()
	store.failBegin = "worker:" + string(queue) + ":m2"
	var seen calls
	h := worker.Lambda(func(_ context.Context, m worker.Message) error { seen.add(m); return nil }, store, queue, nil, nil)

	resp, err := h(context.Background(), batch(record("m1", "", "a"), record("m2", "", "b")))
	require.NoError(t, err)
	assert.Equal(t, []string{"m2"}, failedIDs(resp))
	assert.Equal(t, []string{"m1"}, seen.ids(), "a message whose record cannot be taken does not run")
}

func TestLambda_message(t *testing.T) {
	var got worker.Message
	h := worker.Lambda(func(_ context.Context, m worker.Message) error { got = m; return nil }, newMemoryStore(), queue, nil, nil)
	r := record("m1", "upload-1", `{"uploadId":"upload-1"}`)
	r.Attributes["ApproximateReceiveCount"] = "3"
	r.MessageAttributes["storeId"] = events.SQSMessageAttribute{DataType: "String", StringValue: aws.String("s1")}
	r.MessageAttributes["thumbnail"] = events.SQSMessageAttribute{DataType: "Binary", BinaryValue: []byte{1}}

	_, err := h(context.Background(), batch(r))
	require.NoError(t, err)
	assert.Equal(t, worker.Message{
		ID: "m1", Key: "upload-1", Body: []byte(`{"uploadId":"upload-1"}`), ReceiveCount: 3,
		Attributes: map[string]string{queues.KeyAttribute: "upload-1", "storeId": "s1"},
	}, got)
}

// The Lambda runtime drives the handler with the event's JSON and sends
// its answer back as JSON: the event source reads batchItemFailures.
func TestLambda_throughTheLambdaRuntime(t *testing.T) {
	h := worker.Lambda(func(_ context.Context, m worker.Message) error {
		if m.Key == "bad" {
			return errors.New("cannot import")
		}
		return nil
	}, newMemoryStore(), queue, nil, nil)
	event := `{"Records":[
		{"messageId":"m1","body":"{}","attributes":{"ApproximateReceiveCount":"1"},"messageAttributes":{},"eventSource":"aws:sqs"},
		{"messageId":"m2","body":"{}","attributes":{"ApproximateReceiveCount":"2"},
		 "messageAttributes":{"key":{"stringValue":"bad","dataType":"String"}},"eventSource":"aws:sqs"}]}`

	out, err := lambda.NewHandler(h).Invoke(context.Background(), []byte(event))
	require.NoError(t, err)
	assert.JSONEq(t, `{"batchItemFailures":[{"itemIdentifier":"m2"}]}`, string(out))
}
