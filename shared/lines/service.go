package lines

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/bookplatform/backend/shared/apperr"
	"github.com/bookplatform/backend/shared/books"
	"github.com/bookplatform/backend/shared/challenges"
	"github.com/bookplatform/backend/shared/clubs"
	"github.com/bookplatform/backend/shared/ids"
	"github.com/bookplatform/backend/shared/likes"
	"github.com/bookplatform/backend/shared/optimistic"
	"github.com/bookplatform/backend/shared/page"
	"github.com/bookplatform/backend/shared/posts"
	"github.com/bookplatform/backend/shared/quota"
	"github.com/bookplatform/backend/shared/text"
	"github.com/bookplatform/backend/shared/users"
	"golang.org/x/sync/errgroup"
)

// Storer is the storage of lines, replies and their likes.
// Implementations return the errors named on each method wrapped with
// context, never (nil, nil).
type Storer interface {
	// CreateLine stores a new line, adds one to its book's totalLines and
	// makes the quota charge, all in one transaction; a line in a club or
	// a challenge requires there the author's membership or
	// participation. Errors: books.ErrNotFound, clubs.ErrNotFound,
	// clubs.ErrMembersOnly, challenges.ErrNotFound,
	// challenges.ErrParticipantsOnly, quota.ErrStale (the charge's
	// condition failed).
	CreateLine(ctx context.Context, l *Line, c quota.Charge) error
	// GetLine reads a line, strongly consistent. Errors: ErrNotFound.
	GetLine(ctx context.Context, id string) (*Line, error)
	// TakenDownLine reads a line an operator took down, as it was, and
	// the takedown. Errors: ErrNotFound (no line of the id was taken down).
	TakenDownLine(ctx context.Context, id string) (*Line, *posts.TakenDown, error)
	// UpdateLine applies e to the line if authorID wrote it, and returns
	// the line as stored afterwards. Errors: ErrNotFound, ErrNotAuthor.
	UpdateLine(ctx context.Context, authorID, id string, e UpdateLine, now time.Time) (*Line, error)
	// DeleteLine removes l, if it is still there and still l.UserID's,
	// and subtracts one from its book's totalLines, in one transaction.
	// Its replies and likes stay until DeleteLineChildren. Errors:
	// ErrNotFound.
	DeleteLine(ctx context.Context, l *Line) error
	// DeleteLineChildren removes every reply and like of a line that no
	// longer exists; nothing left to remove is not an error.
	DeleteLineChildren(ctx context.Context, id string) error
	// Like records userID's like of a line; Unlike removes it. Errors:
	// ErrNotFound, likes.ErrAlreadyLiked, likes.ErrNotLiked.
	Like(ctx context.Context, id, userID string) (likes.Result, error)
	Unlike(ctx context.Context, id, userID string) (likes.Result, error)
	// LikedBy reports which of the lines userID ("" for none) likes.
	LikedBy(ctx context.Context, userID string, ids []string) (map[string]bool, error)
	// ListBookLines reads a page of a book's lines, newest first, and
	// ListUserLines one of an author's. Errors: page.ErrInvalidCursor.
	ListBookLines(ctx context.Context, bookID string, c page.Cursor) (page.Page[*Line], error)
	ListUserLines(ctx context.Context, userID string, c page.Cursor) (page.Page[*Line], error)
	// ListClubLines reads a page of a club's lines, newest first, and
	// ListChallengeLines one of a challenge's. Errors:
	// page.ErrInvalidCursor.
	ListClubLines(ctx context.Context, clubID string, c page.Cursor) (page.Page[*Line], error)
	ListChallengeLines(ctx context.Context, challengeID string, c page.Cursor) (page.Page[*Line], error)

	// CreateReply stores a reply, adds one to its line's replyCount and
	// makes the quota charge, in one transaction. Errors: ErrNotFound,
	// quota.ErrStale.
	CreateReply(ctx context.Context, r *Reply, c quota.Charge) error
	// ListReplies reads a page of a line's replies, oldest first.
	ListReplies(ctx context.Context, lineID string, c page.Cursor) (page.Page[*Reply], error)
	// DeleteReply removes a reply written by authorID and subtracts one
	// from its line's replyCount, in one transaction. Errors:
	// ErrNotFound, ErrReplyNotFound, ErrNotReplyAuthor.
	DeleteReply(ctx context.Context, authorID, lineID, replyID string) error
}

