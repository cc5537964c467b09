package dynamo

import (
	"context"
	"errors"
	"fmt"
	"time"

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
//  1. the target is read (consistently) with the target's open reports;
//  2. one transaction removes the target as its author's delete does,
//     puts its copy for the author, resolves q (if it is still open) and
//     as many of the other open reports as the transaction holds, and
//     carries the audit entry of ctx;
//  3. then what hangs off the target is removed a page at a time, and
//     any other open report the transaction had no room for is resolved
//     on its own.
//
// A failure after the commit leaves records no route shows (children of
// content that is gone, a report still open on content that is gone,
// which an operator dismisses); the takedown itself is whole. Errors:
// reports.ErrResolved, reports.ErrTargetGone, reports.ErrTargetChanged.
func (s *Reports) TakeDown(ctx context.Context, q *reports.Queued, res reports.Resolution) error {
	tgt := q.Target
	var (
		keep    takedownItem
		counted bool
		others  []reportItem
		g       errgroup.Group
	)
	g.Go(func() (err error) { keep, counted, err = s.readTarget(ctx, tgt); return err })
	g.Go(func() (err error) { others, err = s.openReportsOf(ctx, tgt, q.ID); return err })
	if err := g.Wait(); err != nil {
		return fmt.Errorf("take down %s %s: %w", tgt.Type, tgt.ID, err)
	}
	k := TakedownKey(tgt)
	keep.PK, keep.SK, keep.Type = k.PK, k.SK, typeTakedown
	keep.TargetType, keep.TargetID, keep.LineID = string(tgt.Type), tgt.ID, tgt.LineID
	keep.ReportID, keep.Reason, keep.By, keep.At = q.ID, res.Reason, res.ResolvedBy, res.ResolvedAt.UTC()
	keep.GSI1PK, keep.GSI1SK = takenDownBy(keep.AuthorID).pk, timeIDKey(keep.At, tgt.ID)

	x := s.t.tx()
	switch {
	case keep.Line != nil:
		lineDeletion(x, keep.Line.toLine(), reports.ErrTargetChanged)
	case keep.Reply != nil:
		// A reply whose line is gone (its author deleted the line while
		// the replies were being removed) counts nowhere any more.
		replyDeletion(x, keep.Reply.toReply(), counted, reports.ErrTargetChanged)
	case keep.Review != nil:
		reviewDeletion(x, keep.Review.toReview())
	case keep.Club != nil:
		clubDeletion(x, keep.Club.toClub())
	}
	x.put(s.t.put(keep).If("attribute_not_exists(PK)"), errIDTaken)
	x.update(s.resolution(q, res), reports.ErrResolved)
	// Room is kept for the audit entry the transaction carries.
	inTx := min(len(others), maxTxItems-1-x.len())
	for _, o := range others[:inTx] {
		x.update(s.resolution(&reports.Queued{Report: reports.Report{Target: tgt, ReporterID: o.ReporterID}}, res), reports.ErrTargetChanged)
	}
	err := x.run(ctx)
	switch {
	case errors.Is(err, lines.ErrNotFound), errors.Is(err, reviews.ErrChanged), errors.Is(err, clubs.ErrChanged):
		// Read again: the target changed or went since it was read.
		return fmt.Errorf("take down %s %s: %w", tgt.Type, tgt.ID, reports.ErrTargetChanged)
	case err != nil:
		return fmt.Errorf("take down %s %s: %w", tgt.Type, tgt.ID, err)
	}
	if err := s.afterTakedown(ctx, keep, others[inTx:], res); err != nil {
		return fmt.Errorf("take down %s %s: %w", tgt.Type, tgt.ID, err)
	}
	return nil
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

// openReportsOf reads the open reports of a target other than the one
// with id skip: its partition, consistently (every reporter's report of
// a target shares it).
func (s *Reports) openReportsOf(ctx context.Context, tgt reports.Target, skip string) ([]reportItem, error) {
	var all []reportItem
	err := s.t.table.Get(AttrPK, ReportKey(tgt, "").PK).Range(AttrSK, dynamo.BeginsWith, reportByPrefix).
		Filter("$ = ?", "status", reports.StatusOpen).Consistent(true).All(ctx, &all)
	if err != nil {
		return nil, fmt.Errorf("read the open reports of %s %s: %w", tgt.Type, tgt.ID, err)
	}
	out := all[:0]
	for _, it := range all {
		if it.ID != skip {
			out = append(out, it)
		}
	}
	return out, nil
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
// author's delete does afterwards, and resolves the open reports the
// takedown's transaction had no room for, each on its own (one resolved
// meanwhile is left as it is).
func (s *Reports) afterTakedown(ctx context.Context, keep takedownItem, rest []reportItem, res reports.Resolution) error {
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
		tgt := reports.Target{Type: reports.TargetType(keep.TargetType), ID: keep.TargetID, LineID: keep.LineID}
		for _, o := range rest {
			q := &reports.Queued{Report: reports.Report{Target: tgt, ReporterID: o.ReporterID}}
			if err := s.resolution(q, res).Run(ctx); err != nil && !dynamo.IsCondCheckFailed(err) {
				return fmt.Errorf("resolve report %s: %w", o.ID, err)
			}
		}
		return nil
	})
	return g.Wait()
}
