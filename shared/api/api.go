// Package api declares what an endpoint group is: its descriptor (Group)
// and what it is built from (Deps). Each group's package
// (shared/api/<name>api) exports one constructor; its function's main
// names that constructor alone (app.Start), so the function links that
// group and no other, and shared/groups lists them all once for the
// readers of every group: the Lambda function list with its IAM grants,
// the CDK stack, the local server, the route tests, the call benchmark and
// the API reference. Adding a group is its own packages, its main and one
// line in that list.
package api

import (
	"log/slog"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"

	"github.com/bookplatform/backend/shared/auth"
	"github.com/bookplatform/backend/shared/config"
	"github.com/bookplatform/backend/shared/dynamo"
	"github.com/bookplatform/backend/shared/events"
	"github.com/bookplatform/backend/shared/httpapi"
	"github.com/bookplatform/backend/shared/queues"
	"github.com/bookplatform/backend/shared/quota"
	"github.com/bookplatform/backend/shared/storehost"
	"github.com/bookplatform/backend/shared/stores"
	"github.com/bookplatform/backend/shared/users"
	"github.com/bookplatform/backend/shared/worker"
)

// Group is one endpoint group: one Lambda in AWS, one slice of the local
// server.
type Group struct {
	// Name is the group's name, and its function's directory under
	// functions/.
	Name   string
	Routes []httpapi.Route
	// Table lists the IAM actions of the DynamoDB calls the group's own
	// code makes on the table and its indexes, as IAM authorizes them: a
	// transaction by each of its parts (PutItem, UpdateItem, DeleteItem,
	// ConditionCheckItem; GetItem for TransactGetItems), since
	// dynamodb:TransactWriteItems is no IAM action (shared/dynamo,
	// IAMActions). What every HTTP function does anyway (read the caller,
	// count the request, keep idempotency records) is added by the
	// function list (groups.Functions). The call benchmark fails on a
	// recorded action not granted and on a grant no call needs.
	Table []string
	// Media lists the S3 actions on objects of the media bucket, as
	// shared/s3media's IAMActions names them; s3:ListBucket among them is
	// granted on the bucket for the uploads prefix alone (infra).
	Media []string
	// CDN lists the CloudFront actions on the multi-tenant distribution
	// and its tenants (custom domains).
	CDN []string
	// Seals lists the KMS actions on the service's sealing key, which
	// encrypts secrets kept at rest (the point-of-sale tokens,
	// shared/extpos/kmsseal): the stack makes the key when a group
	// declares any, and names it to those groups alone.
	Seals []string
	// Mail lists the SES actions the group calls (shared/mail: sending
	// email, reading the suppression list).
	Mail []string
	// Sends lists the queues the group sends messages to.
	Sends []queues.Name
	// Emits lists the events the group's changes record in the outbox
	// (shared/events, tx.emit in shared/dynamo): an emitting function
	// may put outbox items (shared/groups), and the API reference
	// documents each event under webhooks.
	Emits []events.Declaration
	// Worker, on a group without routes, makes its function a queue
	// consumer.
	Worker *Worker
	// Fallback marks the group whose function also serves API Gateway's
	// $default route: unknown paths and methods get the router's 404 and
	// 405 in the envelope.
	Fallback bool
}

// Keyless reports whether the group's function needs no signing key:
// it serves routes only, and every one reads no token (AuthNone), counts
// nothing (Unmetered: no tier, no rate-limit scope from a caller) and
// keeps no idempotency record: the health check and the API reference.
// Such a function starts without JWT_SECRET_ARN (app.Start) and is not
// granted the secret (infra), so a flaw in it cannot leak the keys that
// sign every token. The Fallback group's other routes, answered 404 or
// 405, are of that kind too (app.FallbackRouter).
func (g Group) Keyless() bool {
	if g.Worker != nil || len(g.Routes) == 0 {
		return false
	}
	for _, r := range g.Routes {
		if r.Auth != httpapi.AuthNone || !r.Unmetered || r.Idempotent {
			return false
		}
	}
	return true
}

// Worker is a queue consumer: an SQS event source with partial batch
// responses in AWS, a poller on the local run, the same Handler in both.
type Worker struct {
	Queue queues.Name
	// BatchSize is how many messages one invocation gets (1-10).
	BatchSize int
	Handle    worker.Handler
}

// Deps is what groups build their services from. A zero Deps builds
// groups whose handlers are never called: their tables can be listed
// (CDK, the API reference), not served.
//
// It holds the core alone, what every group's function has anyway, and
// does not grow with the groups: a group builds its stores from Table
// (dynamo.NewClubs(d.Table), ...), reads its own settings through Env,
// and builds any client only it uses (S3 for images, CloudFront for
// custom domains, a queue sender) from AWS through its adapter package
// (s3media, cdn, queues), all in its constructor, so only that group's
// function imports and links them (shared/groups tests this with go
// list).
type Deps struct {
	Config config.Config
	// Env reads the group's own settings (config.Env); whoever builds
	// the group reports what it found wrong at start.
	Env *config.Env
	// AWS is the SDK configuration the function's clients are built from
	// (traced in Lambda; the stand-ins' endpoints on the local run and in
	// tests).
	AWS aws.Config
	// Table is the one table: the client, its name and the clock.
	Table  dynamo.Handle
	Tokens *auth.Tokens
	// Keys are the signing keys the tokens are signed with: a group that
	// signs or seals something of its own derives its key from them, so
	// there is one secret to manage and rotate (the point-of-sale
	// integration's OAuth state and local token key).
	Keys auth.Keyring
	// Users is the account service, shared by the auth and users groups
	// and the demo data. It stores no image: the users group adds its
	// avatars' storage (users.Service.WithImages), so the auth function
	// does not link S3.
	Users *users.Service
	// Quota is the free tier's monthly quota, which the router admits
	// by and the posts' services charge.
	Quota quota.Policy
	// StoreHosts answers whether a caller may host a club or challenge
	// for a store, how a store is shown beside a club, a challenge or a
	// follow, and which store a slug names (the seam to the stores
	// domain: dynamo.NewStoreHosts; the tests of clubs and challenges
	// alone set their own).
	StoreHosts storehost.Directory
	// DNS, when set, is the resolver custom domains are checked with (the
	// local run's and the tests' stand-in); nil is the system's (cdn.DNS).
	DNS    stores.Resolver
	Logger *slog.Logger
	Now    func() time.Time
}

// TenantActions are the CloudFront actions of custom domains
// (stores.Tenants in shared/cdn): a tenant's creation, reads, disabling
// and deletion. CreateDistributionTenant with a CloudFront-managed
// certificate also asks ACM for the certificate on the caller's behalf
// (infra grants acm:RequestCertificate beside these).
var TenantActions = []string{
	"cloudfront:CreateDistributionTenant", "cloudfront:DeleteDistributionTenant", "cloudfront:GetDistributionTenant",
	"cloudfront:GetManagedCertificateDetails", "cloudfront:UpdateDistributionTenant",
}

// Build is a group's constructor.
type Build func(d Deps) Group

// CreatorTiers reads a group's setting naming the tiers that may create
// what the group holds (clubs, challenges): comma-separated tier names,
// premium,bookstore by default (spec: Other limits).
func CreatorTiers(env *config.Env, name string) []users.Tier {
	names := env.Tiers(name, config.DefaultCreatorTiers)
	out := make([]users.Tier, len(names))
	for i, n := range names {
		out[i] = users.Tier(n)
	}
	return out
}
