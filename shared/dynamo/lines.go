package dynamo

import (
	"context"
	"errors"
	"fmt"
	"sync"
	"time"

	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"
	"github.com/bookplatform/backend/shared/apperr"
	"github.com/bookplatform/backend/shared/lines"
	"github.com/bookplatform/backend/shared/quota"
	"github.com/guregu/dynamo/v2"
)

var _ lines.Storer = (*Store)(nil)

// lineItem is a line as stored: PK LINE#<id>, SK LINE, listed on GSI1
// under its book (BOOKLINES#<bookId>) and on GSI2 under its author
// (USERLINES#<userId>), both sorted by lineTimeSK. The counters change
// only with ADD, in the transactions that add or remove a like or reply.
type lineItem struct {
	PK          string    `dynamo:"PK"`
	SK          string    `dynamo:"SK"`
	GSI1PK      string    `dynamo:"GSI1PK"`
	GSI1SK      string    `dynamo:"GSI1SK"`
	GSI2PK      string    `dynamo:"GSI2PK"`
	GSI2SK      string    `dynamo:"GSI2SK"`
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

// replyItem is a reply as stored: PK LINE#<lineId>, SK REPLY#<replyId>.
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
	sk := lineTimeSK(l.CreatedAt, l.ID)
	return lineItem{
		PK: linePK(l.ID), SK: lineSK,
		GSI1PK: bookLinesPK(l.BookID), GSI1SK: sk,
		GSI2PK: userLinesPK(l.UserID), GSI2SK: sk,
		Type: "Line", ID: l.ID, UserID: l.UserID, BookID: l.BookID, Content: l.Content,
		PageNumber: l.PageNumber, LikeCount: l.LikeCount, ReplyCount: l.ReplyCount,
		ClubID: l.ClubID, ChallengeID: l.ChallengeID,
		CreatedAt: l.CreatedAt.UTC(), UpdatedAt: l.UpdatedAt.UTC(),
	}
}

func (it lineItem) toLine() *lines.Line {
	return &lines.Line{
		ID: it.ID, UserID: it.UserID, BookID: it.BookID, Content: it.Content,
		PageNumber: it.PageNumber, LikeCount: it.LikeCount, ReplyCount: it.ReplyCount,
		ClubID: it.ClubID, ChallengeID: it.ChallengeID, CreatedAt: it.CreatedAt, UpdatedAt: it.UpdatedAt,
	}
}

func (it replyItem) toReply() *lines.Reply {
	return &lines.Reply{ID: it.ID, LineID: it.LineID, UserID: it.UserID, Content: it.Content, CreatedAt: it.CreatedAt}
}

// CreateLine writes the line, adds one to its book's totalLines and makes
// the quota charge in one TransactWriteItems: the line, the counter and
// the monthly count are never out of step, and a post over the limit
// writes nothing.
func (s *Store) CreateLine(ctx context.Context, l *lines.Line, c quota.Charge) error {
	err := s.db.WriteTx().
		Put(s.table.Put(toLineItem(l)).If("attribute_not_exists(PK)")).
		Update(s.table.Update(AttrPK, bookPK(l.BookID)).Range(AttrSK, bookSK).Add("totalLines", 1).If("attribute_exists(PK)")).
		Update(s.quotaCharge(c)).
		Run(ctx)
	if codes, ok := cancelReasons(err); ok {
		switch {
		case failedCondition(codes, 1):
			return lines.ErrBookNotFound
		case failedCondition(codes, 2):
			return quota.ErrStale
		case failedCondition(codes, 0):
			return apperr.Conflict("Line id %s already exists", l.ID)
		}
	}
	if err != nil {
		return fmt.Errorf("create line %s: %w", l.ID, err)
	}
	return nil
}

// GetLine reads a line, strongly consistent: an author who has just
// posted or edited sees the line as written.
func (s *Store) GetLine(ctx context.Context, id string) (*lines.Line, error) {
	var it lineItem
	err := s.table.Get(AttrPK, linePK(id)).Range(AttrSK, dynamo.Equal, lineSK).Consistent(true).One(ctx, &it)
	if errors.Is(err, dynamo.ErrNotFound) {
		return nil, lines.ErrLineNotFound
	}
	if err != nil {
		return nil, fmt.Errorf("get line %s: %w", id, err)
	}
	return it.toLine(), nil
}

// UpdateLine is one UpdateItem conditional on the line existing and
// being authorID's, returning the new item. Only when the condition fails
// is the line read, to tell a missing line (404) from another author's (403).
func (s *Store) UpdateLine(ctx context.Context, authorID, id string, e lines.Edit, now time.Time) (*lines.Line, error) {
	upd := s.table.Update(AttrPK, linePK(id)).Range(AttrSK, lineSK).
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
	var it lineItem
	err := upd.Value(ctx, &it)
	if dynamo.IsCondCheckFailed(err) {
		if _, err := s.GetLine(ctx, id); err != nil {
			return nil, err
		}
		return nil, lines.ErrNotAuthor
	}
	if err != nil {
		return nil, fmt.Errorf("update line %s: %w", id, err)
	}
	return it.toLine(), nil
}

