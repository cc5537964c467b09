package dynamo

import (
	"context"
	"errors"
	"fmt"
	"sync"
	"time"

	"github.com/bookplatform/backend/shared/clubs"
	"github.com/bookplatform/backend/shared/lines"
	"github.com/bookplatform/backend/shared/page"
	"github.com/bookplatform/backend/shared/reports"
	"github.com/bookplatform/backend/shared/reviews"
	"github.com/guregu/dynamo/v2"
	"golang.org/x/sync/errgroup"
)

// Reports stores reports for moderation.
type Reports struct{ t *table }

var _ reports.Storer = (*Reports)(nil)

// reportItem is a report as stored (ReportKey), queued on GSI1 by status
// (reportQueue) and found by its id on GSI2 (reportByID). A resolved
// report moves to its status's queue and keeps its resolution.
type reportItem struct {
	PK         string    `dynamo:"PK"`
	SK         string    `dynamo:"SK"`
	GSI1PK     string    `dynamo:"GSI1PK"`
	GSI1SK     string    `dynamo:"GSI1SK"`
	GSI2PK     string    `dynamo:"GSI2PK,omitempty"`
	GSI2SK     string    `dynamo:"GSI2SK,omitempty"`
	Type       string    `dynamo:"type"`
	ID         string    `dynamo:"id"`
	ReporterID string    `dynamo:"reporterId"`
	TargetType string    `dynamo:"targetType"`
	TargetID   string    `dynamo:"targetId"`
	LineID     string    `dynamo:"lineId,omitempty"`
	Reason     string    `dynamo:"reason"`
	Status     string    `dynamo:"status"`
	CreatedAt  time.Time `dynamo:"createdAt"`
	// The resolution, once resolved.
	Resolution    string     `dynamo:"resolution,omitempty"`
	ResolveReason string     `dynamo:"resolveReason,omitempty"`
	ResolvedAt    *time.Time `dynamo:"resolvedAt,omitempty"`
	ResolvedBy    string     `dynamo:"resolvedBy,omitempty"`
}

// reportedItem is what a report checks of its target: the target's key,
// the attribute naming its author (a club's is its host) and the error
// meaning it is missing.
func reportedItem(t reports.Target) (k Key, author string, notFound error) {
	switch t.Type {
	case reports.TargetReply:
		return ReplyKey(t.LineID, t.ID), "userId", lines.ErrReplyNotFound
	case reports.TargetReview:
		return ReviewKey(t.ID), "userId", reviews.ErrNotFound
	case reports.TargetClub:
		return ClubKey(t.ID), "hostId", clubs.ErrNotFound
	default:
		return LineKey(t.ID), "userId", lines.ErrNotFound
	}
}

// CreateReport puts the report (absent: one per reporter and target) in
// one TransactWriteItems with a condition check that the target exists
// and is not the reporter's own. Only when that check fails is the target
// read, to tell a missing target (404) from one's own (400). Errors: the
// target's not-found error, reports.ErrOwnContent,
// reports.ErrAlreadyReported.
func (s *Reports) CreateReport(ctx context.Context, r *reports.Report) error {
	k := ReportKey(r.Target, r.ReporterID)
	q := reportQueue(r.Status)
	byID := reportByID(r.ID)
	it := reportItem{
		PK: k.PK, SK: k.SK, GSI1PK: q.pk, GSI1SK: timeIDKey(r.CreatedAt, r.ID), GSI2PK: byID.PK, GSI2SK: byID.SK, Type: typeReport,
		ID: r.ID, ReporterID: r.ReporterID, TargetType: string(r.Target.Type), TargetID: r.Target.ID,
		LineID: r.Target.LineID, Reason: r.Reason, Status: r.Status, CreatedAt: r.CreatedAt.UTC(),
	}
	errRefused := errors.New("target missing or the reporter's own")
	target, authorAttr, notFound := reportedItem(r.Target)
	err := s.t.tx().
		check(s.t.check(target).If("attribute_exists(PK) AND $ <> ?", authorAttr, r.ReporterID), errRefused).
		put(s.t.put(it).If("attribute_not_exists(PK)"), reports.ErrAlreadyReported).
		run(ctx)
	if errors.Is(err, errRefused) {
		var author map[string]any
		err := s.t.get(target).Project(authorAttr).Consistent(true).One(ctx, &author)
		switch {
		case errors.Is(err, dynamo.ErrNotFound):
			return fmt.Errorf("report %s %s: %w", r.Target.Type, r.Target.ID, notFound)
		case err != nil:
			return fmt.Errorf("read reported %s %s: %w", r.Target.Type, r.Target.ID, err)
		}
		return fmt.Errorf("report %s %s: %w", r.Target.Type, r.Target.ID, reports.ErrOwnContent)
	}
	if err != nil {
		return fmt.Errorf("report %s %s: %w", r.Target.Type, r.Target.ID, err)
	}
	return nil
}

var _ reports.QueueStorer = (*Reports)(nil)

func (it reportItem) toQueued() reports.Queued {
	q := reports.Queued{Report: reports.Report{
		ID: it.ID, ReporterID: it.ReporterID, Reason: it.Reason, Status: it.Status, CreatedAt: it.CreatedAt,
		Target: reports.Target{Type: reports.TargetType(it.TargetType), ID: it.TargetID, LineID: it.LineID},
	}}
	if it.ResolvedAt != nil {
		q.Resolution = &reports.Resolution{Action: it.Resolution, Reason: it.ResolveReason, ResolvedAt: *it.ResolvedAt, ResolvedBy: it.ResolvedBy}
	}
	return q
}

