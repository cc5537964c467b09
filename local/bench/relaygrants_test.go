package main

import (
	"context"
	"encoding/json"
	"errors"
	"slices"
	"testing"
	"time"

	awsevents "github.com/aws/aws-lambda-go/events"
	"github.com/bookplatform/backend/local/testenv"
	"github.com/bookplatform/backend/shared/callstats"
	"github.com/bookplatform/backend/shared/dynamo"
	"github.com/bookplatform/backend/shared/events"
	"github.com/bookplatform/backend/shared/groups"
	"github.com/stretchr/testify/require"
)

// The relay has no route, so the call scenario (checkGranted, checkUsed)
// never exercises it: here the relay's one handler runs under a call
// recorder through every path its dedupe records take (a consumer that
// fails and is released, a delivery, a redelivery of a delivered event),
// and the IAM actions its calls needed must be exactly what the relay
// function is granted, in both directions.
func TestCallGrants_relay(t *testing.T) {
	env := testenv.New(t)
	consumer := testenv.NewRecorder("bench")
	r := env.App.Relay(consumer)
	ctx, rec := callstats.With(context.Background())

	decl := events.Declaration{Type: "bench.pinged", Version: 1, Data: map[string]string{}}
	ev, err := decl.New(time.Now(), map[string]string{"seq": "1"})
	require.NoError(t, err)
	body, err := json.Marshal(ev)
	require.NoError(t, err)
	k := dynamo.EventKey(ev.ID)
	keys := map[string]awsevents.DynamoDBAttributeValue{
		dynamo.AttrPK: awsevents.NewStringAttribute(k.PK), dynamo.AttrSK: awsevents.NewStringAttribute(k.SK),
	}
	image := map[string]awsevents.DynamoDBAttributeValue{dynamo.OutboxAttrEvent: awsevents.NewStringAttribute(string(body))}
	for k, v := range keys {
		image[k] = v
	}
	batch := awsevents.DynamoDBEvent{Records: []awsevents.DynamoDBEventRecord{{
		EventID: "stream-1", EventName: "INSERT", EventSource: "aws:dynamodb",
		Change: awsevents.DynamoDBStreamRecord{Keys: keys, NewImage: image, SequenceNumber: "1", StreamViewType: "NEW_IMAGE"},
	}}}

	consumer.SetFail(func(events.Event) error { return errors.New("endpoint down") })
	resp, err := r.Handle(ctx, batch)
	require.NoError(t, err)
	require.Len(t, resp.BatchItemFailures, 1, "the failing consumer fails the record")
	consumer.SetFail(nil)
	for range 2 { // delivered, then redelivered
		resp, err = r.Handle(ctx, batch)
		require.NoError(t, err)
		require.Empty(t, resp.BatchItemFailures)
	}

	var relay groups.Function
	for _, f := range groups.Functions() {
		if f.Relay {
			relay = f
		}
	}
	require.True(t, relay.Relay, "no relay function")
	recorded := rec.Actions()
	grants := granted(relay)
	for _, a := range recorded {
		if !grants[a] {
			t.Errorf("the relay needs %s, which function %s is not granted (shared/groups/functions.go relayActions)", a, relay.Name)
		}
	}
	for a := range grants {
		if !slices.Contains(recorded, a) {
			t.Errorf("function %s is granted %s, which no relay call needed (recorded %v): remove the grant", relay.Name, a, recorded)
		}
	}
}
