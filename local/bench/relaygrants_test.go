package main

import (
	"context"
	"errors"
	"slices"
	"testing"
	"time"

	awsevents "github.com/aws/aws-lambda-go/events"
	"github.com/bookplatform/backend/local/testenv"
	"github.com/bookplatform/backend/shared/books"
	"github.com/bookplatform/backend/shared/booksearch"
	"github.com/bookplatform/backend/shared/booksearch/opensearch/opensearchtest"
	"github.com/bookplatform/backend/shared/callstats"
	"github.com/bookplatform/backend/shared/dynamo"
	"github.com/bookplatform/backend/shared/events"
	"github.com/bookplatform/backend/shared/follows"
	"github.com/bookplatform/backend/shared/groups"
	"github.com/bookplatform/backend/shared/ids"
	"github.com/bookplatform/backend/shared/relay/registry"
	"github.com/bookplatform/backend/shared/relay/relaytest"
	"github.com/bookplatform/backend/shared/webhooks"
	gdynamo "github.com/guregu/dynamo/v2"
	"github.com/stretchr/testify/require"
)

// The relay has no route, so the call scenario (checkGranted, checkUsed)
// never exercises it: here the relay's one handler runs under a call
// recorder through every path its dedupe records take (a consumer that
// fails and is released, a delivery, a redelivery of a delivered event)
// with every registered consumer (the webhooks' fan-out of a follow of
// a store with an endpoint; the search feed's of a book.changed, the
// deployment searching OpenSearch, a stand-in of it), and the IAM
// actions its calls needed must be exactly what the relay function is
// granted, in both directions.
func TestCallGrants_relay(t *testing.T) {
	url, _ := opensearchtest.StandIn(t, opensearchtest.IndexExists("books"),
		opensearchtest.Exchange{Method: "POST", Path: "/books/_bulk", Request: "feed_bulk_request.ndjson", Status: 200, Answer: "bulk_answer.json"})
	env := testenv.New(t, testenv.WithQueues(), testenv.WithEnv(booksearch.EnvEngine, booksearch.EngineOpenSearch),
		testenv.WithEnv(booksearch.EnvOpenSearchEndpoint, url))
	bookIDs := env.ImportBooks(t,
		books.Record{ISBN: "0306406152", Title: "Emma", Authors: []string{"Jane Austen"}},
		books.Record{ISBN: "9780198534532", Title: "The Hobbit", Authors: []string{"J. R. R. Tolkien"}})
	consumer := testenv.NewRecorder("bench")
	r := env.App.Relay(append(registry.Consumers(env.App.Deps()), consumer)...)
	ctx, rec := callstats.With(context.Background())

	storeID, endpointID := ids.New(), ids.New()
	k := dynamo.WebhookEndpointKey(storeID, endpointID)
	now := time.Now().UTC().Format(time.RFC3339Nano)
	require.NoError(t, gdynamo.NewFromIface(env.App.DB).Table(env.Config.TableName).Put(map[string]any{
		"PK": k.PK, "SK": k.SK, "type": "WebhookEndpoint", "id": endpointID, "storeId": storeID, "url": "https://hooks.example/in",
		"status": "active", "secret": webhooks.NewSecret(), "consecutiveFailures": 0, "createdAt": now, "updatedAt": now, "version": 1,
	}).Run(context.Background()))
	ev, err := follows.StoreFollowed.New(time.Now(), follows.StoreFollowedData{FollowerID: ids.New(), StoreID: storeID, FollowedAt: time.Now()})
	require.NoError(t, err)
	changed, err := books.Changed(time.Now(), bookIDs)
	require.NoError(t, err)
	batch := awsevents.DynamoDBEvent{Records: []awsevents.DynamoDBEventRecord{relaytest.InsertEvent(t, ev, "1"), relaytest.InsertEvent(t, changed, "2")}}

	consumer.SetFail(func(events.Event) error { return errors.New("endpoint down") })
	resp, err := r.Handle(ctx, batch)
	require.NoError(t, err)
	require.Len(t, resp.BatchItemFailures, 2, "the failing consumer fails the records")
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
