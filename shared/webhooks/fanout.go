package webhooks

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
	"time"

	"github.com/bookplatform/backend/shared/events"
	"github.com/bookplatform/backend/shared/follows"
	"github.com/bookplatform/backend/shared/inventory"
	"github.com/bookplatform/backend/shared/orders"
	"github.com/bookplatform/backend/shared/queues"
)

// Queue sends the webhooks queue's messages (sqsqueue.Sender): Send at
// once, SendDelayed hidden for delay (at most 15 minutes, SQS's limit).
type Queue interface {
	Send(ctx context.Context, q queues.Name, body []byte, key string) error
	SendDelayed(ctx context.Context, q queues.Name, body []byte, key string, delay time.Duration) error
}

// FanOutStore is what the fan-out reads and writes (dynamo.Webhooks).
type FanOutStore interface {
	// StoreEndpoints lists every endpoint of a store.
	StoreEndpoints(ctx context.Context, storeID string) ([]*Endpoint, error)
	// PutDelivery puts d unless it exists; it returns the stored one and
	// whether it was created.
	PutDelivery(ctx context.Context, d *Delivery) (*Delivery, bool, error)
}

// ConsumerName is the fan-out's name among the relay's consumers: the
// key of its dedupe records, so it never changes.
const ConsumerName = "webhooks"

// FanOut is the relay's consumer of webhooks: for each event, one
// delivery per matching endpoint of each store the event concerns,
// stored, and its first attempt queued. It is safe to run again for an
// event (the relay does after a failure): the deliveries' ids are the
// event's and the endpoint's (DeliveryID), so a second run finds them,
// and sends the first attempt again only of those not yet attempted (a
// duplicate message is skipped by the worker's idempotency record).
type FanOut struct {
	Store  FanOutStore
	Queue  Queue
	Now    func() time.Time
	Logger *slog.Logger
}

// Name is ConsumerName.
func (f *FanOut) Name() string { return ConsumerName }

// Consume fans ev out. An error (a store or queue failure) makes the
// relay call it again for ev; what was done before the error is found
// done then.
func (f *FanOut) Consume(ctx context.Context, ev events.Event) error {
	targets, err := targetsOf(ev)
	if err != nil {
		// A malformed event of a known type cannot be fanned out however
		// often it is retried: it is logged, not retried.
		f.logger().Error("webhooks: event not fanned out", "eventId", ev.ID, "type", string(ev.Type), "error", err.Error())
		return nil
	}
	if len(targets) > 0 && f.Queue == nil {
		return errors.New("webhooks: no queue to send deliveries to (the webhooks queue's URL is not set)")
	}
	var errs []error
	for _, t := range targets {
		if err := f.fanStore(ctx, ev, t); err != nil {
			errs = append(errs, fmt.Errorf("store %s: %w", t.storeID, err))
		}
	}
	return errors.Join(errs...)
}

// target is a store an event concerns: every endpoint of it that wants
// the event's type, or, for a test event, the one endpoint it names.
type target struct {
	storeID    string
	endpointID string
}

// targetsOf are the stores ev concerns: the store of an inventory
// change and of a follow, every store with a part of an order, the store
// of a test event (for its one endpoint); none for any other type.
func targetsOf(ev events.Event) ([]target, error) {
	switch ev.Type {
	case inventory.UpdatedEvent.Type:
		var d inventory.UpdatedData
		if err := json.Unmarshal(ev.Data, &d); err != nil || d.StoreID == "" {
			return nil, fmt.Errorf("inventory.updated without its storeId: %v", err)
		}
		return []target{{storeID: d.StoreID}}, nil
	case follows.StoreFollowed.Type:
		var d follows.StoreFollowedData
		if err := json.Unmarshal(ev.Data, &d); err != nil || d.StoreID == "" {
			return nil, fmt.Errorf("store.followed without its storeId: %v", err)
		}
		return []target{{storeID: d.StoreID}}, nil
	case orders.CreatedEvent.Type, orders.UpdatedEvent.Type:
		var d orders.Data
		if err := json.Unmarshal(ev.Data, &d); err != nil {
			return nil, fmt.Errorf("%s: %w", ev.Type, err)
		}
		var out []target
		seen := map[string]bool{}
		for _, p := range d.Fulfilment {
			if p.StoreID != "" && !seen[p.StoreID] {
				seen[p.StoreID] = true
				out = append(out, target{storeID: p.StoreID})
			}
		}
		return out, nil
	case TestEvent.Type:
		var d TestData
		if err := json.Unmarshal(ev.Data, &d); err != nil || d.StoreID == "" || d.EndpointID == "" {
			return nil, fmt.Errorf("webhook.test without its storeId and endpointId: %v", err)
		}
		return []target{{storeID: d.StoreID, endpointID: d.EndpointID}}, nil
	}
	return nil, nil
}

