package dynamo

import (
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/aws/retry"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/bookplatform/backend/shared/callstats"
	"github.com/bookplatform/backend/shared/storehost"
	"github.com/bookplatform/backend/shared/stores"
	"github.com/guregu/dynamo/v2"
)

// NewClient builds the DynamoDB client. The endpoint comes from the SDK's
// standard AWS_ENDPOINT_URL_DYNAMODB, so one binary runs against DynamoDB
// Local or AWS. Every call goes through callstats.Middleware: it is
// recorded for logs and benchmarks, with the capacity it consumed
// (capacity.go), and refused when the request may have no side effects.
func NewClient(cfg aws.Config) *dynamodb.Client {
	return dynamodb.NewFromConfig(cfg, func(o *dynamodb.Options) {
		// DynamoDB Local sends no CRC32 on error responses.
		o.DisableValidateResponseChecksum = true
		// Retry transactions cancelled only by a conflicting transaction
		// (concurrent sign-ups, likes); condition failures are not retried.
		// Every like of a popular line, and every line of a popular book,
		// updates one shared item: allow more than the default 3 attempts
		// before a conflict becomes apperr.ErrContention (tx.run).
		o.Retryer = retry.NewStandard(dynamo.RetryTxConflicts, func(so *retry.StandardOptions) { so.MaxAttempts = 8 })
		// consumedCapacity after callstats: it runs inside, so the call
		// callstats records carries the capacity it noted.
		o.APIOptions = append(o.APIOptions, callstats.Middleware("dynamodb", IAMActions), consumedCapacity)
	})
}

// table is what every store shares: the client, the one table and the
// clock.
type table struct {
	db    *dynamo.DB
	table dynamo.Table
	now   func() time.Time
	// client and name serve the few calls guregu/dynamo cannot express
	// (an update that returns the old item when its condition fails).
	client *dynamodb.Client
	name   string
}

// put, update and del start a write of one item of the table.
func (t *table) put(item any) *dynamo.Put { return t.table.Put(item) }
func (t *table) update(k Key) *dynamo.Update {
	return t.table.Update(AttrPK, k.PK).Range(AttrSK, k.SK)
}
func (t *table) del(k Key) *dynamo.Delete { return t.table.Delete(AttrPK, k.PK).Range(AttrSK, k.SK) }

// check starts a condition on one item inside a transaction.
func (t *table) check(k Key) *dynamo.ConditionCheck {
	return t.table.Check(AttrPK, k.PK).Range(AttrSK, k.SK)
}

// get reads one item by key.
func (t *table) get(k Key) *dynamo.Query {
	return t.table.Get(AttrPK, k.PK).Range(AttrSK, dynamo.Equal, k.SK)
}

// Handle is the one table as every group's function holds it: the
// client, the table's name and the clock. A group builds the stores it
// needs from it (NewClubs(h), NewFollows(h), ...) in its own constructor,
// so a new aggregate adds its store's constructor beside its store and
// nothing to a list every function builds. A zero Now is the wall clock.
type Handle struct {
	DB    *dynamodb.Client
	Table string
	Now   func() time.Time
}

// table is the handle as the stores use it. Building one is a few
// allocations (guregu/dynamo wraps the client, it opens nothing).
func (h Handle) table() *table {
	now := h.Now
	if now == nil {
		now = time.Now
	}
	db := dynamo.NewFromIface(h.DB)
	return &table{db: db, table: db.Table(h.Table), now: now, client: h.DB, name: h.Table}
}

// One constructor per store, each the Storer (or narrower reader) its
// domain declares.

func NewUsers(h Handle) *Users             { return &Users{h.table()} }
func NewSessions(h Handle) *Sessions       { return &Sessions{h.table()} }
func NewAttempts(h Handle) *Attempts       { return &Attempts{h.table()} }
func NewBooks(h Handle) *Books             { return &Books{h.table()} }
func NewClubs(h Handle) *Clubs             { return &Clubs{h.table()} }
func NewChallenges(h Handle) *Challenges   { return &Challenges{h.table()} }
func NewBriefs(h Handle) *Briefs           { return &Briefs{h.table()} }
func NewCounters(h Handle) *Counters       { return &Counters{h.table()} }
func NewIdempotency(h Handle) *Idempotency { return &Idempotency{h.table()} }
func NewWishlists(h Handle) *Wishlists     { return &Wishlists{h.table()} }
func NewFollows(h Handle) *Follows         { return &Follows{h.table()} }
func NewNotes(h Handle) *Notes             { return &Notes{h.table()} }
func NewReports(h Handle) *Reports         { return &Reports{h.table()} }
func NewBookstores(h Handle) *Bookstores   { return &Bookstores{h.table()} }
func NewOutbox(h Handle) *Outbox           { return &Outbox{h.table()} }

// NewStoreHosts is the seam between the community features that refer
// to stores (clubs, challenges, follows) and the stores domain, over the
// table: the one way it is built (storehost).
func NewStoreHosts(h Handle) storehost.Directory {
	return stores.NewHosts(NewBookstores(h), NewUsers(h))
}

// NewLines and NewReviews are the posts' stores, each with its likes.
func NewLines(h Handle) *Lines {
	t := h.table()
	return &Lines{t, likeStore{t, linesLikeTarget}}
}
func NewReviews(h Handle) *Reviews {
	t := h.table()
	return &Reviews{t, likeStore{t, reviewsLikeTarget}}
}
