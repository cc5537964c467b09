package dynamo

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"time"

	"github.com/bookplatform/backend/shared/audit"
	"github.com/bookplatform/backend/shared/clubs"
	"github.com/bookplatform/backend/shared/lines"
	"github.com/bookplatform/backend/shared/page"
	"github.com/bookplatform/backend/shared/posts"
	"github.com/bookplatform/backend/shared/reports"
	"github.com/bookplatform/backend/shared/reviews"
	"github.com/guregu/dynamo/v2"
	"golang.org/x/sync/errgroup"
)

// Takedowns (the back office's moderation; docs/decisions.md
// "Moderation: takedowns"). An operator resolving a report by taking its
// target down removes the target exactly as its author's delete does
// (lineDeletion, replyDeletion, reviewDeletion, clubDeletion): it leaves
// every list and counter, and every route that reads it answers 404
// without knowing about moderation. What the author still reads is a
// copy kept beside it (takedownItem), looked up only after a signed-in
// reader found nothing at the target's key.

// takedownItem is content an operator took down, kept for its author
// (TakedownKey): the item as it was when taken down, under the
// attribute of its type, and the takedown; listed on GSI1 under its
// author, most recent first (takenDownBy).
type takedownItem struct {
	PK         string      `dynamo:"PK"`
	SK         string      `dynamo:"SK"`
	GSI1PK     string      `dynamo:"GSI1PK"`
	GSI1SK     string      `dynamo:"GSI1SK"`
	Type       string      `dynamo:"type"`
	TargetType string      `dynamo:"targetType"`
	TargetID   string      `dynamo:"targetId"`
	LineID     string      `dynamo:"lineId,omitempty"`
	AuthorID   string      `dynamo:"authorId"`
	ReportID   string      `dynamo:"reportId"`
	Reason     string      `dynamo:"reason"`
	By         string      `dynamo:"by"`
	At         time.Time   `dynamo:"at"`
	Line       *lineItem   `dynamo:"line,omitempty"`
	Reply      *replyItem  `dynamo:"reply,omitempty"`
	Review     *reviewItem `dynamo:"review,omitempty"`
	Club       *clubItem   `dynamo:"club,omitempty"`
}

func (it takedownItem) marker() *posts.TakenDown {
	return &posts.TakenDown{Reason: it.Reason, At: it.At}
}

// takenDown reads the copy of the content at the target t, consistently.
// Errors: notFound.
func (t *table) takenDown(ctx context.Context, target reports.Target, notFound error) (*takedownItem, error) {
	var it takedownItem
	err := t.get(TakedownKey(target)).Consistent(true).One(ctx, &it)
	if errors.Is(err, dynamo.ErrNotFound) {
		return nil, fmt.Errorf("taken-down %s %s: %w", target.Type, target.ID, notFound)
	}
	if err != nil {
		return nil, fmt.Errorf("get taken-down %s %s: %w", target.Type, target.ID, err)
	}
	return &it, nil
}

// TakenDownLine reads a line an operator took down and the takedown.
// Errors: lines.ErrNotFound.
func (s *Lines) TakenDownLine(ctx context.Context, id string) (*lines.Line, *posts.TakenDown, error) {
	it, err := s.t.takenDown(ctx, reports.Target{Type: reports.TargetLine, ID: id}, lines.ErrNotFound)
	if err != nil {
		return nil, nil, err
	}
	if it.Line == nil {
		return nil, nil, fmt.Errorf("taken-down line %s holds no line", id)
	}
	return it.Line.toLine(), it.marker(), nil
}

// TakenDownReview reads a review an operator took down and the
// takedown. Errors: reviews.ErrNotFound.
func (s *Reviews) TakenDownReview(ctx context.Context, id string) (*reviews.Review, *posts.TakenDown, error) {
	it, err := s.t.takenDown(ctx, reports.Target{Type: reports.TargetReview, ID: id}, reviews.ErrNotFound)
	if err != nil {
		return nil, nil, err
	}
	if it.Review == nil {
		return nil, nil, fmt.Errorf("taken-down review %s holds no review", id)
	}
	return it.Review.toReview(), it.marker(), nil
}

