package groups

import (
	"slices"
	"testing"

	"github.com/bookplatform/backend/shared/api"
)

// A group that emits events puts their outbox items inside its
// transactions, which IAM authorizes as PutItem; the relay gets exactly
// what its dedupe records and delivered mark call.
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
	want := []string{"dynamodb:DeleteItem", "dynamodb:GetItem", "dynamodb:PutItem", "dynamodb:UpdateItem"}
	if !slices.Equal(r.TableActions, want) || len(r.Indexes) > 0 || len(r.Routes) > 0 || len(r.Sends) > 0 {
		t.Errorf("relay: actions %v, indexes %v, %d routes, sends %v; want %v only", r.TableActions, r.Indexes, len(r.Routes), r.Sends, want)
	}
}
