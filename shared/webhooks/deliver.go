package webhooks

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
	"math/rand/v2"
	"net/http"
	"strconv"
	"time"

	"github.com/bookplatform/backend/shared/queues"
)

// MaxDelay is the longest SQS hides a message: a later attempt travels
// in hops of at most this (Message.NotBefore).
const MaxDelay = 15 * time.Minute

// DeliveryStore is what the delivery worker reads and writes
// (dynamo.Webhooks).
type DeliveryStore interface {
	Endpoint(ctx context.Context, storeID, id string) (*Endpoint, error)
	Delivery(ctx context.Context, endpointID, id string) (*Delivery, error)
	// SaveDelivery writes d, and e when not nil, each conditional on its
	// version (ErrChanged), in one transaction.
	SaveDelivery(ctx context.Context, d *Delivery, e *Endpoint) error
}

// Poster makes one attempt (Client).
type Poster interface {
	Post(ctx context.Context, target string, header http.Header, body []byte) Attempt
}

// Deliverer is the webhooks queue's worker: each message is one attempt
// of one delivery. It is at least once: the worker's idempotency record
// per message (its key: Message.MessageKey) skips a duplicate message,
// and the delivery's attempt count skips a message whose attempt was
// made; an attempt whose outcome could not be recorded is made again,
// and receivers deduplicate by the event id (webhook-id).
type Deliverer struct {
	Store    DeliveryStore
	Poster   Poster
	Queue    Queue
	Settings Settings
	Now      func() time.Time
	Logger   *slog.Logger
	// Jitter returns a number in [0, 1) (nil: math/rand), which spreads
	// each retry's wait by up to a fifth either way, so the deliveries
	// that failed together (a receiver's outage) do not retry together.
	Jitter func() float64
}

// recordReserve is kept from the invocation's deadline for recording an
// attempt and sending what follows it: the attempt's own deadline is the
// earlier of Settings.Timeout and the invocation's end less this, so an
// attempt is never cut off by the function's timeout unrecorded (the
// worker function's timeout is 10 seconds: queues.VisibilityTimeout/6).
const recordReserve = 2 * time.Second

// errNoTime is a message taken too near the invocation's end to make an
// attempt: it is left to SQS's retry, unattempted.
var errNoTime = errors.New("webhooks: too little of the invocation left for an attempt")

// saveAttempts is how often an attempt's outcome is recorded again
// after losing to a concurrent change of its endpoint (an owner's edit)
// before the message is left to SQS's retry.
const saveAttempts = 3

// Handle takes one message of the webhooks queue. An error leaves the
// message to SQS's retries (and, in the end, the queue's dead-letter
// queue); nil consumes it.
func (w *Deliverer) Handle(ctx context.Context, body []byte) error {
	var m Message
	if err := json.Unmarshal(body, &m); err != nil || m.DeliveryID == "" || m.EndpointID == "" || m.Attempt < 1 {
		return fmt.Errorf("webhooks: not a delivery message: %s", body)
	}
	now := w.now()
	if m.NotBefore != nil && now.Before(*m.NotBefore) {
		// Not due yet: another hop, as long as SQS allows.
		next := m
		next.Hop++
		return w.send(ctx, queues.Webhooks, next, m.NotBefore.Sub(now))
	}
	d, err := w.Store.Delivery(ctx, m.EndpointID, m.DeliveryID)
	if errors.Is(err, ErrDeliveryNotFound) {
		return nil // its endpoint was deleted and the delivery aged out
	}
	if err != nil {
		return err
	}
	if d.Attempts >= m.Attempt {
		return w.followUp(ctx, d, m)
	}
	if d.Status != Pending || d.Attempts != m.Attempt-1 {
		w.logger().Info("webhooks: stale delivery message skipped", "deliveryId", d.ID, "attempt", m.Attempt,
			"attempts", d.Attempts, "status", string(d.Status))
		return nil
	}
	e, err := w.Store.Endpoint(ctx, d.StoreID, d.EndpointID)
	if errors.Is(err, ErrEndpointNotFound) {
		return nil // deleted: its deliveries age out
	}
	if err != nil {
		return err
	}
	if e.Status != Active {
		return w.skip(ctx, d, e)
	}

	at := w.now()
	sig, err := Sign(e.Secrets(at), d.EventID, at, d.Payload)
	if err != nil {
		return err
	}
	postCtx := ctx
	if end, ok := ctx.Deadline(); ok {
		if time.Until(end) < recordReserve+time.Second {
			return errNoTime
		}
		var cancel context.CancelFunc
		postCtx, cancel = context.WithDeadline(ctx, end.Add(-recordReserve))
		defer cancel()
	}
	h := http.Header{}
	h.Set(HeaderID, d.EventID)
	h.Set(HeaderTimestamp, strconv.FormatInt(at.Unix(), 10))
	h.Set(HeaderSignature, sig)
	att := w.Poster.Post(postCtx, e.URL, h, d.Payload)
	if att.At.IsZero() {
		att.At = at.UTC()
	}

	for n := 1; ; n++ {
		err = w.record(ctx, d, e, m, att)
		if !errors.Is(err, ErrChanged) || n == saveAttempts {
			break
		}
		if d, err = w.Store.Delivery(ctx, m.EndpointID, m.DeliveryID); err != nil {
			return err
		}
		if d.Attempts >= m.Attempt || d.Status != Pending {
			return nil
		}
		if e, err = w.Store.Endpoint(ctx, d.StoreID, d.EndpointID); err != nil {
			return err
		}
	}
	if err != nil {
		return err
	}
	return w.followUp(ctx, d, m)
}