// TakenDownClub reads a club an operator took down and the takedown.
// Errors: clubs.ErrNotFound.
func (s *Clubs) TakenDownClub(ctx context.Context, id string) (*clubs.Club, *posts.TakenDown, error) {
	it, err := s.t.takenDown(ctx, reports.Target{Type: reports.TargetClub, ID: id}, clubs.ErrNotFound)
	if err != nil {
		return nil, nil, err
	}
	if it.Club == nil {
		return nil, nil, fmt.Errorf("taken-down club %s holds no club", id)
	}
	return it.Club.toClub(), it.marker(), nil
}

// ListTakenDown reads a page of authorID's content taken down, most
// recent first (GSI1).
func (s *Reports) ListTakenDown(ctx context.Context, authorID string, c page.Cursor) (page.Page[reports.TakenDown], error) {
	return queryMapped(ctx, s.t, takenDownBy(authorID), c, takedownItem.toTakenDown)
}

func (it takedownItem) toTakenDown() reports.TakenDown {
	out := reports.TakenDown{
		Target: reports.Target{Type: reports.TargetType(it.TargetType), ID: it.TargetID, LineID: it.LineID},
		Reason: it.Reason, At: it.At,
	}
	switch {
	case it.Line != nil:
		out.BookID, out.Content = it.Line.BookID, it.Line.Content
	case it.Reply != nil:
		out.Content = it.Reply.Content
	case it.Review != nil:
		out.BookID, out.Content = it.Review.BookID, it.Review.Content
	case it.Club != nil:
		out.Content = it.Club.Name
	}
	return out
}

// TakeDown takes the target of the open report q down and resolves q
// and the target's other open reports (reports.QueueStorer):
//
//  1. the target is read (consistently);
//  2. one transaction resolves q (if it is still open: else
//     reports.ErrResolved, reported before anything else), removes the
//     target as its author's delete does, puts its copy for the author,
//     and carries the audit entry of ctx;
//  3. then (afterTakedown) what hangs off the target is removed a page
//     at a time, and the target's open reports are read, consistently,
//     and resolved with the same resolution: read after the commit, so a
//     report filed while the takedown ran is among them (none can be
//     filed after: a report requires its target).
//
// A report resolved with takedown whose target is already taken down (a
// report left open when step 3 was cut short) resolves as taken down and
// runs step 3 again, so what a failure leaves is finished by resolving
// any of the target's remaining reports. Errors: reports.ErrResolved,
// reports.ErrTargetGone, reports.ErrTargetChanged.
func (s *Reports) TakeDown(ctx context.Context, q *reports.Queued, res reports.Resolution) (reports.Summary, error) {
	tgt := q.Target
	keep, counted, err := s.readTarget(ctx, tgt)
	if errors.Is(err, reports.ErrTargetGone) {
		return s.takenDownAlready(ctx, q, res)
	}
	if err != nil {
		return reports.Summary{}, fmt.Errorf("take down %s %s: %w", tgt.Type, tgt.ID, err)
	}
	k := TakedownKey(tgt)
	keep.PK, keep.SK, keep.Type = k.PK, k.SK, typeTakedown
	keep.TargetType, keep.TargetID, keep.LineID = string(tgt.Type), tgt.ID, tgt.LineID
	keep.ReportID, keep.Reason, keep.By, keep.At = q.ID, res.Reason, res.ResolvedBy, res.ResolvedAt.UTC()
	keep.GSI1PK, keep.GSI1SK = takenDownBy(keep.AuthorID).pk, timeIDKey(keep.At, tgt.ID)

	x := s.t.tx().update(s.resolution(q, res), reports.ErrResolved)
	switch {
	case keep.Line != nil:
		lineDeletion(x, keep.Line.toLine(), reports.ErrTargetChanged)
		// Its likes and replies go with it: the copy counts none.
		keep.Line.LikeCount, keep.Line.ReplyCount = 0, 0
	case keep.Reply != nil:
		// A reply whose line is gone (its author deleted the line while
		// the replies were being removed) counts nowhere any more.
		replyDeletion(x, keep.Reply.toReply(), counted, reports.ErrTargetChanged)
	case keep.Review != nil:
		reviewDeletion(x, keep.Review.toReview())
		keep.Review.LikeCount = 0
	case keep.Club != nil:
		clubDeletion(x, keep.Club.toClub())
		keep.Club.MemberCount, keep.Club.BookCount = 0, 0
	}
	x.put(s.t.put(keep).If("attribute_not_exists(PK)"), errIDTaken)
	audit.Note(ctx, "targetType", keep.TargetType)
	audit.Note(ctx, "targetId", keep.TargetID)
	err = x.run(ctx)
	switch {
	case errors.Is(err, lines.ErrNotFound), errors.Is(err, reviews.ErrChanged), errors.Is(err, clubs.ErrChanged):
		// Read again: the target changed or went since it was read.
		return reports.Summary{}, fmt.Errorf("take down %s %s: %w", tgt.Type, tgt.ID, reports.ErrTargetChanged)
	case err != nil:
		return reports.Summary{}, fmt.Errorf("take down %s %s: %w", tgt.Type, tgt.ID, err)
	}
	s.afterTakedown(ctx, keep, res)
	return keep.summary(), nil
}