// Clubs reads what the lines of a club need: the club (its visibility)
// and a reader's membership (clubs.ErrMemberNotFound when none).
type Clubs interface {
	GetClub(ctx context.Context, id string) (*clubs.Club, error)
	GetMember(ctx context.Context, clubID, userID string) (*clubs.Member, error)
}

// Challenges reads a challenge, for its line list's 404.
type Challenges interface {
	GetChallenge(ctx context.Context, id string) (*challenges.Challenge, error)
}

// Deps are the service's collaborators: its store, the clubs and
// challenges lines may be posted in, and what every post service reads
// (posts.Deps).
type Deps struct {
	Store      Storer
	Clubs      Clubs
	Challenges Challenges
	posts.Deps
}

// Service implements lines, their likes and replies.
type Service struct {
	d Deps
}

// NewService returns the lines service.
func NewService(d Deps) *Service {
	if d.Now == nil {
		d.Now = time.Now
	}
	return &Service{d: d}
}

// Create posts a line by caller, counted against the monthly post quota.
// It returns the line as the caller sees it and the caller's quota
// standing after the post. A line in a club needs the caller's
// membership, one in a challenge their participation, checked in the
// post's own transaction. Errors: ValidationError (fields, a club and a
// challenge together), Forbidden (monthly_limit_reached),
// clubs.ErrMembersOnly, challenges.ErrParticipantsOnly,
// books.ErrNotFound, clubs.ErrNotFound, challenges.ErrNotFound,
// apperr.ErrContention.
func (s *Service) Create(ctx context.Context, caller *users.User, in NewLine) (*View, quota.Usage, error) {
	var f apperr.Fields
	content, msg := text.Body(in.Content, MaxContentRunes)
	f.Add("content", msg)
	bookID, msg := ids.Required(in.BookID)
	f.Add("bookId", msg)
	f.Add("pageNumber", checkPage(in.PageNumber))
	clubID, ok := ids.Optional(in.ClubID)
	if !ok {
		f.Add("clubId", "must be a UUID or null")
	}
	challengeID, ok := ids.Optional(in.ChallengeID)
	if !ok {
		f.Add("challengeId", "must be a UUID or null")
	}
	if clubID != "" && challengeID != "" {
		f.Add("challengeId", "a line is posted in a club or in a challenge, not both")
	}
	if err := f.Err(); err != nil {
		return nil, quota.Usage{}, err
	}

	now := s.d.Now().UTC()
	l := &Line{
		ID: ids.New(), UserID: caller.ID, BookID: bookID, Content: content,
		ClubID: clubID, ChallengeID: challengeID, CreatedAt: now, UpdatedAt: now,
	}
	if in.PageNumber != nil {
		l.PageNumber = *in.PageNumber
	}

	// The book is read beside the write, not before it: the transaction's
	// condition on the book item is the existence check, and the read
	// only supplies the BookBrief of the answer.
	var (
		book    *books.Book
		bookErr error
		use     quota.Usage
		g       errgroup.Group
	)
	g.Go(func() error { book, bookErr = s.d.Books.GetBook(ctx, bookID); return nil })
	g.Go(func() (err error) {
		use, err = s.d.Quota.Do(ctx, s.d.Users, caller, quota.Posts, now, func(c quota.Charge) error {
			return s.d.Store.CreateLine(ctx, l, c)
		})
		return err
	})
	if err := g.Wait(); err != nil {
		return nil, quota.Usage{}, fmt.Errorf("create line on book %s: %w", bookID, err)
	}
	if bookErr != nil {
		// The line is stored: the answer must say so, not fail. The
		// book exists (the transaction required it), so read it again.
		if book, bookErr = s.d.Books.GetBook(ctx, bookID); bookErr != nil {
			book = nil // shown as null; the line is there all the same
		}
	}
	return &View{Post: l, Author: caller, Book: book}, use, nil
}

