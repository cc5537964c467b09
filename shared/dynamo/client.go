package dynamo

import (
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/aws/retry"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/bookplatform/backend/shared/callstats"
	"github.com/guregu/dynamo/v2"
)

// NewClient builds the DynamoDB client. The endpoint comes from the SDK's
// standard AWS_ENDPOINT_URL_DYNAMODB, so one binary runs against DynamoDB
// Local or AWS. Every call goes through callstats.Middleware: it is
// recorded for logs and benchmarks, and refused when the request may have
// no side effects.
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
		o.APIOptions = append(o.APIOptions, callstats.Middleware("dynamodb", IAMActions))
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

// Stores are the stores of the one table, one per aggregate. Each
// implements the Storer (or the narrower reader) its domain declares.
type Stores struct {
	Users       *Users
	Sessions    *Sessions
	Attempts    *Attempts
	Books       *Books
	Lines       *Lines
	Reviews     *Reviews
	Clubs       *Clubs
	Challenges  *Challenges
	Briefs      *Briefs
	Counters    *Counters
	Idempotency *Idempotency
	Wishlists   *Wishlists
	Follows     *Follows
	Notes       *Notes
	Reports     *Reports
	Bookstores  *Bookstores
	Outbox      *Outbox
}

// NewStores returns the stores over the named table; now may be nil for
// the wall clock.
func NewStores(client *dynamodb.Client, tableName string, now func() time.Time) Stores {
	if now == nil {
		now = time.Now
	}
	db := dynamo.NewFromIface(client)
	t := &table{db: db, table: db.Table(tableName), now: now, client: client, name: tableName}
	return Stores{
		Users:       &Users{t},
		Sessions:    &Sessions{t},
		Attempts:    &Attempts{t},
		Books:       &Books{t},
		Lines:       &Lines{t, likeStore{t, linesLikeTarget}},
		Reviews:     &Reviews{t, likeStore{t, reviewsLikeTarget}},
		Clubs:       &Clubs{t},
		Challenges:  &Challenges{t},
		Briefs:      &Briefs{t},
		Counters:    &Counters{t},
		Idempotency: &Idempotency{t},
		Wishlists:   &Wishlists{t},
		Follows:     &Follows{t},
		Notes:       &Notes{t},
		Reports:     &Reports{t},
		Bookstores:  &Bookstores{t},
		Outbox:      &Outbox{t},
	}
}