// DeleteLine removes the line and subtracts one from its book's
// totalLines in one TransactWriteItems. A like or reply written after it
// cannot land: those transactions require the line item to exist.
func (s *Store) DeleteLine(ctx context.Context, l *lines.Line) error {
	err := s.db.WriteTx().
		Delete(s.table.Delete(AttrPK, linePK(l.ID)).Range(AttrSK, lineSK).If("attribute_exists(PK) AND userId = ?", l.UserID)).
		Update(s.table.Update(AttrPK, bookPK(l.BookID)).Range(AttrSK, bookSK).Add("totalLines", -1).If("attribute_exists(PK)")).
		Run(ctx)
	if codes, ok := cancelReasons(err); ok {
		switch {
		case failedCondition(codes, 0):
			return lines.ErrLineNotFound
		case failedCondition(codes, 1):
			// Books are never deleted; refuse rather than create a
			// counter-only book item.
			return fmt.Errorf("delete line %s: book %s is missing", l.ID, l.BookID)
		}
	}
	if err != nil {
		return fmt.Errorf("delete line %s: %w", l.ID, err)
	}
	return nil
}

// DeleteLineChildren removes a deleted line's replies and likes: one
// Query of the line's partition per kind, side by side, then
// BatchWriteItem deletes of 25.
func (s *Store) DeleteLineChildren(ctx context.Context, id string) error {
	var likesErr, repliesErr error
	var wg sync.WaitGroup
	wg.Go(func() { likesErr = s.deleteLikes(ctx, linePK(id)) })
	wg.Go(func() { repliesErr = s.deletePrefix(ctx, linePK(id), replyPrefix) })
	wg.Wait()
	if err := errors.Join(likesErr, repliesErr); err != nil {
		return fmt.Errorf("delete replies and likes of line %s: %w", id, err)
	}
	return nil
}

// LikeLine records a like through the shared like mechanism (likes.go).
func (s *Store) LikeLine(ctx context.Context, id, userID string) (int, error) {
	return s.like(ctx, "Line", linePK(id), lineSK, userID)
}

// UnlikeLine removes a like through the shared like mechanism.
func (s *Store) UnlikeLine(ctx context.Context, id, userID string) (int, error) {
	return s.unlike(ctx, "Line", linePK(id), lineSK, userID)
}

// LinesLikedBy reads userID's likes of the lines in one BatchGetItem; no
// user, no call.
func (s *Store) LinesLikedBy(ctx context.Context, userID string, ids []string) (map[string]bool, error) {
	return s.likedBy(ctx, userID, ids, linePK)
}

// ListBookLines queries GSI1 (BOOKLINES#<bookId>) newest first.
func (s *Store) ListBookLines(ctx context.Context, bookID string, p lines.Page) ([]*lines.Line, string, error) {
	return s.listLines(ctx, gsiBookLines, AttrGSI1PK, AttrGSI1SK, bookLinesPK(bookID), p)
}

// ListUserLines queries GSI2 (USERLINES#<userId>) newest first.
func (s *Store) ListUserLines(ctx context.Context, userID string, p lines.Page) ([]*lines.Line, string, error) {
	return s.listLines(ctx, gsiUserLines, AttrGSI2PK, AttrGSI2SK, userLinesPK(userID), p)
}

// listLines reads one page of an index partition, newest first. It asks
// for one item more than the page: when that item exists the page is not
// the last, and the token names the page's last item (its index and
// table keys, the exclusive start key of the next Query). So a list that
// ends exactly at a page boundary has no empty page after it. Because
// the sort key is the creation time plus the id, lines posted meanwhile
// sort before the token and never shift a later page: nothing is skipped
// or repeated. Index reads are eventually consistent; a line posted a
// moment ago may miss the page being read.
func (s *Store) listLines(ctx context.Context, index, hashAttr, rangeAttr, pk string, p lines.Page) ([]*lines.Line, string, error) {
	q := s.table.Get(hashAttr, pk).Index(index).Order(dynamo.Descending).Limit(p.Limit + 1)
	start, err := startKey(p.After, hashAttr, pk)
	if err != nil {
		return nil, "", err
	}
	if start != nil {
		q = q.StartFrom(start)
	}
	var its []lineItem
	if err := q.All(ctx, &its); err != nil {
		return nil, "", fmt.Errorf("query %s %s: %w", index, pk, err)
	}
	next := ""
	if len(its) > p.Limit {
		its = its[:p.Limit]
		last := its[len(its)-1]
		at := last.GSI1SK
		if rangeAttr == AttrGSI2SK {
			at = last.GSI2SK
		}
		key := stringKey(AttrPK, last.PK, AttrSK, last.SK, hashAttr, pk, rangeAttr, at)
		if next, err = pagingToken(key); err != nil {
			return nil, "", err
		}
	}
	out := make([]*lines.Line, len(its))
	for i, it := range its {
		out[i] = it.toLine()
	}
	return out, next, nil
}

