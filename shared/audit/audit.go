// Package audit is the back office's append-only record of what
// operators did: one Entry per operator action (who, when, what, on
// what, why), written in the same DynamoDB transaction as the action,
// so an action without its entry, or an entry without its action,
// cannot be stored (docs/decisions.md, "Audit entries ride the
// action's transaction").
//
// How an entry reaches the transaction: the back office's handler puts
// the entry in the request's context (With) before it calls the service
// that does the action; the storage layer's transaction (shared/dynamo,
// tx.run) adds the entry's Put to the first transaction it runs with
// that context and marks it written once that transaction commits. No
// service signature changes to carry it, and a service cannot forget it.
// An action that commits no transaction (none does today) has its entry
// written on its own after the handler succeeded, marked Apart, and a
// test over every operator route fails on it.
//
// The package imports no AWS and no HTTP package.
package audit

import (
	"context"
	"sync/atomic"
	"time"
)

// Actions: what an operator did, as entries and the audit filter name it.
// Each back-office route that changes something names one.
const (
	ActionUserTier        = "user.tier"        // PUT /v1/admin/users/{userId}/tier
	ActionUserOperator    = "user.operator"    // grant or revoke the operator role
	ActionUserSuspend     = "user.suspend"     // suspend an account
	ActionUserRestore     = "user.restore"     // restore a suspended account
	ActionRateLimitsReset = "user.rate_limits" // DELETE /v1/admin/users/{userId}/rate-limits
	ActionReportDismiss   = "report.dismiss"   // resolve a report, content kept
	ActionReportTakedown  = "report.takedown"  // resolve a report by taking its content down
	ActionContentRestore  = "content.restore"  // bring taken-down content back
	ActionApplicationOK   = "application.approve"
	ActionApplicationNo   = "application.decline"
	ActionPayoutPaid      = "payout.paid"  // an affiliate commission or pool payout marked paid
	ActionOrderRefund     = "order.refund" // a refund after delivery
)

// Target types: what an entry is about.
const (
	TargetUser        = "user"
	TargetReport      = "report"
	TargetLine        = "line"
	TargetReply       = "reply"
	TargetReview      = "review"
	TargetClub        = "club"
	TargetApplication = "bookstore_application"
	TargetPayout      = "payout"
	TargetOrder       = "order"
)

// ActorCLI prefixes the actor of an entry written by an operator's
// command against the table (the first operator's bootstrap), not by a
// signed-in operator: "cli:" and the name the command was given (the
// AWS caller's ARN, or the local user's name).
const ActorCLI = "cli:"

// Entry is one audit record. Entries are never changed or deleted.
type Entry struct {
	ID         string    // a UUID, set by With when empty
	At         time.Time // when the action was taken, set by With when zero
	ActorID    string    // the operator's user id, or ActorCLI + name
	Action     string    // one of the Action constants
	TargetType string    // one of the Target constants
	TargetID   string
	Reason     string            // the operator's reason, as given (may be empty)
	Detail     map[string]string // what changed, e.g. {"from":"free","to":"premium"}
	// Apart: written on its own after the action, not in its
	// transaction (see the package comment): a defect a test catches.
	Apart bool
}

// Record is an entry waiting for the transaction of its action.
type Record struct {
	Entry   Entry
	written atomic.Bool
}

// Written reports whether the entry has been stored.
func (r *Record) Written() bool { return r != nil && r.written.Load() }

// MarkWritten records that the entry has been stored: the storage layer
// calls it once the transaction that carried it committed.
func (r *Record) MarkWritten() { r.written.Store(true) }

type ctxKey struct{}

// With returns a context carrying e for the action's transaction, and
// the record to check afterwards. now and newID fill At and ID when they
// are unset.
func With(ctx context.Context, e Entry, now time.Time, newID func() string) (context.Context, *Record) {
	if e.At.IsZero() {
		e.At = now.UTC()
	}
	if e.ID == "" {
		e.ID = newID()
	}
	r := &Record{Entry: e}
	return context.WithValue(ctx, ctxKey{}, r), r
}

// Pending is the entry ctx carries that no transaction has stored yet,
// nil when none.
func Pending(ctx context.Context) *Record {
	r, _ := ctx.Value(ctxKey{}).(*Record)
	if r == nil || r.Written() {
		return nil
	}
	return r
}

// Note adds key: value to the detail of the entry ctx carries while no
// transaction has stored it yet: what an action learns as it runs (the
// content a report's takedown removed) is recorded with it. Without a
// pending entry it does nothing.
func Note(ctx context.Context, key, value string) {
	r := Pending(ctx)
	if r == nil {
		return
	}
	if r.Entry.Detail == nil {
		r.Entry.Detail = map[string]string{}
	}
	r.Entry.Detail[key] = value
}
