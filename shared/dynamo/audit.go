package dynamo

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"time"

	"github.com/bookplatform/backend/shared/audit"
	"github.com/bookplatform/backend/shared/page"
)

// The audit log (shared/audit): one item per operator action, put in the
// transaction of the action (tx.run adds it from the request's context)
// and never changed. Keys (docs/data-model.md):
//
//   - AuditKey: one partition, "AUDIT", sorted by time then id, so the
//     whole log reads newest first and a time filter is a key range.
//     Operator actions are a few a minute at most: one partition takes
//     them with room to spare.
//   - GSI1: AUDITBY#<actorId>, the same sort: one operator's actions.
//   - GSI2: AUDITON#<targetType>#<targetId>, the same sort: what was done
//     to one user, report, line, order...
const (
	auditPK       = "AUDIT"
	auditByPrefix = "AUDITBY#"
	auditOnPrefix = "AUDITON#"
	typeAudit     = "AuditEntry"
)

// AuditKey is the item of one audit entry.
func AuditKey(at time.Time, id string) Key { return Key{auditPK, auditSort(at, id)} }

// auditSort orders entries by time (fixed-width UTC, so strings sort as
// times do), then id for entries of the same instant.
func auditSort(at time.Time, id string) string {
	return at.UTC().Format("2006-01-02T15:04:05.000000000Z") + "#" + id
}

// auditItem is an audit entry as stored.
type auditItem struct {
	PK         string            `dynamo:"PK"`
	SK         string            `dynamo:"SK"`
	Type       string            `dynamo:"type"`
	GSI1PK     string            `dynamo:"GSI1PK"`
	GSI1SK     string            `dynamo:"GSI1SK"`
	GSI2PK     string            `dynamo:"GSI2PK"`
	GSI2SK     string            `dynamo:"GSI2SK"`
	ID         string            `dynamo:"id"`
	At         time.Time         `dynamo:"at"`
	ActorID    string            `dynamo:"actorId"`
	Action     string            `dynamo:"action"`
	TargetType string            `dynamo:"targetType"`
	TargetID   string            `dynamo:"targetId"`
	Reason     string            `dynamo:"reason,omitempty"`
	Detail     map[string]string `dynamo:"detail,omitempty"`
	Apart      bool              `dynamo:"apart,omitempty"`
}

func newAuditItem(e audit.Entry) auditItem {
	k, sk := AuditKey(e.At, e.ID), auditSort(e.At, e.ID)
	return auditItem{
		PK: k.PK, SK: k.SK, Type: typeAudit,
		GSI1PK: auditByPrefix + e.ActorID, GSI1SK: sk,
		GSI2PK: auditOnPrefix + e.TargetType + "#" + e.TargetID, GSI2SK: sk,
		ID: e.ID, At: e.At.UTC(), ActorID: e.ActorID, Action: e.Action,
		TargetType: e.TargetType, TargetID: e.TargetID, Reason: e.Reason, Detail: e.Detail, Apart: e.Apart,
	}
}

func (it auditItem) toEntry() audit.Entry {
	return audit.Entry{ID: it.ID, At: it.At, ActorID: it.ActorID, Action: it.Action,
		TargetType: it.TargetType, TargetID: it.TargetID, Reason: it.Reason, Detail: it.Detail, Apart: it.Apart}
}

// errAuditIDTaken is an audit entry whose key exists: ids are random
// UUIDs, so only a bug (the same record put twice) reaches it.
var errAuditIDTaken = errors.New("an audit entry with this id exists")

// withAudit adds the entry the context carries, if one is pending, to
// the transaction (tx.run): put only if absent. It returns the record to
// mark written once the transaction commits.
func (x *tx) withAudit(ctx context.Context) *audit.Record {
	rec := audit.Pending(ctx)
	if rec == nil {
		return nil
	}
	x.wtx.Put(x.t.put(newAuditItem(rec.Entry)).If("attribute_not_exists(PK)"))
	x.add(errAuditIDTaken)
	return rec
}

// Audit is the audit log's storage beyond the transactions that write
// it: the entry written apart, and the operators' reads.
type Audit struct{ t *table }

// NewAudit is the audit log's storage.
func NewAudit(h Handle) *Audit { return &Audit{h.table()} }

// PutApart writes an entry no transaction carried (audit.Entry.Apart),
// put only if absent: the back office's last resort, after an action
// that committed no transaction.
func (a *Audit) PutApart(ctx context.Context, rec *audit.Record) error {
	e := rec.Entry
	e.Apart = true
	err := a.t.put(newAuditItem(e)).If("attribute_not_exists(PK)").Run(ctx)
	if err != nil && !isConditionFailed(err) {
		return fmt.Errorf("audit entry %s apart: %w", e.ID, err)
	}
	rec.MarkWritten()
	return nil
}

// AuditFilter narrows a read of the audit log. ActorID reads GSI1,
// else TargetType and TargetID (both) read GSI2, else the log's
// partition; the other fields filter what that list holds. From and To
// (inclusive, zero for open) bound the sort key, so a time range costs
// only its entries.
type AuditFilter struct {
	ActorID              string
	TargetType, TargetID string
	Action               string
	From, To             time.Time
}

// ListAudit reads a page of the audit log, newest first. Index reads
// are eventually consistent; the log's own partition is read strongly.
// Errors: page.ErrInvalidCursor.
func (a *Audit) ListAudit(ctx context.Context, f AuditFilter, c page.Cursor) (page.Page[audit.Entry], error) {
	l := list{index: Primary, pk: auditPK, desc: true, consistent: true}
	var conds []string
	var args []any
	switch {
	case f.ActorID != "":
		l = list{index: GSI1, pk: auditByPrefix + f.ActorID, desc: true}
		if f.TargetType != "" {
			conds, args = append(conds, "targetType = ?"), append(args, f.TargetType)
		}
		if f.TargetID != "" {
			conds, args = append(conds, "targetId = ?"), append(args, f.TargetID)
		}
	case f.TargetID != "":
		l = list{index: GSI2, pk: auditOnPrefix + f.TargetType + "#" + f.TargetID, desc: true}
	case f.TargetType != "":
		conds, args = append(conds, "targetType = ?"), append(args, f.TargetType)
	}
	if f.Action != "" {
		conds, args = append(conds, "#action = ?"), append(args, f.Action)
	}
	if len(conds) > 0 {
		// "action" is a DynamoDB reserved word: named by placeholder.
		l.filter, l.filterArgs = strings.ReplaceAll(strings.Join(conds, " AND "), "#action", "$"), args
		if f.Action != "" {
			l.filterArgs = placeAction(conds, args)
		}
	}
	if !f.From.IsZero() || !f.To.IsZero() {
		l.from, l.to = auditSort(f.From, ""), "9999"
		if f.From.IsZero() {
			l.from = "0"
		}
		if !f.To.IsZero() {
			l.to = auditSort(f.To, "~")
		}
	}
	return queryMapped(ctx, a.t, l, c, auditItem.toEntry)
}

// placeAction puts the attribute name "action" before its value in the
// filter's arguments, where the "$" placeholder of ListAudit stands.
func placeAction(conds []string, args []any) []any {
	out := make([]any, 0, len(args)+1)
	for i, c := range conds {
		if strings.HasPrefix(c, "#action") {
			out = append(out, "action")
		}
		out = append(out, args[i])
	}
	return out
}
