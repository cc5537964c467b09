package webhookdeliveryapi_test

import (
	"encoding/json"
	"flag"
	"fmt"
	"net/http"
	"os"
	"slices"
	"strconv"
	"testing"
	"time"

	"github.com/bookplatform/backend/local/testenv"
	"github.com/bookplatform/backend/shared/books"
	"github.com/bookplatform/backend/shared/events"
	"github.com/bookplatform/backend/shared/relay/registry"
	"github.com/bookplatform/backend/shared/webhooks"
	"github.com/stretchr/testify/require"
)

// measureOut is where TestMeasureDelivery writes its figures (go run
// ./local/bench webhooks copies them into its report).
var measureOut = flag.String("webhooks-out", "", "write the delivery figures to this file")

// TestMeasureDelivery measures, on the local stack (DynamoDB Local, the
// in-process SQS stand-in, the local relay poller and worker poller),
// the latency from a change (the event's time, set in the change's
// transaction) to its receiver, and the delivery worker's throughput
// over a backlog. WEBHOOK_MEASURE sets the number of changes (`go run
// ./local/bench webhooks` sets 300); without it a few, so `make test`
// checks that it runs:
//
//	WEBHOOK_MEASURE=300 go run ./local/withdynamodb go test -count=1 -run TestMeasureDelivery -v ./shared/api/webhookdeliveryapi
func TestMeasureDelivery(t *testing.T) {
	n, _ := strconv.Atoi(os.Getenv("WEBHOOK_MEASURE"))
	if n <= 0 {
		n = 5
	}
	env := testenv.New(t, testenv.WithStream(), testenv.WithQueues(), testenv.WithEnv(webhooks.EnvAllowPrivateTargets, "true"))
	env.StartRelay(registry.Consumers(env.App.Deps())...)
	stopWorkers := env.StartWorkers(t)
	rc := newReceiver(t, nil)
	s := env.OpenShop(t, "measure-shop", nil)
	putEndpoint(t, env, s.ID, rc.URL+"/hook", nil)
	bookIDs := env.ImportBooks(t, books.Record{Title: "Dune", Authors: []string{"Frank Herbert"}, ISBN: "9780441172719"})
	res := env.Do("POST", "/v1/inventory", map[string]any{"storeId": s.ID, "bookId": bookIDs[0], "quantity": 100000, "priceCents": 1000, "condition": "new"}, s.Owner.Token)
	require.Equal(t, http.StatusCreated, res.Status, "%s", res)
	itemID := res.JSON["id"].(string)
	rc.waitFor(t, "/hook", 1)

	// Latency: one change at a time, paced, each to its receiver.
	for i := range n {
		r := env.Do("PUT", "/v1/inventory/"+itemID+"/adjust", map[string]any{"storeId": s.ID, "adjustment": 1, "reason": "measure " + strconv.Itoa(i)}, s.Owner.Token)
		require.Less(t, r.Status, 300, "%s", r)
		rc.waitFor(t, "/hook", i+2)
	}
	var lat []time.Duration
	for _, r := range rc.requests("/hook")[1:] {
		var ev events.Event
		require.NoError(t, json.Unmarshal(r.Body, &ev))
		lat = append(lat, r.At.Sub(ev.Time))
	}
	slices.Sort(lat)
	pct := func(p float64) time.Duration { return lat[min(len(lat)-1, int(float64(len(lat))*p))] }

	// Throughput: a backlog of n deliveries queued with the worker
	// stopped, then drained by one worker poller (as make run).
	stopWorkers()
	before := len(rc.requests("/hook"))
	for i := range n {
		r := env.Do("PUT", "/v1/inventory/"+itemID+"/adjust", map[string]any{"storeId": s.ID, "adjustment": -1, "reason": "backlog " + strconv.Itoa(i)}, s.Owner.Token)
		require.Less(t, r.Status, 300, "%s", r)
	}
	env.WaitDelivered(t, len(env.Outbox(t)))
	start := time.Now()
	env.StartWorkers(t)
	rc.waitFor(t, "/hook", before+n)
	took := time.Since(start)
	report := fmt.Sprintf("   latency, change committed -> receiver, %d changes one at a time: p50 %v, p99 %v, max %v\n"+
		"   worker throughput, a backlog of %d deliveries drained by one poller (batch size 1): %.0f deliveries/s (%v)\n",
		len(lat), pct(0.50).Round(time.Millisecond), pct(0.99).Round(time.Millisecond), lat[len(lat)-1].Round(time.Millisecond),
		n, float64(n)/took.Seconds(), took.Round(time.Millisecond))
	t.Log("\n" + report)
	if *measureOut != "" {
		require.NoError(t, os.WriteFile(*measureOut, []byte(report), 0o644))
	}
}
