package dynamo

import (
	"context"
	"errors"
	"fmt"

	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"
	"github.com/bookplatform/backend/shared/apperr"
	"github.com/bookplatform/backend/shared/events"
	"github.com/guregu/dynamo/v2"
)

// tx is one TransactWriteItems in which every conditional item names the
// error its failed condition means, so a transaction reads as what it
// does and what can refuse it:
//
//	err := t.tx().
//		put(t.put(line).If("attribute_not_exists(PK)"), errLineIDTaken).
//		update(bookCounter.If("attribute_exists(PK)"), books.ErrNotFound).
//		update(quotaCharge, quota.ErrStale).
//		run(ctx)
//
// Nothing reads cancellation reasons by position anywhere else.
type tx struct {
	t    *table
	wtx  *dynamo.WriteTx
	errs []error // one per item, in order; nil for an unconditional item
}

// tx starts a transaction on the table. It carries a client request
// token (Idempotent): every attempt the SDK makes sends the same one, so
// a retry of a transaction that committed but whose answer was lost
// succeeds as the commit it repeats (within DynamoDB's 10 minutes)
// instead of failing its own conditions and being reported as a refusal.
// The DynamoDB client fills a token in when none is given; naming it here
// keeps that true whatever the client's options.
func (t *table) tx() *tx { return &tx{t: t, wtx: t.db.WriteTx().Idempotent(true)} }

// put adds a put; onFail is what its condition failing means.
func (x *tx) put(p *dynamo.Put, onFail error) *tx {
	x.wtx.Put(p)
	return x.add(onFail)
}

// update adds an update; onFail is what its condition failing means.
func (x *tx) update(u *dynamo.Update, onFail error) *tx {
	x.wtx.Update(u)
	return x.add(onFail)
}

// delete adds a delete; onFail is what its condition failing means.
func (x *tx) delete(d *dynamo.Delete, onFail error) *tx {
	x.wtx.Delete(d)
	return x.add(onFail)
}

// check adds a condition on an item the transaction does not change (a
// membership that allows a post); onFail is what its failing means.
func (x *tx) check(c *dynamo.ConditionCheck, onFail error) *tx {
	x.wtx.Check(c)
	return x.add(onFail)
}

// emit records ev in the outbox as part of the transaction: its own item
// (EventKey), put only if no event has its id, so the event commits if
// and only if the change does (outbox.go; shared/relay delivers it).
// Every change that emits an event does it this way, but for the one
// change that is no transaction, a bulk creation of books (putEvents).
func (x *tx) emit(ev events.Event) *tx {
	it, err := newOutboxItem(ev)
	if err != nil {
		// The envelope is the service's own value: it always encodes.
		panic("dynamo: " + err.Error())
	}
	x.wtx.Put(x.t.put(it).If("attribute_not_exists(PK)"))
	return x.add(errEventIDTaken)
}

func (x *tx) add(onFail error) *tx {
	x.errs = append(x.errs, onFail)
	return x
}

// len is the number of items so far (DynamoDB takes 100 at most).
func (x *tx) len() int { return len(x.errs) }

// errUnexpectedCondition is a failed condition nobody named: a bug.
var errUnexpectedCondition = errors.New("a transaction item without a named failure failed its condition")

// run runs the transaction. When it is cancelled because conditions
// failed, run returns the error named for the first failed item, in the
// order the items were added: add the items whose failure should be
// reported first (the resource that is missing) before the others (a
// counter's limit). A transaction that kept losing to concurrent
// transactions after the client's retries is apperr.ErrContention.
//
// A request of the back office carries its audit entry in ctx
// (shared/audit): the first transaction run with it adds the entry's Put
// and marks it written when it commits (audit.go, withAudit).
func (x *tx) run(ctx context.Context) error {
	rec := x.withAudit(ctx)
	err := x.wtx.Run(ctx)
	if err == nil && rec != nil {
		rec.MarkWritten()
	}
	var txe *types.TransactionCanceledException
	if !errors.As(err, &txe) {
		return err
	}
	conflict := false
	for i, r := range txe.CancellationReasons {
		switch code := deref(r.Code); code {
		case "ConditionalCheckFailed":
			if i < len(x.errs) && x.errs[i] != nil {
				return x.errs[i]
			}
			return fmt.Errorf("item %d: %w: %w", i, errUnexpectedCondition, err)
		case "TransactionConflict":
			conflict = true
		}
	}
	if conflict {
		return fmt.Errorf("%w: %w", apperr.ErrContention, err)
	}
	return err
}

func deref(s *string) string {
	if s == nil {
		return ""
	}
	return *s
}
