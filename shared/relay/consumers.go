package relay

import (
	"github.com/bookplatform/backend/shared/api"
	"github.com/bookplatform/backend/shared/queues"
)

// Registration is one consumer of every event, as the relay function is
// built and granted from it: its constructor, and what its calls need
// beside the relay's own (the readers of the function list add them to
// the relay function: shared/groups, relayFunction).
type Registration struct {
	Build func(d api.Deps) Consumer
	// Table lists the IAM actions of the consumer's DynamoDB calls, as
	// api.Group.Table does.
	Table []string
	// Sends lists the queues it sends to.
	Sends []queues.Name
	// Mail lists the SES actions it calls (shared/mail).
	Mail []string
}

// registrations is the one list of the relay's consumers: the relay
// function (app.StartRelay), its grants (shared/groups) and the local
// run (local/stack.go) all read it. The tests give the relay their own
// (Deps.Consumers), or build these from their environment's Deps.
var registrations []Registration

// Registrations lists every registered consumer.
func Registrations() []Registration { return registrations }

// Consumers builds every registered consumer from d.
func Consumers(d api.Deps) []Consumer {
	out := make([]Consumer, 0, len(registrations))
	for _, r := range registrations {
		out = append(out, r.Build(d))
	}
	return out
}
