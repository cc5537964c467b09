package groups

import (
	"slices"

	"github.com/bookplatform/backend/shared/api"
	"github.com/bookplatform/backend/shared/config"
	"github.com/bookplatform/backend/shared/dynamo"
	"github.com/bookplatform/backend/shared/earnings"
	"github.com/bookplatform/backend/shared/httpapi"
	"github.com/bookplatform/backend/shared/mail"
	"github.com/bookplatform/backend/shared/mail/sesmail"
	"github.com/bookplatform/backend/shared/notify"
	"github.com/bookplatform/backend/shared/notify/notifydeps"
	"github.com/bookplatform/backend/shared/queues"
	"github.com/bookplatform/backend/shared/relay/registry"
)

// Function is one Lambda: its directory under functions/, the routes it
// serves and exactly the AWS actions it calls. The CDK stack creates the
// function, its API Gateway routes, its queue wiring and its grants from
// this list.
type Function struct {
	Name   string
	Routes []httpapi.Route
	// Fallback marks the function serving API Gateway's $default route:
	// unknown paths and methods get the router's 404/405 envelope.
	Fallback bool
	// Authorizer marks the API Gateway Lambda authorizer.
	Authorizer bool
	// KeyRotation marks the Secrets Manager rotation function of the
	// access-token keys (functions/keyrotation).
	KeyRotation bool
	// Keyless marks a function that verifies no token and seals nothing
	// (api.Group.Keyless: health, docs): the stack neither grants it the
	// signing keys nor names their secret in its environment.
	Keyless bool
	// TableActions are the IAM actions of the DynamoDB calls on the
	// table and its indexes, a transaction's by its parts (api.Group.Table).
	TableActions []string
	// Indexes are the table's indexes the function may read through:
	// every index of dynamo.Table for a function that queries or scans,
	// none otherwise. The stack grants each by its exact ARN.
	Indexes []string
	// MediaActions are the S3 actions on objects of the media bucket;
	// s3:ListBucket, on the bucket for the uploads prefix (api.Group.Media).
	MediaActions []string
	// CDNActions are the CloudFront actions on the custom domains'
	// distribution and its tenants.
	CDNActions []string
	// SealActions are the KMS actions on the sealing key (api.Group.Seals).
	SealActions []string
	// MailActions are the SES actions the function calls (email:
	// api.Group.Mail, a relay consumer's Mail).
	MailActions []string
	// Sends are the queues the function sends to.
	Sends []queues.Name
	// Worker, when set, makes the function a consumer of its queue.
	Worker *api.Worker
	// Relay marks the outbox relay (functions/relay): its event source
	// is the table's stream, filtered to outbox INSERTs (shared/relay).
	Relay bool
	// Schedule, when set, makes the function a scheduled job:
	// EventBridge Scheduler invokes it on this schedule expression (in
	// UTC); it serves no route and has no event source
	// (functions/poolpayouts).
	Schedule string
	// Settings are the variables the function's group reads beside the
	// core's (config.Env): the stack sets those it knows (the media
	// bucket, the custom domains) on the functions that read them alone.
	Settings []string
}

// What every HTTP function does beside its group's own calls, as IAM
// authorizes it: read the caller and count the request (a metered or
// authenticated route), and keep idempotency records (an Idempotent
// route: put, read back the winner, release). The call benchmark holds
// these to the calls too (local/bench, checkGranted and checkUsed).
var (
	requestActions     = []string{"dynamodb:GetItem", "dynamodb:UpdateItem"}
	idempotencyActions = []string{"dynamodb:GetItem", "dynamodb:PutItem", "dynamodb:DeleteItem"}
	// workerActions: a worker keeps one idempotency record per message.
	workerActions = []string{"dynamodb:GetItem", "dynamodb:PutItem", "dynamodb:DeleteItem"}
	// outboxActions: a group that emits events puts an outbox item per
	// event (a part of its transaction, authorized as a PutItem).
	outboxActions = []string{"dynamodb:PutItem"}
	// relayActions: the relay keeps one dedupe record per consumer and
	// event (as a worker does) and marks the outbox item delivered
	// (UpdateItem). Its stream reads are granted by its event source.
	relayActions = []string{"dynamodb:DeleteItem", "dynamodb:GetItem", "dynamodb:PutItem", "dynamodb:UpdateItem"}
	// poolActions: the monthly pool run (earnings.Service.RunPool over
	// dynamo.Earnings) reads the month's run marker (GetItem) and its
	// accumulators (Query of the table, no index), writes each store's
	// payout in a transaction (ConditionCheck of the store, Put of the
	// payout, Update of its totals) and puts the marker.
	poolActions = []string{"dynamodb:ConditionCheckItem", "dynamodb:GetItem", "dynamodb:PutItem", "dynamodb:Query", "dynamodb:UpdateItem"}
)

