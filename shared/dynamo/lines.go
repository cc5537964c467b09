package dynamo

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/bookplatform/backend/shared/books"
	"github.com/bookplatform/backend/shared/challenges"
	"github.com/bookplatform/backend/shared/clubs"
	"github.com/bookplatform/backend/shared/lines"
	"github.com/bookplatform/backend/shared/page"
	"github.com/bookplatform/backend/shared/quota"
	"github.com/guregu/dynamo/v2"
	"golang.org/x/sync/errgroup"
)

// Lines stores lines, their replies and their likes.
type Lines struct {
	t *table
	likeStore
}

var _ lines.Storer = (*Lines)(nil)

var linesLikeTarget = likeTarget{key: LineKey, notFound: lines.ErrNotFound}

// lineItem is a line as stored (LineKey), listed on GSI1 under its book
// (bookLines) and on GSI2 under its author (userLines), both sorted by
// timeIDKey; a line posted in a challenge also on GSI3 under its
// challenge (challengeLines). A line posted in a club is listed on GSI1
// under its club (clubLines) and nowhere else: it belongs to the club's
// audience. The counters change only with ADD, in the transactions that
// add or remove a like or reply.
type lineItem struct {
	PK          string    `dynamo:"PK"`
	SK          string    `dynamo:"SK"`
	GSI1PK      string    `dynamo:"GSI1PK"`
	GSI1SK      string    `dynamo:"GSI1SK"`
	GSI2PK      string    `dynamo:"GSI2PK,omitempty"`
	GSI2SK      string    `dynamo:"GSI2SK,omitempty"`
	GSI3PK      string    `dynamo:"GSI3PK,omitempty"`
	GSI3SK      string    `dynamo:"GSI3SK,omitempty"`
	Type        string    `dynamo:"type"`
	ID          string    `dynamo:"id"`
	UserID      string    `dynamo:"userId"`
	BookID      string    `dynamo:"bookId"`
	Content     string    `dynamo:"content"`
	PageNumber  int       `dynamo:"pageNumber,omitempty"`
	LikeCount   int       `dynamo:"likeCount"`
	ReplyCount  int       `dynamo:"replyCount"`
	ClubID      string    `dynamo:"clubId,omitempty"`
	ChallengeID string    `dynamo:"challengeId,omitempty"`
	CreatedAt   time.Time `dynamo:"createdAt"`
	UpdatedAt   time.Time `dynamo:"updatedAt"`
}

// replyItem is a reply as stored (ReplyKey).
type replyItem struct {
	PK        string    `dynamo:"PK"`
	SK        string    `dynamo:"SK"`
	Type      string    `dynamo:"type"`
	ID        string    `dynamo:"id"`
	LineID    string    `dynamo:"lineId"`
	UserID    string    `dynamo:"userId"`
	Content   string    `dynamo:"content"`
	CreatedAt time.Time `dynamo:"createdAt"`
}

func toLineItem(l *lines.Line) lineItem {
	k, sk := LineKey(l.ID), timeIDKey(l.CreatedAt, l.ID)
	it := lineItem{
		PK: k.PK, SK: k.SK,
		GSI1PK: bookLines(l.BookID).pk, GSI1SK: sk,
		GSI2PK: userLines(l.UserID).pk, GSI2SK: sk,
		Type: typeLine, ID: l.ID, UserID: l.UserID, BookID: l.BookID, Content: l.Content,
		PageNumber: l.PageNumber, LikeCount: l.LikeCount, ReplyCount: l.ReplyCount,
		ClubID: l.ClubID, ChallengeID: l.ChallengeID,
		CreatedAt: l.CreatedAt.UTC(), UpdatedAt: l.UpdatedAt.UTC(),
	}
	switch {
	case l.ClubID != "":
		it.GSI1PK, it.GSI2PK, it.GSI2SK = clubLines(l.ClubID).pk, "", ""
	case l.ChallengeID != "":
		it.GSI3PK, it.GSI3SK = challengeLines(l.ChallengeID).pk, sk
	}
	return it
}

func (it lineItem) toLine() *lines.Line {
	return &lines.Line{
		ID: it.ID, UserID: it.UserID, BookID: it.BookID, Content: it.Content,
		PageNumber: it.PageNumber, LikeCount: it.LikeCount, ReplyCount: it.ReplyCount,
		ClubID: it.ClubID, ChallengeID: it.ChallengeID, CreatedAt: it.CreatedAt, UpdatedAt: it.UpdatedAt,
	}
}

func toReplyItem(r *lines.Reply) replyItem {
	k := ReplyKey(r.LineID, r.ID)
	return replyItem{
		PK: k.PK, SK: k.SK, Type: typeReply,
		ID: r.ID, LineID: r.LineID, UserID: r.UserID, Content: r.Content, CreatedAt: r.CreatedAt.UTC(),
	}
}

func (it replyItem) toReply() *lines.Reply {
	return &lines.Reply{ID: it.ID, LineID: it.LineID, UserID: it.UserID, Content: it.Content, CreatedAt: it.CreatedAt}
}