// CreateReply writes the reply, adds one to the line's replyCount and
// makes the quota charge in one TransactWriteItems.
func (s *Store) CreateReply(ctx context.Context, r *lines.Reply, c quota.Charge) error {
	err := s.db.WriteTx().
		Put(s.table.Put(replyItem{
			PK: linePK(r.LineID), SK: replySK(r.ID), Type: "Reply",
			ID: r.ID, LineID: r.LineID, UserID: r.UserID, Content: r.Content, CreatedAt: r.CreatedAt.UTC(),
		}).If("attribute_not_exists(PK)")).
		Update(s.table.Update(AttrPK, linePK(r.LineID)).Range(AttrSK, lineSK).Add("replyCount", 1).If("attribute_exists(PK)")).
		Update(s.quotaCharge(c)).
		Run(ctx)
	if codes, ok := cancelReasons(err); ok {
		switch {
		case failedCondition(codes, 1):
			return lines.ErrLineNotFound
		case failedCondition(codes, 2):
			return quota.ErrStale
		case failedCondition(codes, 0):
			return apperr.Conflict("Reply id %s already exists", r.ID)
		}
	}
	if err != nil {
		return fmt.Errorf("create reply %s on line %s: %w", r.ID, r.LineID, err)
	}
	return nil
}

// ListReplies queries the line's partition for REPLY# items, oldest
// first, strongly consistent (a reply just posted is on the page). The
// page and token work as in listLines; replies posted meanwhile sort
// after every existing one, so later pages are not shifted.
func (s *Store) ListReplies(ctx context.Context, lineID string, p lines.Page) ([]*lines.Reply, string, error) {
	q := s.table.Get(AttrPK, linePK(lineID)).Range(AttrSK, dynamo.BeginsWith, replyPrefix).
		Consistent(true).Limit(p.Limit + 1)
	start, err := startKey(p.After, AttrPK, linePK(lineID))
	if err != nil {
		return nil, "", err
	}
	if start != nil {
		q = q.StartFrom(start)
	}
	var its []replyItem
	if err := q.All(ctx, &its); err != nil {
		return nil, "", fmt.Errorf("query replies of line %s: %w", lineID, err)
	}
	next := ""
	if len(its) > p.Limit {
		its = its[:p.Limit]
		last := its[len(its)-1]
		if next, err = pagingToken(stringKey(AttrPK, last.PK, AttrSK, last.SK)); err != nil {
			return nil, "", err
		}
	}
	out := make([]*lines.Reply, len(its))
	for i, it := range its {
		out[i] = it.toReply()
	}
	return out, next, nil
}

// DeleteReply removes the reply, if authorID wrote it, and subtracts one
// from its line's replyCount in one TransactWriteItems. Only when a
// condition fails is the reply read, to tell 404 from 403.
func (s *Store) DeleteReply(ctx context.Context, authorID, lineID, replyID string) error {
	err := s.db.WriteTx().
		Delete(s.table.Delete(AttrPK, linePK(lineID)).Range(AttrSK, replySK(replyID)).If("attribute_exists(PK) AND userId = ?", authorID)).
		Update(s.table.Update(AttrPK, linePK(lineID)).Range(AttrSK, lineSK).Add("replyCount", -1).If("attribute_exists(PK)")).
		Run(ctx)
	if codes, ok := cancelReasons(err); ok {
		switch {
		case failedCondition(codes, 1):
			return lines.ErrLineNotFound
		case failedCondition(codes, 0):
			var it replyItem
			err := s.table.Get(AttrPK, linePK(lineID)).Range(AttrSK, dynamo.Equal, replySK(replyID)).Consistent(true).One(ctx, &it)
			switch {
			case errors.Is(err, dynamo.ErrNotFound):
				return lines.ErrReplyNotFound
			case err != nil:
				return fmt.Errorf("get reply %s of line %s: %w", replyID, lineID, err)
			}
			return lines.ErrNotReplyOwner
		}
	}
	if err != nil {
		return fmt.Errorf("delete reply %s of line %s: %w", replyID, lineID, err)
	}
	return nil
}

// startKey reads a page token and checks that it belongs to the
// partition being read. The HTTP layer binds a cursor to its list by name
// (a username), and a name can pass to another account; DynamoDB would
// reject a start key of another partition with a 500-worthy error, so
// such a token is an invalid cursor instead.
func startKey(token, hashAttr, pk string) (dynamo.PagingKey, error) {
	k, err := pagingKey(token)
	if err != nil || k == nil {
		return k, err
	}
	if v, ok := k[hashAttr].(*types.AttributeValueMemberS); !ok || v.Value != pk {
		return nil, apperr.Validation("Invalid cursor", map[string]string{"cursor": "belongs to another list"})
	}
	return k, nil
}

// stringKey builds a paging key from attribute name and value pairs.
func stringKey(nameValues ...string) dynamo.PagingKey {
	k := make(dynamo.PagingKey, len(nameValues)/2)
	for i := 0; i+1 < len(nameValues); i += 2 {
		k[nameValues[i]] = &types.AttributeValueMemberS{Value: nameValues[i+1]}
	}
	return k
}