// Functions lists every Lambda of the service: one per group, then the
// authorizer, the key rotation function, the outbox relay and the
// monthly pool job.
func Functions() []Function {
	var out []Function
	for _, build := range list {
		env := config.NewEnv(nil) // records what the group reads
		g := build(api.Deps{Env: env})
		f := Function{Name: g.Name, Routes: g.Routes, Fallback: g.Fallback, Keyless: g.Keyless(), MediaActions: g.Media, CDNActions: g.CDN, SealActions: g.Seals, MailActions: g.Mail, Sends: g.Sends, Worker: g.Worker,
			Settings: env.Names()}
		actions := slices.Clone(g.Table)
		for _, r := range g.Routes {
			if !r.Unmetered || r.Auth != httpapi.AuthNone {
				actions = append(actions, requestActions...)
			}
			if r.Idempotent {
				actions = append(actions, idempotencyActions...)
			}
		}
		if g.Worker != nil {
			actions = append(actions, workerActions...)
		}
		if len(g.Emits) > 0 {
			actions = append(actions, outboxActions...)
		}
		slices.Sort(actions)
		f.TableActions = slices.Compact(actions)
		f.Indexes = indexesFor(f.TableActions)
		out = append(out, f)
	}
	out = append(out, Function{Name: "authorizer", Authorizer: true}, Function{Name: "keyrotation", KeyRotation: true})
	return append(out, relayFunction(), poolFunction(), digestFunction())
}

// digestFunction is the daily digest job (functions/emaildigest): it
// signs the digests' unsubscribe links, so it is granted the signing
// keys (not Keyless); it mails (SES) and reads the settings it needs.
// Its Queries read the table's digest partitions, no index.
func digestFunction() Function {
	env := config.NewEnv(nil) // records what the job reads
	d := api.Deps{Env: env}
	notifydeps.Digest(d, sesmail.FromConfig(d.AWS, d.Env, d.Logger))
	return Function{Name: "emaildigest", Schedule: notify.DigestSchedule, TableActions: slices.Clone(notifydeps.DigestTable),
		MailActions: slices.Clone(mail.Actions), Settings: env.Names()}
}

// poolFunction is the monthly pool job (functions/poolpayouts): it
// verifies no token, and its one Query reads the table, not an index.
func poolFunction() Function {
	return Function{Name: "poolpayouts", Schedule: earnings.PoolSchedule, Keyless: true, TableActions: slices.Clone(poolActions)}
}

// relayFunction is the outbox relay (functions/relay): its own actions
// and those of every consumer registered in shared/relay (their table
// actions, the queues they send to, the SES actions they call), and the
// settings the consumers read.
func relayFunction() Function {
	env := config.NewEnv(nil) // records what the consumers read
	actions := slices.Clone(relayActions)
	f := Function{Name: "relay", Relay: true, Keyless: true}
	for _, r := range registry.Registrations() {
		r.Build(api.Deps{Env: env})
		actions = append(actions, r.Table...)
		f.Sends = append(f.Sends, r.Sends...)
		f.MailActions = append(f.MailActions, r.Mail...)
	}
	slices.Sort(actions)
	f.TableActions = slices.Compact(actions)
	f.Indexes = indexesFor(f.TableActions)
	slices.Sort(f.Sends)
	f.Sends = slices.Compact(f.Sends)
	slices.Sort(f.MailActions)
	f.MailActions = slices.Compact(f.MailActions)
	f.Settings = env.Names()
	return f
}

// indexesFor are the indexes a function with these table actions may
// read: all of them when it queries or scans, since a group declares its
// actions, not its access patterns.
func indexesFor(actions []string) []string {
	if !slices.Contains(actions, "dynamodb:Query") && !slices.Contains(actions, "dynamodb:Scan") {
		return nil
	}
	var out []string
	for _, ix := range dynamo.Table.Indexes {
		out = append(out, ix.Name)
	}
	return out
}
