// Package registry is the one list of the outbox relay's consumers: the
// relay function (functions/relay, app.StartRelay), its grants
// (shared/groups, relayFunction) and the local run (local/stack.go) all
// read it. It is apart from shared/relay, which every function links
// through shared/app, so that only the relay function links what the
// consumers call (the SQS client, SES); shared/groups tests this with
// go list. The tests give the relay their own consumers, or build these
// from their environment's Deps.
package registry

import (
	"github.com/bookplatform/backend/shared/api"
	"github.com/bookplatform/backend/shared/booksearch/searchfeed"
	"github.com/bookplatform/backend/shared/mail"
	"github.com/bookplatform/backend/shared/mail/sesmail"
	"github.com/bookplatform/backend/shared/notify/notifydeps"
	"github.com/bookplatform/backend/shared/queues"
	"github.com/bookplatform/backend/shared/relay"
	"github.com/bookplatform/backend/shared/webhooks/webhooksrelay"
)

// registrations lists every consumer: each adds one line.
var registrations = []relay.Registration{
	{Build: func(d api.Deps) relay.Consumer { return webhooksrelay.FanOut(d) }, Table: webhooksrelay.Table, Sends: []queues.Name{queues.Webhooks}},
	{Build: func(d api.Deps) relay.Consumer {
		return notifydeps.Consumer(d, sesmail.FromConfig(d.AWS, d.Env, d.Logger))
	}, Table: notifydeps.Table, Mail: mail.Actions},
	{Build: searchfeed.Consumer, Table: searchfeed.Table},
}

// Registrations lists every registered consumer.
func Registrations() []relay.Registration { return registrations }

// Consumers builds every registered consumer from d, leaving out those
// d's settings turn off (a Build that returns nil).
func Consumers(d api.Deps) []relay.Consumer {
	out := make([]relay.Consumer, 0, len(registrations))
	for _, r := range registrations {
		if c := r.Build(d); c != nil {
			out = append(out, c)
		}
	}
	return out
}
