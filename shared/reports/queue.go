package reports

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"time"

	"github.com/bookplatform/backend/shared/apperr"
	"github.com/bookplatform/backend/shared/ids"
	"github.com/bookplatform/backend/shared/optimistic"
	"github.com/bookplatform/backend/shared/page"
	"github.com/bookplatform/backend/shared/text"
)

// The moderation queue (issue 22, the back office): operators list the
// reports by status, newest first, each with a summary of its target,
// and resolve an open one by dismissing it or by taking its content down.
// docs/decisions.md ("Moderation: the reports queue", "Moderation:
// takedowns") records the design.

// StatusResolved is a report's status once an operator resolved it.
const StatusResolved = "resolved"

// Statuses lists the report statuses, as the queue's filter names them.
var Statuses = []string{StatusOpen, StatusResolved}

// Resolutions: what an operator did about a report.
const (
	// ResolutionDismiss: nothing wrong was found; the content stays.
	ResolutionDismiss = "dismiss"
	// ResolutionTakedown: the content was taken down: it left every
	// public list and counter, answers 404 to everyone but its author,
	// and is kept with the reason. The target's other open reports are
	// resolved with it.
	ResolutionTakedown = "takedown"
)

// Resolutions lists the resolutions an operator may choose.
var Resolutions = []string{ResolutionDismiss, ResolutionTakedown}

// maxTakedownAttempts bounds the reads and writes of a takedown whose
// target keeps changing meanwhile.
const maxTakedownAttempts = 3

// MaxResolveReasonRunes bounds an operator's reason.
const MaxResolveReasonRunes = 1000

// Resolution is how and by whom a report was resolved.
type Resolution struct {
	Action     string
	Reason     string
	ResolvedAt time.Time
	ResolvedBy string
}

// Summary is what moderation is shown of a report's target beside the
// report: who wrote it and a short excerpt (a club: its name). Missing
// is a target no longer there: deleted since it was reported, or, with
// TakenDown, taken down by an operator (the summary is then its kept
// copy's).
type Summary struct {
	AuthorID  string
	Excerpt   string
	BookID    string
	Missing   bool
	TakenDown bool
}

// Queued is a report as the queue shows it: the report, its resolution
// (nil while open) and its target's summary.
type Queued struct {
	Report
	Resolution *Resolution
	Summary    Summary
}

// MaxExcerptRunes bounds a target's excerpt in the queue.
const MaxExcerptRunes = 200

// Excerpt shortens content to MaxExcerptRunes runes, an ellipsis marking
// a cut.
func Excerpt(s string) string {
	r := []rune(s)
	if len(r) <= MaxExcerptRunes {
		return s
	}
	return string(r[:MaxExcerptRunes-1]) + "…"
}

// ErrReportNotFound: no report has the id.
var ErrReportNotFound = apperr.NotFound("Report not found")

// ErrResolved: the report was resolved already; resolving is once.
var ErrResolved = apperr.Conflict("This report is resolved already")

// ErrTargetGone: a takedown of content that is no longer there (its
// author deleted it): there is nothing to take down; dismiss the report.
var ErrTargetGone = apperr.Conflict("The reported content no longer exists; dismiss the report instead")

// ErrTargetChanged: the reported content changed between its read and
// the takedown's transaction (an edit of a review's rating, a club made
// public); the takedown reads it again.
var ErrTargetChanged = errors.New("reported content changed during the takedown")

// QueueStorer is the storage of the moderation queue. Implementations
// return the errors named on each method wrapped with context.
type QueueStorer interface {
	// ListReports reads one page of the reports of status, newest first,
	// each with its target's summary.
	ListReports(ctx context.Context, status string, c page.Cursor) (page.Page[Queued], error)
	// GetReport reads a report by id with its target's summary. Errors:
	// ErrReportNotFound.
	GetReport(ctx context.Context, id string) (*Queued, error)
	// Dismiss resolves the open report q as res says, in one transaction
	// (the audit entry of ctx rides it). Errors: ErrResolved.
	Dismiss(ctx context.Context, q *Queued, res Resolution) error
	// TakeDown resolves the open report q by taking its target down, as
	// res says: in one transaction q is resolved, the target leaves its
	// lists and counters (as its author's delete removes it) and a copy
	// is kept for its author with the reason (the audit entry of ctx
	// rides it); then what hangs off the target (a line's replies and
	// likes, a review's likes, a club's members and reading list) is
	// removed and the target's other open reports are resolved alike. A
	// target taken down already resolves q alike. It returns the summary
	// of what was taken down. Errors: ErrResolved, ErrTargetGone,
	// ErrTargetChanged.
	TakeDown(ctx context.Context, q *Queued, res Resolution) (Summary, error)
}

// Queue is the operators' side of reports.
type Queue struct {
	store QueueStorer
	now   func() time.Time
}

// NewQueue returns the moderation queue's service.
func NewQueue(store QueueStorer, now func() time.Time) *Queue {
	if now == nil {
		now = time.Now
	}
	return &Queue{store: store, now: now}
}

// List reads a page of the reports of status ("" is open), newest first.
// Errors: ValidationError (status).
func (q *Queue) List(ctx context.Context, status string, c page.Cursor) (page.Page[Queued], error) {
	if status == "" {
		status = StatusOpen
	}
	if !slices.Contains(Statuses, status) {
		return page.Page[Queued]{}, apperr.Validation("status must be open or resolved", map[string]string{"status": "must be open or resolved"})
	}
	return q.store.ListReports(ctx, status, c)
}

// Get reads one report. An id that is no UUID names no report.
// Errors: ErrReportNotFound.
func (q *Queue) Get(ctx context.Context, id string) (*Queued, error) {
	id, ok := ids.Parse(id)
	if !ok {
		return nil, ErrReportNotFound
	}
	return q.store.GetReport(ctx, id)
}

// Check validates a resolution request before anything is read, so the
// handler starts its audit entry only for a valid one. Errors:
// ValidationError (action, reason).
func Check(action, reason string) (string, error) {
	var f apperr.Fields
	switch {
	case action == "":
		f.Add("action", "is required")
	case !slices.Contains(Resolutions, action):
		f.Add("action", "must be dismiss or takedown")
	}
	r, msg := text.Body(reason, MaxResolveReasonRunes)
	f.Add("reason", msg)
	return r, f.Err()
}

// Resolve resolves the open report id by actorID with action and reason
// (checked by Check). A takedown that lost to a concurrent change of its
// target reads the report and the target again, a bounded number of
// times. Errors: ErrReportNotFound, ErrResolved, ErrTargetGone,
// apperr.ErrContention.
func (q *Queue) Resolve(ctx context.Context, id, actorID, action, reason string) (*Queued, error) {
	r, err := q.Get(ctx, id)
	if err != nil {
		return nil, err
	}
	if r.Status != StatusOpen {
		return nil, ErrResolved
	}
	res := Resolution{Action: action, Reason: reason, ResolvedAt: q.now().UTC(), ResolvedBy: actorID}
	if action == ResolutionDismiss {
		if err := q.store.Dismiss(ctx, r, res); err != nil {
			return nil, fmt.Errorf("resolve report %s: %w", id, err)
		}
	} else {
		// Each attempt reads the target afresh (TakeDown).
		var sum Summary
		err := optimistic.Retry(maxTakedownAttempts, func(int) (err error) { sum, err = q.store.TakeDown(ctx, r, res); return err }, ErrTargetChanged)
		if err != nil {
			return nil, fmt.Errorf("take down the target of report %s: %w", id, err)
		}
		r.Summary = sum
	}
	r.Status, r.Resolution = StatusResolved, &res
	return r, nil
}
