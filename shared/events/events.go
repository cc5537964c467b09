// Package events is what the service tells the world happened: a follow,
// later an order paid or a stock level changed. An event is recorded in
// the same transaction as the change it reports (the outbox, written by
// shared/dynamo's transactions), so no change commits without its event
// and no event exists for a change that did not commit; shared/relay
// then hands it to its consumers (webhooks, notifications) at least once.
//
// Every event travels in one envelope (Event). Its version is the
// version of its data's shape for that type: adding a field to the data
// is not a new version (consumers ignore fields they do not know), while
// removing or renaming one, or changing its meaning or type, is, and the
// old version keeps being emitted beside the new one until its consumers
// have moved. docs/decisions.md ("Events") records this.
//
// The package imports no AWS and no HTTP package.
package events

import (
	"encoding/json"
	"fmt"
	"time"

	"github.com/bookplatform/backend/shared/ids"
)

// Type names what happened, as "<resource>.<past tense>".
type Type string

// Event is the envelope of every event.
type Event struct {
	// ID is the event's own id (a UUID), stable across every delivery:
	// consumers deduplicate by it.
	ID   string `json:"id"`
	Type Type   `json:"type"`
	// Version is the version of Data's shape for Type (1, 2, ...).
	Version int `json:"version"`
	// Time is when the change happened (the change's own time, UTC).
	Time time.Time `json:"time"`
	// Data is the resource as the API shows it.
	Data json.RawMessage `json:"data"`
}

// Declaration is one type of event a group emits, for the readers of
// what groups emit: the grants (an emitting group puts outbox items),
// the API reference (its webhooks section) and the relay's consumers.
type Declaration struct {
	Type    Type
	Version int
	// Summary says in one line when the event happens.
	Summary string
	// Data is a zero value of the data's type: the API reference
	// documents its schema from it, and New refuses data of another
	// type for this declaration.
	Data any
}

// New builds an event of the declared type at t with a new id; data
// must be of the declaration's data type.
func (d Declaration) New(t time.Time, data any) (Event, error) {
	if fmt.Sprintf("%T", data) != fmt.Sprintf("%T", d.Data) {
		return Event{}, fmt.Errorf("events: %s takes %T data, not %T", d.Type, d.Data, data)
	}
	raw, err := json.Marshal(data)
	if err != nil {
		return Event{}, fmt.Errorf("events: %s data: %w", d.Type, err)
	}
	return Event{ID: ids.New(), Type: d.Type, Version: d.Version, Time: t.UTC(), Data: raw}, nil
}

// Parse reads an event's envelope as written by json.Marshal(Event).
func Parse(b []byte) (Event, error) {
	var ev Event
	if err := json.Unmarshal(b, &ev); err != nil {
		return Event{}, fmt.Errorf("events: read envelope: %w", err)
	}
	if ev.ID == "" || ev.Type == "" || ev.Version < 1 {
		return Event{}, fmt.Errorf("events: envelope without id, type or version: %s", b)
	}
	return ev, nil
}