// takenDownAlready answers a takedown whose target is not there: if an
// earlier takedown kept its copy, q is resolved as taken down (with the
// audit entry) and the earlier takedown's cleanup runs again; otherwise
// the content was deleted by its author (reports.ErrTargetGone), unless
// q itself was resolved meanwhile (reports.ErrResolved: the queue's read
// of q comes from an index that may trail).
func (s *Reports) takenDownAlready(ctx context.Context, q *reports.Queued, res reports.Resolution) (reports.Summary, error) {
	tgt := q.Target
	var (
		keep    takedownItem
		report  reportItem
		keepErr error
		g       errgroup.Group
	)
	g.Go(func() error { keepErr = s.t.get(TakedownKey(tgt)).Consistent(true).One(ctx, &keep); return nil })
	g.Go(func() error { return s.t.get(ReportKey(tgt, q.ReporterID)).Consistent(true).One(ctx, &report) })
	if err := g.Wait(); errors.Is(err, dynamo.ErrNotFound) {
		return reports.Summary{}, reports.ErrReportNotFound
	} else if err != nil {
		return reports.Summary{}, fmt.Errorf("take down %s %s: %w", tgt.Type, tgt.ID, err)
	}
	switch {
	case report.Status != reports.StatusOpen:
		return reports.Summary{}, reports.ErrResolved
	case errors.Is(keepErr, dynamo.ErrNotFound):
		return reports.Summary{}, reports.ErrTargetGone
	case keepErr != nil:
		return reports.Summary{}, fmt.Errorf("take down %s %s: %w", tgt.Type, tgt.ID, keepErr)
	}
	audit.Note(ctx, "targetType", keep.TargetType)
	audit.Note(ctx, "targetId", keep.TargetID)
	audit.Note(ctx, "takenDownBefore", keep.ReportID)
	if err := s.t.tx().update(s.resolution(q, res), reports.ErrResolved).run(ctx); err != nil {
		return reports.Summary{}, fmt.Errorf("resolve report %s: %w", q.ID, err)
	}
	s.afterTakedown(ctx, keep, res)
	return keep.summary(), nil
}

// summary is what the queue shows of content taken down: its copy.
func (it takedownItem) summary() reports.Summary {
	out := reports.Summary{AuthorID: it.AuthorID, Missing: true, TakenDown: true}
	td := it.toTakenDown()
	out.BookID, out.Excerpt = td.BookID, reports.Excerpt(td.Content)
	return out
}

// readTarget reads the reported content into the copy a takedown keeps,
// and, for a reply, whether its line is still there to count it (the
// line's replyCount is what the reply's removal corrects). Errors:
// reports.ErrTargetGone.
func (s *Reports) readTarget(ctx context.Context, tgt reports.Target) (keep takedownItem, counted bool, err error) {
	k, _, _ := reportedItem(tgt)
	switch tgt.Type {
	case reports.TargetLine:
		keep.Line = &lineItem{}
		err = s.t.get(k).Consistent(true).One(ctx, keep.Line)
		keep.AuthorID = keep.Line.UserID
	case reports.TargetReply:
		keep.Reply = &replyItem{}
		var g errgroup.Group
		g.Go(func() error { return s.t.get(k).Consistent(true).One(ctx, keep.Reply) })
		g.Go(func() error {
			var line keyOnly
			err := s.t.get(LineKey(tgt.LineID)).Project(AttrPK, AttrSK).Consistent(true).One(ctx, &line)
			counted = err == nil
			if errors.Is(err, dynamo.ErrNotFound) {
				return nil
			}
			return err
		})
		err = g.Wait()
		keep.AuthorID = keep.Reply.UserID
	case reports.TargetReview:
		keep.Review = &reviewItem{}
		err = s.t.get(k).Consistent(true).One(ctx, keep.Review)
		keep.AuthorID = keep.Review.UserID
	case reports.TargetClub:
		keep.Club = &clubItem{}
		err = s.t.get(k).Consistent(true).One(ctx, keep.Club)
		keep.AuthorID = keep.Club.HostID
	default:
		return keep, false, fmt.Errorf("report target of unknown type %q", tgt.Type)
	}
	if errors.Is(err, dynamo.ErrNotFound) {
		return keep, false, reports.ErrTargetGone
	}
	if err != nil {
		return keep, false, fmt.Errorf("read reported %s %s: %w", tgt.Type, tgt.ID, err)
	}
	return keep, counted, nil
}

