package dynamo

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"strings"
	"time"

	"github.com/bookplatform/backend/shared/events"
	"github.com/guregu/dynamo/v2"
)

// The outbox: one item per event (EventKey), put by the transaction of
// the change it reports (tx.emit), or just after a bulk write that is no
// transaction (putEvents). The table's stream carries each
// outbox item's INSERT to the relay (shared/relay), which hands the
// event to its consumers and then marks the item delivered, giving it
// the TTL (OutboxKeep) that removes it. An item never delivered stays:
// it is the record of an event its consumers have not had.
//
// Attributes of an outbox item, beside its keys and type:
//   - OutboxAttrEvent: the envelope as JSON (events.Event), exactly what
//     consumers get;
//   - eventType, eventTime: for whoever reads the table;
//   - deliveredAt (epoch ms) and expiresAt (TTL, epoch s): set once,
//     when the relay has handed the event to every consumer.
const (
	OutboxAttrEvent = "event"
	// OutboxKeep is how long a delivered outbox item stays before TTL
	// removes it: long enough to look at what was delivered last week,
	// as long as the relay's dedupe records (shared/relay).
	OutboxKeep = 7 * 24 * time.Hour
)

// errEventIDTaken is an outbox item whose event id exists already: ids
// are random UUIDs, so only a bug reaches it.
var errEventIDTaken = errors.New("an outbox item with this event id exists")

// outboxItem is an event as the outbox stores it.
type outboxItem struct {
	PK        string `dynamo:"PK"`
	SK        string `dynamo:"SK"`
	Type      string `dynamo:"type"`
	Event     string `dynamo:"event"`
	EventType string `dynamo:"eventType"`
	EventTime string `dynamo:"eventTime"`
}

func newOutboxItem(ev events.Event) (outboxItem, error) {
	b, err := json.Marshal(ev)
	if err != nil {
		return outboxItem{}, fmt.Errorf("outbox: encode event %s: %w", ev.ID, err)
	}
	k := EventKey(ev.ID)
	return outboxItem{
		PK: k.PK, SK: k.SK, Type: typeOutboxEvent, Event: string(b),
		EventType: string(ev.Type), EventTime: ev.Time.UTC().Format(time.RFC3339Nano),
	}, nil
}

// putEvents puts the outbox items of evs with BatchWriteItem (putItems:
// 25 a call), unconditionally, outside any transaction. Only a change
// that is itself no transaction emits this way (Books.CreateBooks, after
// its batches): the events land after the change, not with it, and the
// caller says what a crash between the two leaves. Event ids are random
// UUIDs, so the condition tx.emit puts on an item guards nothing here.
func (t *table) putEvents(ctx context.Context, evs []events.Event) error {
	items := make([]any, len(evs))
	for i, ev := range evs {
		it, err := newOutboxItem(ev)
		if err != nil {
			return err
		}
		items[i] = it
	}
	return t.putItems(ctx, items)
}

// IsOutboxKey reports whether a partition key is an outbox item's: the
// relay reads nothing else of the table's stream.
func IsOutboxKey(pk string) bool { return strings.HasPrefix(pk, eventPrefix) }

// OutboxKeyPrefix is what every outbox item's partition key begins with,
// for the stream filter of the relay's event source (infra).
const OutboxKeyPrefix = eventPrefix

// Outbox is the relay's side of the outbox: marking an event delivered.
type Outbox struct{ t *table }

// Delivered marks the outbox item of eventID delivered at (deliveredAt)
// and sets its TTL to OutboxKeep after that (one conditional
// UpdateItem). An item already marked, or gone, is left alone: a
// redelivered event neither moves its expiry nor brings back an item TTL
// removed (an update of a missing key would create one). The MODIFY this
// writes to the stream is not an INSERT: the relay's filter drops it.
func (o *Outbox) Delivered(ctx context.Context, eventID string, at time.Time) error {
	k := EventKey(eventID)
	err := o.t.update(k).
		Set("deliveredAt", at.UnixMilli()).
		Set(AttrTTL, at.Add(OutboxKeep).Unix()).
		If("attribute_exists(PK) AND attribute_not_exists(deliveredAt)").
		Run(ctx)
	if err != nil && !dynamo.IsCondCheckFailed(err) {
		return fmt.Errorf("mark event %s delivered: %w", eventID, err)
	}
	return nil
}