// Get returns a line with its author, its book and whether viewer likes
// it. A line posted in a private club is the club's members' and its
// author's to see (canSee). An author viewing their own line is not read
// again (posts.Known). Errors: ErrNotFound (also for an id that is not
// a UUID), clubs.ErrPrivate.
func (s *Service) Get(ctx context.Context, viewer posts.Known, id string) (*View, error) {
	viewerID := viewer.ID
	id, ok := ids.Parse(id)
	if !ok {
		return nil, ErrNotFound
	}
	var (
		l     *Line
		liked map[string]bool
		g     errgroup.Group
	)
	g.Go(func() (err error) { l, err = s.d.Store.GetLine(ctx, id); return err })
	g.Go(func() (err error) { liked, err = s.d.Store.LikedBy(ctx, viewerID, []string{id}); return err })
	if err := g.Wait(); errors.Is(err, ErrNotFound) && viewerID != "" {
		return s.takenDown(ctx, viewer, id)
	} else if err != nil {
		return nil, fmt.Errorf("get line %s: %w", id, err)
	}
	var (
		us map[string]*users.User
		bs map[string]*books.Book
	)
	g.Go(func() (err error) {
		us, bs, err = viewer.Skip(s.d.Briefs).GetUsersAndBooks(ctx, []string{l.UserID}, []string{l.BookID})
		return err
	})
	g.Go(func() error { return s.canSee(ctx, l, viewerID) })
	if err := g.Wait(); err != nil {
		return nil, fmt.Errorf("get line %s: %w", id, err)
	}
	us = viewer.Add(us, l.UserID)
	return &View{Post: l, Author: us[l.UserID], Book: bs[l.BookID], IsLiked: liked[id]}, nil
}

// takenDown answers a line that is not there: to its author, the line
// an operator took down, with the takedown; to anyone else (and for a
// line never taken down), ErrNotFound. The takedown is read only after
// a line was not found by a signed-in viewer, so a line that is there
// costs nothing more. Its likes were removed with it: isLiked is false.
// The author is the viewer, whose account the request has (posts.Known).
func (s *Service) takenDown(ctx context.Context, viewer posts.Known, id string) (*View, error) {
	l, td, err := s.d.Store.TakenDownLine(ctx, id)
	if err != nil {
		return nil, fmt.Errorf("get line %s: %w", id, err)
	}
	if l.UserID != viewer.ID {
		return nil, ErrNotFound
	}
	us, bs, err := viewer.Skip(s.d.Briefs).GetUsersAndBooks(ctx, []string{l.UserID}, []string{l.BookID})
	if err != nil {
		return nil, fmt.Errorf("get line %s: %w", id, err)
	}
	us = viewer.Add(us, l.UserID)
	return &View{Post: l, Author: us[l.UserID], Book: bs[l.BookID], TakenDown: td}, nil
}

// canSee applies the club's visibility to a line posted in a club: its
// author sees it always; anyone else as they see the club
// (clubs.CanRead), and not at all once the club is deleted (its lines
// stay for their authors: docs/decisions.md). Errors: ErrNotFound,
// clubs.ErrPrivate.
func (s *Service) canSee(ctx context.Context, l *Line, viewerID string) error {
	if l.ClubID == "" || l.UserID == viewerID {
		return nil
	}
	c, m, err := s.clubAndMember(ctx, l.ClubID, viewerID)
	if errors.Is(err, clubs.ErrNotFound) {
		return ErrNotFound
	}
	if err != nil {
		return err
	}
	return clubs.CanRead(c, m, viewerID)
}