// openReportsOf reads the open reports of a target: its partition,
// consistently (every reporter's report of a target shares it).
func (s *Reports) openReportsOf(ctx context.Context, tgt reports.Target) ([]reportItem, error) {
	var all []reportItem
	err := s.t.table.Get(AttrPK, ReportKey(tgt, "").PK).Range(AttrSK, dynamo.BeginsWith, reportByPrefix).
		Filter("$ = ?", "status", reports.StatusOpen).Consistent(true).All(ctx, &all)
	if err != nil {
		return nil, fmt.Errorf("read the open reports of %s %s: %w", tgt.Type, tgt.ID, err)
	}
	return all, nil
}

// resolution is the update resolving the open report q with res: it
// moves to the resolved queue and keeps the resolution. The condition on
// its status makes resolving once.
func (s *Reports) resolution(q *reports.Queued, res reports.Resolution) *dynamo.Update {
	return s.t.update(ReportKey(q.Target, q.ReporterID)).
		Set("status", reports.StatusResolved).Set(AttrGSI1PK, reportQueue(reports.StatusResolved).pk).
		Set("resolution", res.Action).Set("resolveReason", res.Reason).
		Set("resolvedAt", res.ResolvedAt.UTC()).Set("resolvedBy", res.ResolvedBy).
		If("attribute_exists(PK) AND $ = ?", "status", reports.StatusOpen)
}

// afterTakedown removes what hangs off content taken down, as its
// author's delete does afterwards, and resolves the target's open reports
// (read now, consistently, in parallel; one resolved meanwhile is left as
// it is). It runs before the answer, on a context a client hanging up
// does not cancel, and logs a failure rather than fail the takedown,
// which is whole: what a failure leaves (children no route
// shows, reports still open on content taken down) is finished when an
// operator takes down any remaining report of the target (TakeDown).
func (s *Reports) afterTakedown(ctx context.Context, keep takedownItem, res reports.Resolution) {
	ctx = context.WithoutCancel(ctx)
	tgt := reports.Target{Type: reports.TargetType(keep.TargetType), ID: keep.TargetID, LineID: keep.LineID}
	var g errgroup.Group
	switch {
	case keep.Line != nil:
		g.Go(func() error {
			return (&Lines{s.t, likeStore{s.t, linesLikeTarget}}).DeleteLineChildren(ctx, keep.TargetID)
		})
	case keep.Review != nil:
		g.Go(func() error { return likeStore{s.t, reviewsLikeTarget}.deleteAll(ctx, keep.TargetID) })
	case keep.Club != nil:
		g.Go(func() error { return (&Clubs{s.t}).PurgeClub(ctx, keep.TargetID) })
	}
	g.Go(func() error {
		open, err := s.openReportsOf(ctx, tgt)
		if err != nil {
			return err
		}
		var rg errgroup.Group
		rg.SetLimit(8)
		for _, o := range open {
			rg.Go(func() error {
				q := &reports.Queued{Report: reports.Report{Target: tgt, ReporterID: o.ReporterID}}
				if err := s.resolution(q, res).Run(ctx); err != nil && !dynamo.IsCondCheckFailed(err) {
					return fmt.Errorf("resolve report %s: %w", o.ID, err)
				}
				return nil
			})
		}
		return rg.Wait()
	})
	if err := g.Wait(); err != nil {
		slog.ErrorContext(ctx, "takedown: its cleanup was cut short; taking down a remaining report of the target finishes it",
			"targetType", keep.TargetType, "targetId", keep.TargetID, "error", err.Error())
	}
}