// record writes att as m's attempt of d, and what it means: success, a
// retry at a jittered time, or (the last retry spent) failure, with the
// endpoint's run of failures counted and, at DisableAfter, the endpoint
// disabled. A manual attempt schedules no retry and counts no failure
// of its endpoint (the delivery counted when it failed); any success
// ends the endpoint's run of failures.
func (w *Deliverer) record(ctx context.Context, d *Delivery, e *Endpoint, m Message, att Attempt) error {
	nd := *d
	nd.Attempts = m.Attempt
	nd.History = append(append([]Attempt(nil), d.History...), att)
	if len(nd.History) > MaxHistory {
		nd.History = nd.History[len(nd.History)-MaxHistory:]
	}
	nd.NextAttemptAt = nil
	var ne *Endpoint
	switch {
	case att.Error == "":
		nd.Status = Succeeded
		if e.ConsecutiveFailures != 0 {
			x := *e
			x.ConsecutiveFailures = 0
			ne = &x
		}
	case !m.Manual && m.Attempt <= len(w.Settings.RetrySchedule):
		wait := w.jittered(w.Settings.RetrySchedule[m.Attempt-1])
		next := att.At.Add(wait).UTC()
		nd.NextAttemptAt = &next
	default:
		nd.Status = Failed
		if !m.Manual {
			x := *e
			x.ConsecutiveFailures++
			if x.ConsecutiveFailures >= w.Settings.DisableAfter {
				at := w.now().UTC()
				x.Status, x.DisabledAt = Disabled, &at
				x.DisabledReason = fmt.Sprintf("%d deliveries in a row failed; last: %s", x.ConsecutiveFailures, att.Error)
			}
			ne = &x
		}
	}
	if err := w.Store.SaveDelivery(ctx, &nd, ne); err != nil {
		return err
	}
	*d = nd
	if ne != nil && ne.Status == Disabled && e.Status != Disabled {
		w.logger().Warn("webhooks: endpoint disabled", "endpointId", e.ID, "storeId", e.StoreID, "reason", ne.DisabledReason)
	}
	return nil
}

// followUp sends what follows m's recorded attempt of d: the next
// attempt's message while it is pending, or, when its last automatic
// attempt failed, a copy of m to the dead-letter queue, where failed
// deliveries are watched (an alarm) beside the delivery's own record,
// which the owner sees and may redeliver. It is called again when a
// message is taken again after its attempt was recorded (a send that
// failed): the next message's key is the same, so the worker skips a
// duplicate.
func (w *Deliverer) followUp(ctx context.Context, d *Delivery, m Message) error {
	if m.Manual || d.Attempts != m.Attempt {
		return nil
	}
	switch {
	case d.Status == Pending && d.NextAttemptAt != nil:
		next := Message{DeliveryID: d.ID, EndpointID: d.EndpointID, Attempt: m.Attempt + 1, NotBefore: d.NextAttemptAt}
		return w.send(ctx, queues.Webhooks, next, d.NextAttemptAt.Sub(w.now()))
	case d.Status == Failed:
		return w.send(ctx, queues.Webhooks.DLQ(), m, 0)
	}
	return nil
}

// skip ends d without an attempt: its endpoint is disabled, so nothing
// is sent, and the delivery is failed (the owner may redeliver it once
// the endpoint is enabled again) rather than left pending forever.
func (w *Deliverer) skip(ctx context.Context, d *Delivery, e *Endpoint) error {
	nd := *d
	nd.Status, nd.NextAttemptAt = Failed, nil
	err := w.Store.SaveDelivery(ctx, &nd, nil)
	if errors.Is(err, ErrChanged) {
		return nil // someone else moved it on
	}
	if err == nil {
		w.logger().Info("webhooks: delivery to a disabled endpoint not sent", "deliveryId", d.ID, "endpointId", e.ID)
	}
	return err
}

// send sends m to q, hidden for delay (rounded up to whole seconds, at
// most MaxDelay), so it never arrives before it is due; a longer wait
// is its NotBefore's, and takes more hops.
func (w *Deliverer) send(ctx context.Context, q queues.Name, m Message, delay time.Duration) error {
	body, err := json.Marshal(m)
	if err != nil {
		return err
	}
	if delay <= 0 {
		return w.Queue.Send(ctx, q, body, m.MessageKey())
	}
	delay = min(delay.Round(0)+time.Second-1, MaxDelay).Truncate(time.Second)
	return w.Queue.SendDelayed(ctx, q, body, m.MessageKey(), delay)
}

// jittered is wait spread by up to a fifth either way.
func (w *Deliverer) jittered(wait time.Duration) time.Duration {
	r := w.Jitter
	if r == nil {
		r = rand.Float64
	}
	return time.Duration(float64(wait) * (0.8 + 0.4*r()))
}

func (w *Deliverer) now() time.Time {
	if w.Now == nil {
		return time.Now()
	}
	return w.Now()
}

func (w *Deliverer) logger() *slog.Logger {
	if w.Logger == nil {
		return slog.Default()
	}
	return w.Logger
}