// clubAndMember reads a club and viewerID's membership of it side by
// side; the membership is nil for an anonymous viewer or a non-member.
// Errors: clubs.ErrNotFound.
func (s *Service) clubAndMember(ctx context.Context, clubID, viewerID string) (*clubs.Club, *clubs.Member, error) {
	var (
		c *clubs.Club
		m *clubs.Member
		g errgroup.Group
	)
	g.Go(func() (err error) { c, err = s.d.Clubs.GetClub(ctx, clubID); return err })
	if viewerID != "" {
		g.Go(func() (err error) {
			m, err = s.d.Clubs.GetMember(ctx, clubID, viewerID)
			if errors.Is(err, clubs.ErrMemberNotFound) {
				m, err = nil, nil
			}
			return err
		})
	}
	if err := g.Wait(); err != nil {
		return nil, nil, err
	}
	return c, m, nil
}

// Update changes the content (and, when e.SetPage, the page number) of a
// line written by callerID. Errors: ValidationError, ErrNotAuthor,
// ErrNotFound.
func (s *Service) Update(ctx context.Context, callerID, id string, e UpdateLine) (*Line, error) {
	id, ok := ids.Parse(id)
	if !ok {
		return nil, ErrNotFound
	}
	var f apperr.Fields
	content, msg := text.Body(e.Content, MaxContentRunes)
	f.Add("content", msg)
	if e.SetPage {
		f.Add("pageNumber", checkPage(e.PageNumber))
	}
	if err := f.Err(); err != nil {
		return nil, err
	}
	e.Content = content
	l, err := s.d.Store.UpdateLine(ctx, callerID, id, e, s.d.Now().UTC())
	if err != nil {
		return nil, fmt.Errorf("update line %s: %w", id, err)
	}
	return l, nil
}

// Delete removes a line written by callerID, with its replies and likes,
// and corrects its book's totalLines. The line and the counter change
// together; the replies and likes go afterwards, so a failure in between
// leaves only records of a line that no longer exists, which no endpoint
// shows, and a retried DELETE (404 by then) removes them (docs/decisions.md).
// Errors: ErrNotAuthor, ErrNotFound.
func (s *Service) Delete(ctx context.Context, callerID, id string) error {
	id, ok := ids.Parse(id)
	if !ok {
		return ErrNotFound
	}
	return optimistic.Delete[*Line]{
		What: "line", Children: "replies and likes",
		Get: s.d.Store.GetLine, NotFound: ErrNotFound,
		Allow: func(l *Line) error {
			if l.UserID != callerID {
				return ErrNotAuthor
			}
			return nil
		},
		Remove: s.d.Store.DeleteLine,
		Purge:  s.d.Store.DeleteLineChildren,
	}.Run(ctx, id)
}

// Like records callerID's like of a line, which callerID must be able to
// see (canSee: a private club's line only to its members). Errors:
// likes.ErrAlreadyLiked, ErrNotFound, clubs.ErrPrivate.
func (s *Service) Like(ctx context.Context, callerID, id string) (likes.Result, error) {
	if err := s.mustSee(ctx, callerID, id); err != nil {
		return likes.Result{}, err
	}
	return likes.Apply(ctx, s.d.Store.Like, id, callerID, ErrNotFound)
}

// mustSee reads the line id and applies canSee for callerID: what a
// reader may not read, they may not like or reply to either. A line
// outside a club costs this one read. Errors: ErrNotFound,
// clubs.ErrPrivate.
func (s *Service) mustSee(ctx context.Context, callerID, id string) error {
	id, ok := ids.Parse(id)
	if !ok {
		return ErrNotFound
	}
	l, err := s.d.Store.GetLine(ctx, id)
	if err != nil {
		return fmt.Errorf("line %s: %w", id, err)
	}
	return s.canSee(ctx, l, callerID)
}

