package groups

import (
	"slices"
	"testing"

	"github.com/bookplatform/backend/shared/api"
)

// A group that emits events puts their outbox items inside its
// transactions, which IAM authorizes as PutItem. The relay reads no
// index, serves no route and sends to no queue; its table actions are
// held to the calls it really makes in local/bench (TestCallGrants_relay),
// not to a list written here.
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
	if len(r.Indexes) > 0 || len(r.Routes) > 0 || len(r.Sends) > 0 {
		t.Errorf("relay: indexes %v, %d routes, sends %v; want none", r.Indexes, len(r.Routes), r.Sends)
	}
}
