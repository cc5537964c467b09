package relay

import (
	"github.com/bookplatform/backend/shared/api"
	"github.com/bookplatform/backend/shared/queues"
)

// Registration is one consumer of every event, as the relay function is
// built and granted from it: its constructor, and what its calls need
// beside the relay's own (the readers of the function list add them to
// the relay function: shared/groups, relayFunction).
//
// The list of registrations is shared/relay/registry's, not this
// package's: every function imports shared/relay through shared/app, and
// a consumer's constructor links what it calls (the SQS client of the
// webhooks' fan-out, SES for email), which only the relay function may.
type Registration struct {
	// Build makes the consumer; nil when d's settings turn it off (the
	// search feed with the table's own search index). Its settings are
	// read either way, so the relay function is configured for both.
	Build func(d api.Deps) Consumer
	// Table lists the IAM actions of the consumer's DynamoDB calls, as
	// api.Group.Table does.
	Table []string
	// Sends lists the queues it sends to.
	Sends []queues.Name
	// Mail lists the SES actions it calls (shared/mail).
	Mail []string
}