// Unlike removes callerID's like of a line. Errors: likes.ErrNotLiked,
// ErrNotFound.
func (s *Service) Unlike(ctx context.Context, callerID, id string) (likes.Result, error) {
	return likes.Apply(ctx, s.d.Store.Unlike, id, callerID, ErrNotFound)
}

// ListByBook returns a page of a book's lines, newest first, each with its
// author and whether viewer (ID "" when anonymous) likes it. Errors:
// books.ErrNotFound, page.ErrInvalidCursor.
func (s *Service) ListByBook(ctx context.Context, bookID string, viewer posts.Known, c page.Cursor) (page.Page[View], error) {
	book, p, err := posts.BookPage(ctx, s.d.Books, bookID, func(ctx context.Context, bookID string) (page.Page[*Line], error) {
		return s.d.Store.ListBookLines(ctx, bookID, c)
	})
	if err != nil {
		return page.Page[View]{}, err
	}
	return posts.Views(ctx, s.d.Briefs, s.d.Store.LikedBy, viewer, p, book)
}

// ListByUser returns a page of the lines of the account named username,
// newest first; see ListByBook. Errors: users.ErrNotFound,
// page.ErrInvalidCursor.
func (s *Service) ListByUser(ctx context.Context, username string, viewer posts.Known, c page.Cursor) (page.Page[View], error) {
	p, err := posts.UserPage(ctx, s.d.Users, username, func(ctx context.Context, userID string) (page.Page[*Line], error) {
		return s.d.Store.ListUserLines(ctx, userID, c)
	})
	if err != nil {
		return page.Page[View]{}, err
	}
	return posts.Views(ctx, s.d.Briefs, s.d.Store.LikedBy, viewer, p, nil)
}

// ListByClub returns a page of a club's lines, newest first, to viewer
// (ID "" when anonymous), who must be able to see the club
// (clubs.CanRead): the club, the viewer's membership and the page are
// read side by side, then the page's authors, books and the viewer's
// likes. Errors: clubs.ErrNotFound (also for an id that is not a UUID),
// clubs.ErrSignInRequired, clubs.ErrPrivate, page.ErrInvalidCursor.
func (s *Service) ListByClub(ctx context.Context, clubID string, viewer posts.Known, c page.Cursor) (page.Page[View], error) {
	viewerID := viewer.ID
	clubID, ok := ids.Parse(clubID)
	if !ok {
		return page.Page[View]{}, clubs.ErrNotFound
	}
	var (
		club *clubs.Club
		m    *clubs.Member
		p    page.Page[*Line]
		g    errgroup.Group
	)
	g.Go(func() (err error) { club, m, err = s.clubAndMember(ctx, clubID, viewerID); return err })
	g.Go(func() (err error) { p, err = s.d.Store.ListClubLines(ctx, clubID, c); return err })
	if err := g.Wait(); err != nil {
		return page.Page[View]{}, fmt.Errorf("lines of club %s: %w", clubID, err)
	}
	if err := clubs.CanRead(club, m, viewerID); err != nil {
		return page.Page[View]{}, err
	}
	return posts.Views(ctx, s.d.Briefs, s.d.Store.LikedBy, viewer, p, nil)
}

// ListByChallenge returns a page of a challenge's lines, newest first;
// see ListByBook. Errors: challenges.ErrNotFound, page.ErrInvalidCursor.
func (s *Service) ListByChallenge(ctx context.Context, challengeID string, viewer posts.Known, c page.Cursor) (page.Page[View], error) {
	challengeID, ok := ids.Parse(challengeID)
	if !ok {
		return page.Page[View]{}, challenges.ErrNotFound
	}
	var (
		p page.Page[*Line]
		g errgroup.Group
	)
	g.Go(func() error { _, err := s.d.Challenges.GetChallenge(ctx, challengeID); return err })
	g.Go(func() (err error) { p, err = s.d.Store.ListChallengeLines(ctx, challengeID, c); return err })
	if err := g.Wait(); err != nil {
		return page.Page[View]{}, fmt.Errorf("lines of challenge %s: %w", challengeID, err)
	}
	return posts.Views(ctx, s.d.Briefs, s.d.Store.LikedBy, viewer, p, nil)
}