// ListReports reads a page of the queue of status, newest first, and the
// summary of each report's target (summarize).
func (s *Reports) ListReports(ctx context.Context, status string, c page.Cursor) (page.Page[reports.Queued], error) {
	p, err := queryMapped(ctx, s.t, reportQueue(status), c, reportItem.toQueued)
	if err != nil {
		return p, err
	}
	if err := s.summarize(ctx, p.Items); err != nil {
		return page.Page[reports.Queued]{}, err
	}
	return p, nil
}

// GetReport reads the report by its id on GSI2, which holds the whole
// item: one round trip, then its target's. An index read trails a write
// by a moment, so a resolution made an instant before may not show yet;
// Dismiss conditions on the status itself, so a stale read never
// resolves a report twice.
func (s *Reports) GetReport(ctx context.Context, id string) (*reports.Queued, error) {
	k := reportByID(id)
	var found []reportItem
	err := s.t.table.Get(AttrGSI2PK, k.PK).Index(GSI2.Name).Range(AttrGSI2SK, dynamo.Equal, k.SK).Limit(1).All(ctx, &found)
	if err != nil {
		return nil, fmt.Errorf("get report %s: %w", id, err)
	}
	if len(found) == 0 {
		return nil, fmt.Errorf("get report %s: %w", id, reports.ErrReportNotFound)
	}
	items := []reports.Queued{found[0].toQueued()}
	if err := s.summarize(ctx, items); err != nil {
		return nil, err
	}
	return &items[0], nil
}

// Dismiss moves the open report to the resolved queue with its
// resolution, in one transaction that the request's audit entry rides.
// The condition on its status makes resolving once: a second operator
// resolving it at the same time gets reports.ErrResolved.
func (s *Reports) Dismiss(ctx context.Context, q *reports.Queued, res reports.Resolution) error {
	k := ReportKey(q.Target, q.ReporterID)
	upd := s.t.update(k).
		Set("status", reports.StatusResolved).Set(AttrGSI1PK, reportQueue(reports.StatusResolved).pk).
		Set("resolution", res.Action).Set("resolveReason", res.Reason).
		Set("resolvedAt", res.ResolvedAt.UTC()).Set("resolvedBy", res.ResolvedBy).
		If("attribute_exists(PK) AND $ = ?", "status", reports.StatusOpen)
	return s.t.tx().update(upd, reports.ErrResolved).run(ctx)
}

// targetSummaryItem is what the queue reads of a target: the attributes
// of a line, a reply, a review or a club that summarize it.
type targetSummaryItem struct {
	UserID  string `dynamo:"userId"`
	HostID  string `dynamo:"hostId"`
	BookID  string `dynamo:"bookId"`
	Content string `dynamo:"content"`
	Name    string `dynamo:"name"`
}

// summarize reads the target of each report (one GetItem each, at most a
// page's worth in flight, each target once) and fills its summary. A
// target no longer there is marked Missing; if an operator took it down,
// its kept copy is read (one more GetItem, for such targets alone) and
// summarized instead, marked TakenDown.
func (s *Reports) summarize(ctx context.Context, qs []reports.Queued) error {
	byTarget := map[reports.Target]reports.Summary{}
	for _, q := range qs {
		byTarget[q.Target] = reports.Summary{}
	}
	var (
		mu sync.Mutex
		g  errgroup.Group
	)
	g.SetLimit(16)
	for tgt := range byTarget {
		g.Go(func() error {
			sum, err := s.summaryOf(ctx, tgt)
			if err != nil {
				return err
			}
			mu.Lock()
			byTarget[tgt] = sum
			mu.Unlock()
			return nil
		})
	}
	if err := g.Wait(); err != nil {
		return err
	}
	for i := range qs {
		qs[i].Summary = byTarget[qs[i].Target]
	}
	return nil
}

// summaryOf reads what the queue shows of one target.
func (s *Reports) summaryOf(ctx context.Context, tgt reports.Target) (reports.Summary, error) {
	k, _, _ := reportedItem(tgt)
	var it targetSummaryItem
	err := s.t.get(k).Project("userId", "hostId", "bookId", "content", "name").One(ctx, &it)
	if errors.Is(err, dynamo.ErrNotFound) {
		var keep takedownItem
		err := s.t.get(TakedownKey(tgt)).One(ctx, &keep)
		if errors.Is(err, dynamo.ErrNotFound) {
			return reports.Summary{Missing: true}, nil
		}
		if err != nil {
			return reports.Summary{}, fmt.Errorf("read taken-down %s %s: %w", tgt.Type, tgt.ID, err)
		}
		return keep.summary(), nil
	}
	if err != nil {
		return reports.Summary{}, fmt.Errorf("read reported %s %s: %w", tgt.Type, tgt.ID, err)
	}
	sum := reports.Summary{AuthorID: it.UserID, BookID: it.BookID, Excerpt: reports.Excerpt(it.Content)}
	if tgt.Type == reports.TargetClub {
		sum.AuthorID, sum.Excerpt = it.HostID, reports.Excerpt(it.Name)
	}
	return sum, nil
}