// errIDTaken is a new item's id colliding with a stored one: a UUID
// collision or a bug, never a client's doing.
var errIDTaken = errors.New("id already exists")

// CreateLine writes the line, adds one to its book's totalLines and makes
// the quota charge in one TransactWriteItems: the line, the counter and
// the monthly count are never out of step, and a post over the limit
// writes nothing. A line in a club requires, in the same transaction,
// the club and the author's membership (and does not count in the book's
// totalLines: it is not on the book's list); a line in a challenge
// requires the challenge and the author's participation. So the check
// costs no round trip and cannot be outrun by a leave. Errors:
// books.ErrNotFound, clubs.ErrNotFound, clubs.ErrMembersOnly,
// challenges.ErrNotFound, challenges.ErrParticipantsOnly,
// quota.ErrStale.
func (s *Lines) CreateLine(ctx context.Context, l *lines.Line, c quota.Charge) error {
	x := s.t.tx()
	if l.ClubID != "" {
		x.check(s.t.check(BookKey(l.BookID)).If("attribute_exists(PK)"), books.ErrNotFound).
			check(s.t.check(ClubKey(l.ClubID)).If("attribute_exists(PK)"), clubs.ErrNotFound).
			check(s.t.check(ClubMemberKey(l.ClubID, l.UserID)).If("attribute_exists(PK)"), clubs.ErrMembersOnly)
	} else {
		x.update(s.t.update(BookKey(l.BookID)).Add("totalLines", 1).If("attribute_exists(PK)"), books.ErrNotFound)
	}
	if l.ChallengeID != "" {
		x.check(s.t.check(ChallengeKey(l.ChallengeID)).If("attribute_exists(PK)"), challenges.ErrNotFound).
			check(s.t.check(ParticipantKey(l.ChallengeID, l.UserID)).If("attribute_exists(PK)"), challenges.ErrParticipantsOnly)
	}
	err := x.update(quotaCharge(s.t, c), quota.ErrStale).
		put(s.t.put(toLineItem(l)).If("attribute_not_exists(PK)"), errIDTaken).
		run(ctx)
	if err != nil {
		return fmt.Errorf("create line %s: %w", l.ID, err)
	}
	return nil
}

// GetLine reads a line, strongly consistent: an author who has just
// posted or edited sees the line as written. Errors: lines.ErrNotFound.
func (s *Lines) GetLine(ctx context.Context, id string) (*lines.Line, error) {
	return getOne(ctx, s.t, LineKey(id), lineItem.toLine, lines.ErrNotFound, "line "+id)
}

// UpdateLine is one UpdateItem conditional on the line existing and
// being authorID's, returning the new item. Only when the condition fails
// is the line read, to tell a missing line (404) from another author's
// (403). Errors: lines.ErrNotFound, lines.ErrNotAuthor.
func (s *Lines) UpdateLine(ctx context.Context, authorID, id string, e lines.UpdateLine, now time.Time) (*lines.Line, error) {
	upd := s.t.update(LineKey(id)).
		Set("content", e.Content).
		Set("updatedAt", now.UTC()).
		If("attribute_exists(PK) AND userId = ?", authorID)
	if e.SetPage {
		if e.PageNumber == nil {
			upd = upd.Remove("pageNumber")
		} else {
			upd = upd.Set("pageNumber", *e.PageNumber)
		}
	}
	return updateOwned(ctx, upd, lineItem.toLine, s.GetLine, lines.ErrNotAuthor, "line", id)
}

// DeleteLine removes the line and subtracts one from its book's
// totalLines (unless it was posted in a club, which the book does not
// count) in one TransactWriteItems. A like or reply written after it
// cannot land: those transactions require the line item to exist.
// Errors: lines.ErrNotFound (gone, or no longer l.UserID's).
func (s *Lines) DeleteLine(ctx context.Context, l *lines.Line) error {
	if err := lineDeletion(s.t.tx(), l, lines.ErrNotFound).run(ctx); err != nil {
		return fmt.Errorf("delete line %s: %w", l.ID, err)
	}
	return nil
}

// lineDeletion adds to x the removal of l, if it is still there and
// l.UserID's (gone: what its failing means), and of its share of its
// book's totalLines: the author's delete and an operator's takedown
// remove a line the same way.
func lineDeletion(x *tx, l *lines.Line, gone error) *tx {
	t := x.t
	x.delete(t.del(LineKey(l.ID)).If("attribute_exists(PK) AND userId = ?", l.UserID), gone)
	if l.ClubID == "" {
		// Books are never deleted; refuse rather than create a
		// counter-only book item.
		x.update(t.update(BookKey(l.BookID)).Add("totalLines", -1).If("attribute_exists(PK)"), books.ErrNotFound)
	}
	return x
}

