// Package relaytest builds what the relay is handed, for the tests of the
// relay and of what it calls (shared/relay, the call benchmark's relay
// grants): a stream record of an outbox item's INSERT. Test support: no
// function links it.
package relaytest

import (
	"encoding/json"
	"testing"
	"time"

	awsevents "github.com/aws/aws-lambda-go/events"
	"github.com/bookplatform/backend/shared/dynamo"
	"github.com/bookplatform/backend/shared/events"
)

// Insert is the stream record of the INSERT of an outbox item holding a
// new event of decl at time at, as Lambda delivers it from the table's
// stream: its keys, and a new image of the keys and the event's JSON.
// seq is the record's sequence number, in its event id ("stream-<seq>",
// what a partial batch response names) and the event's data ({"seq":
// seq}), so records of one test are told apart.
func Insert(t testing.TB, decl events.Declaration, at time.Time, seq string) (awsevents.DynamoDBEventRecord, events.Event) {
	t.Helper()
	ev, err := decl.New(at, map[string]string{"seq": seq})
	if err != nil {
		t.Fatal(err)
	}
	return InsertEvent(t, ev, seq), ev
}

// InsertEvent is Insert of an event built by the caller (data of its
// type's own shape).
func InsertEvent(t testing.TB, ev events.Event, seq string) awsevents.DynamoDBEventRecord {
	t.Helper()
	body, err := json.Marshal(ev)
	if err != nil {
		t.Fatal(err)
	}
	k := dynamo.EventKey(ev.ID)
	keys := map[string]awsevents.DynamoDBAttributeValue{
		dynamo.AttrPK: awsevents.NewStringAttribute(k.PK), dynamo.AttrSK: awsevents.NewStringAttribute(k.SK),
	}
	image := map[string]awsevents.DynamoDBAttributeValue{dynamo.OutboxAttrEvent: awsevents.NewStringAttribute(string(body))}
	for k, v := range keys {
		image[k] = v
	}
	return awsevents.DynamoDBEventRecord{
		EventID: "stream-" + seq, EventName: "INSERT", EventSource: "aws:dynamodb",
		Change: awsevents.DynamoDBStreamRecord{Keys: keys, NewImage: image, SequenceNumber: seq, StreamViewType: "NEW_IMAGE"},
	}
}