// fanStore makes the deliveries of ev to one store's endpoints.
func (f *FanOut) fanStore(ctx context.Context, ev events.Event, t target) error {
	eps, err := f.Store.StoreEndpoints(ctx, t.storeID)
	if err != nil {
		return err
	}
	var payload []byte
	var errs []error
	for _, e := range eps {
		if t.endpointID != "" {
			// A test goes to its endpoint alone, whatever it subscribes
			// to, and not to a disabled one.
			if e.ID != t.endpointID || e.Status != Active {
				continue
			}
		} else if !e.Wants(ev.Type) {
			continue
		}
		if payload == nil {
			if payload, err = StoreView(ev, t.storeID); err != nil {
				return err
			}
		}
		if err := f.deliver(ctx, ev, e, payload); err != nil {
			errs = append(errs, fmt.Errorf("endpoint %s: %w", e.ID, err))
		}
	}
	return errors.Join(errs...)
}

// deliver makes ev's delivery to e (unless it exists) and queues its
// first attempt (unless it has been attempted).
func (f *FanOut) deliver(ctx context.Context, ev events.Event, e *Endpoint, payload []byte) error {
	now := f.now().UTC()
	d := &Delivery{
		ID: DeliveryID(ev.ID, e.ID, ev.Time), EndpointID: e.ID, StoreID: e.StoreID, EventID: ev.ID, EventType: ev.Type,
		Payload: payload, Status: Pending, NextAttemptAt: &now, CreatedAt: now, UpdatedAt: now, Version: 1,
	}
	stored, _, err := f.Store.PutDelivery(ctx, d)
	if err != nil {
		return err
	}
	if stored.Attempts > 0 || stored.Status != Pending {
		return nil
	}
	m := Message{DeliveryID: d.ID, EndpointID: e.ID, Attempt: 1}
	body, err := json.Marshal(m)
	if err != nil {
		return err
	}
	return f.Queue.Send(ctx, queues.Webhooks, body, m.MessageKey())
}

func (f *FanOut) now() time.Time {
	if f.Now == nil {
		return time.Now()
	}
	return f.Now()
}

func (f *FanOut) logger() *slog.Logger {
	if f.Logger == nil {
		return slog.Default()
	}
	return f.Logger
}

// StoreView is the body of ev's delivery to a store's endpoints: the
// event's envelope as JSON, its data as that store may see it. An order
// holds other stores' items and parts, which are not this store's to
// see: its items and fulfilment are the store's own alone, its totals
// and tracking its part's, its shipping address only if its part ships,
// and the buyer's payment session is left out. Every other event is the
// store's own and is sent as it is.
func StoreView(ev events.Event, storeID string) ([]byte, error) {
	if ev.Type == orders.CreatedEvent.Type || ev.Type == orders.UpdatedEvent.Type {
		var d orders.Data
		if err := json.Unmarshal(ev.Data, &d); err != nil {
			return nil, fmt.Errorf("%s: %w", ev.Type, err)
		}
		data, err := json.Marshal(orderForStore(d, storeID))
		if err != nil {
			return nil, err
		}
		ev.Data = data
	}
	return json.Marshal(ev)
}

// orderForStore is d as the store storeID sees it (StoreView).
func orderForStore(d orders.Data, storeID string) orders.Data {
	items := []orders.ItemData{}
	for _, it := range d.Items {
		if it.StoreID == storeID {
			items = append(items, it)
		}
	}
	parts := []orders.PartData{}
	var part *orders.PartData
	for _, p := range d.Fulfilment {
		if p.StoreID == storeID {
			parts = append(parts, p)
			part = &parts[len(parts)-1]
		}
	}
	d.Items, d.Fulfilment = items, parts
	d.CheckoutSessionID = ""
	if part != nil {
		d.SubtotalCents, d.ShippingCents, d.TaxCents, d.TotalCents = part.SubtotalCents, part.ShippingCents, part.TaxCents, part.TotalCents
		d.Tracking = part.Tracking
		if part.Fulfilment != orders.Ship {
			d.ShippingAddress = nil
		}
	}
	return d
}