// DeleteLineChildren removes a deleted line's replies and likes: one
// consistent Query of the line's partition per kind, side by side, then
// BatchWriteItem deletes of 25.
func (s *Lines) DeleteLineChildren(ctx context.Context, id string) error {
	var g errgroup.Group
	g.Go(func() error { return s.deleteAll(ctx, id) })
	g.Go(func() error { return s.t.deletePrefix(ctx, LineKey(id).PK, replyPrefix) })
	if err := g.Wait(); err != nil {
		return fmt.Errorf("delete replies and likes of line %s: %w", id, err)
	}
	return nil
}

// replyDeletion adds to x the removal of r, if it is still there and
// r.UserID's (gone: what its failing means), and, when counted (its line
// is there), of its share of its line's replyCount: the author's delete
// and an operator's takedown remove a reply the same way. A counted
// reply whose line is gone fails with lines.ErrNotFound.
func replyDeletion(x *tx, r *lines.Reply, counted bool, gone error) *tx {
	t := x.t
	if counted {
		x.update(t.update(LineKey(r.LineID)).Add("replyCount", -1).If("attribute_exists(PK)"), lines.ErrNotFound)
	}
	return x.delete(t.del(ReplyKey(r.LineID, r.ID)).If("attribute_exists(PK) AND userId = ?", r.UserID), gone)
}

// ListBookLines reads a page of a book's lines, newest first (GSI1).
func (s *Lines) ListBookLines(ctx context.Context, bookID string, c page.Cursor) (page.Page[*lines.Line], error) {
	return s.list(ctx, bookLines(bookID), c)
}

// ListUserLines reads a page of an author's lines, newest first (GSI2).
func (s *Lines) ListUserLines(ctx context.Context, userID string, c page.Cursor) (page.Page[*lines.Line], error) {
	return s.list(ctx, userLines(userID), c)
}

// ListClubLines reads a page of a club's lines, newest first (GSI1).
func (s *Lines) ListClubLines(ctx context.Context, clubID string, c page.Cursor) (page.Page[*lines.Line], error) {
	return s.list(ctx, clubLines(clubID), c)
}

// ListChallengeLines reads a page of a challenge's lines, newest first
// (GSI3).
func (s *Lines) ListChallengeLines(ctx context.Context, challengeID string, c page.Cursor) (page.Page[*lines.Line], error) {
	return s.list(ctx, challengeLines(challengeID), c)
}

// list reads a page of lines. Index reads are eventually consistent: a
// line posted a moment ago may miss the page being read.
func (s *Lines) list(ctx context.Context, l list, c page.Cursor) (page.Page[*lines.Line], error) {
	return queryMapped(ctx, s.t, l, c, lineItem.toLine)
}

// CreateReply writes the reply, adds one to the line's replyCount and
// makes the quota charge in one TransactWriteItems. Errors:
// lines.ErrNotFound, quota.ErrStale.
func (s *Lines) CreateReply(ctx context.Context, r *lines.Reply, c quota.Charge) error {
	err := s.t.tx().
		update(s.t.update(LineKey(r.LineID)).Add("replyCount", 1).If("attribute_exists(PK)"), lines.ErrNotFound).
		update(quotaCharge(s.t, c), quota.ErrStale).
		put(s.t.put(toReplyItem(r)).If("attribute_not_exists(PK)"), errIDTaken).
		run(ctx)
	if err != nil {
		return fmt.Errorf("create reply %s on line %s: %w", r.ID, r.LineID, err)
	}
	return nil
}

// ListReplies reads a page of a line's replies, oldest first, strongly
// consistent (a reply just posted is on the page). Replies posted while a
// client pages sort after every existing one, so later pages are not
// shifted.
func (s *Lines) ListReplies(ctx context.Context, lineID string, c page.Cursor) (page.Page[*lines.Reply], error) {
	return queryMapped(ctx, s.t, lineReplies(lineID), c, replyItem.toReply)
}

// DeleteReply removes the reply, if authorID wrote it, and subtracts one
// from its line's replyCount in one TransactWriteItems. Only when the
// reply's condition fails is it read, to tell 404 from 403. Errors:
// lines.ErrNotFound, lines.ErrReplyNotFound, lines.ErrNotReplyAuthor.
func (s *Lines) DeleteReply(ctx context.Context, authorID, lineID, replyID string) error {
	errNotTheirs := errors.New("reply missing or another author's")
	err := replyDeletion(s.t.tx(), &lines.Reply{ID: replyID, LineID: lineID, UserID: authorID}, true, errNotTheirs).run(ctx)
	if errors.Is(err, errNotTheirs) {
		var it replyItem
		err := s.t.get(ReplyKey(lineID, replyID)).Consistent(true).One(ctx, &it)
		switch {
		case errors.Is(err, dynamo.ErrNotFound):
			return fmt.Errorf("delete reply %s of line %s: %w", replyID, lineID, lines.ErrReplyNotFound)
		case err != nil:
			return fmt.Errorf("get reply %s of line %s: %w", replyID, lineID, err)
		}
		return fmt.Errorf("delete reply %s of line %s: %w", replyID, lineID, lines.ErrNotReplyAuthor)
	}
	if err != nil {
		return fmt.Errorf("delete reply %s of line %s: %w", replyID, lineID, err)
	}
	return nil
}