// CreateReply posts a reply by caller to a line; a reply is a post, so it
// counts against the monthly post quota like a line. The caller must be
// able to see the line (canSee). Errors: ValidationError, Forbidden
// (monthly_limit_reached), ErrNotFound, clubs.ErrPrivate,
// apperr.ErrContention.
func (s *Service) CreateReply(ctx context.Context, caller *users.User, lineID, content string) (*ReplyView, quota.Usage, error) {
	lineID, ok := ids.Parse(lineID)
	if !ok {
		return nil, quota.Usage{}, ErrNotFound
	}
	content, msg := text.Body(content, MaxContentRunes)
	var f apperr.Fields
	f.Add("content", msg)
	if err := f.Err(); err != nil {
		return nil, quota.Usage{}, err
	}
	if err := s.mustSee(ctx, caller.ID, lineID); err != nil {
		return nil, quota.Usage{}, err
	}
	now := s.d.Now().UTC()
	r := &Reply{ID: NewReplyID(now), LineID: lineID, UserID: caller.ID, Content: content, CreatedAt: now}
	use, err := s.d.Quota.Do(ctx, s.d.Users, caller, quota.Posts, now, func(c quota.Charge) error {
		return s.d.Store.CreateReply(ctx, r, c)
	})
	if err != nil {
		return nil, quota.Usage{}, fmt.Errorf("reply to line %s: %w", lineID, err)
	}
	return &ReplyView{Reply: r, Author: caller}, use, nil
}

// ListReplies returns a page of a line's replies, oldest first, each with
// its author, to viewerID, who must be able to see the line (canSee).
// Errors: ErrNotFound, clubs.ErrPrivate, page.ErrInvalidCursor.
func (s *Service) ListReplies(ctx context.Context, lineID, viewerID string, c page.Cursor) (page.Page[ReplyView], error) {
	lineID, ok := ids.Parse(lineID)
	if !ok {
		return page.Page[ReplyView]{}, ErrNotFound
	}
	var (
		l *Line
		p page.Page[*Reply]
		g errgroup.Group
	)
	// The line is read to answer 404 for a line that is gone, and to
	// apply its club's visibility.
	g.Go(func() (err error) { l, err = s.d.Store.GetLine(ctx, lineID); return err })
	g.Go(func() (err error) { p, err = s.d.Store.ListReplies(ctx, lineID, c); return err })
	if err := g.Wait(); err != nil {
		return page.Page[ReplyView]{}, fmt.Errorf("replies of line %s: %w", lineID, err)
	}
	var us map[string]*users.User
	g.Go(func() (err error) {
		us, err = posts.Accounts(ctx, s.d.Briefs, p.Items, func(r *Reply) string { return r.UserID })
		return err
	})
	g.Go(func() error { return s.canSee(ctx, l, viewerID) })
	if err := g.Wait(); err != nil {
		return page.Page[ReplyView]{}, fmt.Errorf("replies of line %s: %w", lineID, err)
	}
	return page.Map(p, func(r *Reply) ReplyView { return ReplyView{Reply: r, Author: us[r.UserID]} }), nil
}

// DeleteReply removes a reply written by callerID. Errors:
// ErrNotReplyAuthor, ErrNotFound, ErrReplyNotFound.
func (s *Service) DeleteReply(ctx context.Context, callerID, lineID, replyID string) error {
	lineID, ok := ids.Parse(lineID)
	if !ok {
		return ErrNotFound
	}
	if !ValidReplyID(replyID) {
		return ErrReplyNotFound
	}
	if err := s.d.Store.DeleteReply(ctx, callerID, lineID, replyID); err != nil {
		return fmt.Errorf("delete reply %s of line %s: %w", replyID, lineID, err)
	}
	return nil
}
