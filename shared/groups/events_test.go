package groups

import (
	"slices"
	"testing"

	"github.com/bookplatform/backend/shared/api"
	"github.com/bookplatform/backend/shared/queues"
	"github.com/bookplatform/backend/shared/relay/registry"
)

// A group that emits events puts their outbox items inside its
// transactions, which IAM authorizes as PutItem. The relay serves no
// route and sends to the queues its consumers send to (the webhooks'
// fan-out: the webhooks queue); its table actions are held to the calls
// it really makes in local/bench (TestCallGrants_relay), not to a list
// written here.
func TestFunctions_eventGrants(t *testing.T) {
	byName := map[string]Function{}
	for _, f := range Functions() {
		byName[f.Name] = f
	}
	emitting := 0
	for _, g := range All(api.Deps{}) {
		if len(g.Emits) == 0 {
			continue
		}
		emitting++
		if !slices.Contains(byName[g.Name].TableActions, "dynamodb:PutItem") {
			t.Errorf("%s emits %d events and is not granted dynamodb:PutItem", g.Name, len(g.Emits))
		}
	}
	if emitting == 0 {
		t.Error("no group emits events: the follows group should")
	}
	r, ok := byName["relay"]
	if !ok || !r.Relay {
		t.Fatal("no relay function")
	}
	var sends []queues.Name
	for _, reg := range registry.Registrations() {
		sends = append(sends, reg.Sends...)
	}
	slices.Sort(sends)
	if len(r.Routes) > 0 || !slices.Equal(slices.Compact(sends), r.Sends) {
		t.Errorf("relay: %d routes, sends %v; want none, and its consumers' %v", len(r.Routes), r.Sends, sends)
	}
}
