package webhooks

import (
	"context"
	"encoding/json"
	"errors"
	"net/http"
	"testing"
	"time"

	"github.com/bookplatform/backend/shared/queues"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// memStore keeps one delivery and its endpoint.
type memStore struct {
	d *Delivery
	e *Endpoint
}

func (s *memStore) Endpoint(_ context.Context, _, _ string) (*Endpoint, error) {
	x := *s.e
	return &x, nil
}
func (s *memStore) Delivery(_ context.Context, _, _ string) (*Delivery, error) {
	x := *s.d
	return &x, nil
}
func (s *memStore) SaveDelivery(_ context.Context, d *Delivery, e *Endpoint) error {
	if d.Version != s.d.Version || (e != nil && e.Version != s.e.Version) {
		return ErrChanged
	}
	d.Version++
	x := *d
	s.d = &x
	if e != nil {
		e.Version++
		y := *e
		s.e = &y
	}
	return nil
}

type sent struct {
	q     queues.Name
	m     Message
	delay time.Duration
}

// memQueue records sends; fail makes the next send fail.
type memQueue struct {
	sent []sent
	fail bool
}

func (q *memQueue) Send(ctx context.Context, n queues.Name, b []byte, k string) error {
	return q.SendDelayed(ctx, n, b, k, 0)
}
func (q *memQueue) SendDelayed(_ context.Context, n queues.Name, b []byte, k string, d time.Duration) error {
	if q.fail {
		q.fail = false
		return errors.New("queue down")
	}
	var m Message
	if err := json.Unmarshal(b, &m); err != nil {
		return err
	}
	if k != m.MessageKey() {
		return errors.New("key is not the message's")
	}
	q.sent = append(q.sent, sent{n, m, d})
	return nil
}

type poster struct{ calls int }

func (p *poster) Post(context.Context, string, http.Header, []byte) Attempt {
	p.calls++
	return Attempt{ResponseCode: 500, Error: "HTTP 500"}
}

func deliverer(now time.Time) (*Deliverer, *memStore, *memQueue, *poster) {
	st := &memStore{
		d: &Delivery{ID: "d1", EndpointID: "e1", StoreID: "s1", EventID: "ev1", Payload: []byte(`{}`), Status: Pending, Version: 1},
		e: &Endpoint{ID: "e1", StoreID: "s1", URL: "https://hooks.example", Status: Active, Secret: NewSecret(), Version: 1},
	}
	q, p := &memQueue{}, &poster{}
	return &Deliverer{Store: st, Poster: p, Queue: q, Now: func() time.Time { return now },
		Settings: Settings{RetrySchedule: []time.Duration{time.Hour}, DisableAfter: 5}, Jitter: func() float64 { return 0.5 }}, st, q, p
}

func body(t *testing.T, m Message) []byte {
	b, err := json.Marshal(m)
	require.NoError(t, err)
	return b
}

// A retry due in an hour travels in hops of at most 15 minutes: a
// message arriving before its time is sent on, not attempted.
func TestDeliverer_aRetryNotDueHops(t *testing.T) {
	now := time.Date(2026, 11, 28, 5, 0, 0, 0, time.UTC)
	w, _, q, p := deliverer(now)
	ctx := context.Background()
	require.NoError(t, w.Handle(ctx, body(t, Message{DeliveryID: "d1", EndpointID: "e1", Attempt: 1})))
	assert.Equal(t, 1, p.calls)
	require.Len(t, q.sent, 1)
	next := q.sent[0]
	assert.Equal(t, queues.Webhooks, next.q)
	assert.Equal(t, 2, next.m.Attempt)
	assert.Equal(t, now.Add(time.Hour), *next.m.NotBefore, "the schedule's hour, jittered by 0")
	assert.Equal(t, MaxDelay, next.delay)

	w.Now = func() time.Time { return now.Add(15*time.Minute + 500*time.Millisecond) }
	require.NoError(t, w.Handle(ctx, body(t, next.m)))
	assert.Equal(t, 1, p.calls, "not attempted before its time")
	require.Len(t, q.sent, 2)
	hop := q.sent[1]
	assert.Equal(t, 1, hop.m.Hop)
	assert.Equal(t, 2, hop.m.Attempt)
	assert.Equal(t, MaxDelay, hop.delay)

	w.Now = func() time.Time { return now.Add(59*time.Minute + 12700*time.Millisecond) }
	require.NoError(t, w.Handle(ctx, body(t, hop.m)))
	assert.Equal(t, 48*time.Second, q.sent[2].delay, "the rest, rounded up to whole seconds")
}

// When the next attempt's message cannot be sent after the attempt was
// recorded, the message fails; its redelivery makes no second attempt
// but sends the next message then.
func TestDeliverer_aFailedFollowUpIsSentByTheRedelivery(t *testing.T) {
	now := time.Date(2026, 11, 28, 5, 0, 0, 0, time.UTC)
	w, st, q, p := deliverer(now)
	ctx := context.Background()
	q.fail = true
	m := body(t, Message{DeliveryID: "d1", EndpointID: "e1", Attempt: 1})
	require.Error(t, w.Handle(ctx, m))
	assert.Equal(t, 1, st.d.Attempts, "the attempt is recorded")
	require.NoError(t, w.Handle(ctx, m))
	assert.Equal(t, 1, p.calls, "not attempted twice")
	require.Len(t, q.sent, 1)
	assert.Equal(t, 2, q.sent[0].m.Attempt)

	// The last attempt fails: the delivery fails, its message goes to
	// the dead-letter queue, the endpoint counts a failure.
	w.Now = func() time.Time { return now.Add(2 * time.Hour) }
	require.NoError(t, w.Handle(ctx, body(t, q.sent[0].m)))
	assert.Equal(t, Failed, st.d.Status)
	assert.Equal(t, 1, st.e.ConsecutiveFailures)
	require.Len(t, q.sent, 2)
	assert.Equal(t, queues.Webhooks.DLQ(), q.sent[1].q)
}

// A delivery whose endpoint was disabled meanwhile is failed, not sent.
func TestDeliverer_aDisabledEndpointGetsNothing(t *testing.T) {
	w, st, q, p := deliverer(time.Now())
	st.e.Status = Disabled
	require.NoError(t, w.Handle(context.Background(), body(t, Message{DeliveryID: "d1", EndpointID: "e1", Attempt: 1})))
	assert.Zero(t, p.calls)
	assert.Empty(t, q.sent)
	assert.Equal(t, Failed, st.d.Status)
	assert.Zero(t, st.d.Attempts)
}

// An attempt is bounded by the invocation's deadline, less the time to
// record it; a message taken too near the end is left for SQS's retry.
func TestDeliverer_anAttemptEndsBeforeTheInvocation(t *testing.T) {
	w, st, _, p := deliverer(time.Now())
	ctx, cancel := context.WithTimeout(context.Background(), recordReserve+500*time.Millisecond)
	defer cancel()
	err := w.Handle(ctx, body(t, Message{DeliveryID: "d1", EndpointID: "e1", Attempt: 1}))
	require.ErrorIs(t, err, errNoTime)
	assert.Zero(t, p.calls)
	assert.Zero(t, st.d.Attempts)

	var deadline time.Time
	w.Poster = posterFunc(func(ctx context.Context) Attempt {
		deadline, _ = ctx.Deadline()
		return Attempt{ResponseCode: 204}
	})
	ctx, cancel = context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	end, _ := ctx.Deadline()
	require.NoError(t, w.Handle(ctx, body(t, Message{DeliveryID: "d1", EndpointID: "e1", Attempt: 1})))
	assert.Equal(t, end.Add(-recordReserve), deadline)
	assert.Equal(t, Succeeded, st.d.Status)
}

type posterFunc func(ctx context.Context) Attempt

func (f posterFunc) Post(ctx context.Context, _ string, _ http.Header, _ []byte) Attempt {
	return f(ctx)
}
