package lines

import (
	"context"
	"fmt"
	"sync"
	"time"

	"github.com/bookplatform/backend/shared/apperr"
	"github.com/bookplatform/backend/shared/books"
	"github.com/bookplatform/backend/shared/posts"
	"github.com/bookplatform/backend/shared/quota"
	"github.com/bookplatform/backend/shared/users"
	"github.com/google/uuid"
)

// Storer is the storage the lines service needs. Implementations return
// the errors named on each method (apperr values), never (nil, nil).
type Storer interface {
	// GetUser reads an account, strongly consistent (the quota's re-read).
	GetUser(ctx context.Context, id string) (*users.User, error)
	// UserIDByUsername resolves a username, in any case, to its account
	// id. Errors: NotFound.
	UserIDByUsername(ctx context.Context, username string) (string, error)
	// GetBook reads a book. Errors: NotFound.
	GetBook(ctx context.Context, id string) (*books.Book, error)
	// posts.Reader reads a page's authors and books in one batch.
	posts.Reader

	// CreateLine stores a new line, adds one to its book's totalLines and
	// makes the quota charge, all in one transaction. Errors:
	// ErrBookNotFound, quota.ErrStale (the charge's condition failed).
	CreateLine(ctx context.Context, l *Line, c quota.Charge) error
	// GetLine reads a line, strongly consistent. Errors: ErrLineNotFound.
	GetLine(ctx context.Context, id string) (*Line, error)
	// UpdateLine applies e to the line if authorID wrote it, and returns
	// the line as stored afterwards. Errors: ErrLineNotFound, ErrNotAuthor.
	UpdateLine(ctx context.Context, authorID, id string, e Edit, now time.Time) (*Line, error)
	// DeleteLine removes l, if it is still there and still l.UserID's,
	// and subtracts one from its book's totalLines, in one transaction.
	// Its replies and likes stay until DeleteLineChildren. Errors:
	// ErrLineNotFound.
	DeleteLine(ctx context.Context, l *Line) error
	// DeleteLineChildren removes every reply and like of a line that no
	// longer exists; nothing left to remove is not an error.
	DeleteLineChildren(ctx context.Context, id string) error
	// LikeLine records userID's like and returns the new likeCount.
	// Errors: ErrLineNotFound, ValidationError "Already liked".
	LikeLine(ctx context.Context, id, userID string) (int, error)
	// UnlikeLine removes userID's like and returns the new likeCount.
	// Errors: ErrLineNotFound, ValidationError "Not liked".
	UnlikeLine(ctx context.Context, id, userID string) (int, error)
	// LinesLikedBy reports which of the lines userID likes.
	LinesLikedBy(ctx context.Context, userID string, ids []string) (map[string]bool, error)
	// ListBookLines returns a page of a book's lines, newest first, and
	// the token of the next page ("" on the last). Errors:
	// ValidationError for a token it did not issue.
	ListBookLines(ctx context.Context, bookID string, p Page) ([]*Line, string, error)
	// ListUserLines is ListBookLines for the lines of one author.
	ListUserLines(ctx context.Context, userID string, p Page) ([]*Line, string, error)

	// CreateReply stores a reply, adds one to its line's replyCount and
	// makes the quota charge, in one transaction. Errors:
	// ErrLineNotFound, quota.ErrStale.
	CreateReply(ctx context.Context, r *Reply, c quota.Charge) error
	// ListReplies returns a page of a line's replies, oldest first.
	ListReplies(ctx context.Context, lineID string, p Page) ([]*Reply, string, error)
	// DeleteReply removes a reply written by authorID and subtracts one
	// from its line's replyCount, in one transaction. Errors:
	// ErrReplyNotFound, ErrNotReplyOwner, ErrLineNotFound.
	DeleteReply(ctx context.Context, authorID, lineID, replyID string) error
}

// Deps are the service's collaborators.
type Deps struct {
	Store Storer
	Quota quota.Policy
	Now   func() time.Time
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
// standing after the post. Errors: ValidationError (fields), Forbidden
// (monthly_limit_reached), NotFound (book).
func (s *Service) Create(ctx context.Context, caller *users.User, in NewLine) (*View, quota.Usage, error) {
	f := fieldErrors{}
	content, msg := CleanContent(in.Content)
	if msg != "" {
		f["content"] = msg
	}
	bookID, ok := ParseID(in.BookID)
	switch {
	case in.BookID == "":
		f["bookId"] = "is required"
	case !ok:
		f["bookId"] = "must be a UUID"
	}
	if msg := checkPage(in.PageNumber); msg != "" {
		f["pageNumber"] = msg
	}
	clubID, msg := optionalID(in.ClubID)
	if msg != "" {
		f["clubId"] = msg
	}
	challengeID, msg := optionalID(in.ChallengeID)
	if msg != "" {
		f["challengeId"] = msg
	}
	if err := f.err(); err != nil {
		return nil, quota.Usage{}, err
	}

	now := s.d.Now().UTC()
	l := &Line{
		ID: uuid.NewString(), UserID: caller.ID, BookID: bookID, Content: content,
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
		read    sync.WaitGroup
	)
	read.Go(func() { book, bookErr = s.d.Store.GetBook(ctx, bookID) })
	use, err := s.d.Quota.Do(ctx, caller, quota.Posts, now, s.reload(caller.ID), func(c quota.Charge) error {
		return s.d.Store.CreateLine(ctx, l, c)
	})
	read.Wait()
	if err != nil {
		return nil, quota.Usage{}, fmt.Errorf("create line on book %s: %w", bookID, err)
	}
	if bookErr != nil {
		return nil, quota.Usage{}, fmt.Errorf("read book %s of new line %s: %w", bookID, l.ID, bookErr)
	}
	return &View{Line: l, Author: caller, Book: book}, use, nil
}

// optionalID checks an optional UUID reference (clubId, challengeId).
func optionalID(v string) (string, string) {
	if v == "" {
		return "", ""
	}
	id, ok := ParseID(v)
	if !ok {
		return "", "must be a UUID or null"
	}
	return id, ""
}

// reload re-reads the caller for quota.Policy.Do after a lost race.
func (s *Service) reload(userID string) func(context.Context) (*users.User, error) {
	return func(ctx context.Context) (*users.User, error) { return s.d.Store.GetUser(ctx, userID) }
}

// Get returns a line with its author, its book and whether viewerID
// likes it. Errors: NotFound (also for an id that is not a UUID).
func (s *Service) Get(ctx context.Context, viewerID, id string) (*View, error) {
	id, ok := ParseID(id)
	if !ok {
		return nil, ErrLineNotFound
	}
	var (
		l               *Line
		liked           map[string]bool
		lineErr, likErr error
		wg              sync.WaitGroup
	)
	wg.Go(func() { l, lineErr = s.d.Store.GetLine(ctx, id) })
	wg.Go(func() { liked, likErr = s.d.Store.LinesLikedBy(ctx, viewerID, []string{id}) })
	wg.Wait()
	if lineErr != nil {
		return nil, fmt.Errorf("get line %s: %w", id, lineErr)
	}
	if likErr != nil {
		return nil, fmt.Errorf("get line %s: %w", id, likErr)
	}
	us, bs, err := s.d.Store.GetUsersAndBooks(ctx, []string{l.UserID}, []string{l.BookID})
	if err != nil {
		return nil, fmt.Errorf("get line %s: %w", id, err)
	}
	return &View{Line: l, Author: us[l.UserID], Book: bs[l.BookID], IsLiked: liked[id]}, nil
}

// Update changes the content (and, when e.SetPage, the page number) of a
// line written by callerID. Errors: ValidationError, Forbidden (not the
// author), NotFound.
func (s *Service) Update(ctx context.Context, callerID, id string, e Edit) (*Line, error) {
	id, ok := ParseID(id)
	if !ok {
		return nil, ErrLineNotFound
	}
	f := fieldErrors{}
	content, msg := CleanContent(e.Content)
	if msg != "" {
		f["content"] = msg
	}
	if msg := checkPage(e.PageNumber); e.SetPage && msg != "" {
		f["pageNumber"] = msg
	}
	if err := f.err(); err != nil {
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
// Errors: Forbidden (not the author), NotFound.
func (s *Service) Delete(ctx context.Context, callerID, id string) error {
	id, ok := ParseID(id)
	if !ok {
		return ErrLineNotFound
	}
	l, err := s.d.Store.GetLine(ctx, id)
	if apperr.Is(err, apperr.CodeNotFound) {
		// Finish a delete that stopped after its first step.
		if err := s.d.Store.DeleteLineChildren(ctx, id); err != nil {
			return fmt.Errorf("delete leftovers of line %s: %w", id, err)
		}
		return ErrLineNotFound
	}
	if err != nil {
		return fmt.Errorf("delete line %s: %w", id, err)
	}
	if l.UserID != callerID {
		return ErrNotAuthor
	}
	if err := s.d.Store.DeleteLine(ctx, l); err != nil {
		return fmt.Errorf("delete line %s: %w", id, err)
	}
	if err := s.d.Store.DeleteLineChildren(ctx, id); err != nil {
		return fmt.Errorf("delete replies and likes of line %s: %w", id, err)
	}
	return nil
}

// Like records callerID's like of a line and returns its likeCount.
// Errors: ValidationError "Already liked", NotFound.
func (s *Service) Like(ctx context.Context, callerID, id string) (int, error) {
	id, ok := ParseID(id)
	if !ok {
		return 0, ErrLineNotFound
	}
	n, err := s.d.Store.LikeLine(ctx, id, callerID)
	if err != nil {
		return 0, fmt.Errorf("like line %s: %w", id, err)
	}
	return n, nil
}

// Unlike removes callerID's like of a line and returns its likeCount.
// Errors: ValidationError "Not liked", NotFound.
func (s *Service) Unlike(ctx context.Context, callerID, id string) (int, error) {
	id, ok := ParseID(id)
	if !ok {
		return 0, ErrLineNotFound
	}
	n, err := s.d.Store.UnlikeLine(ctx, id, callerID)
	if err != nil {
		return 0, fmt.Errorf("unlike line %s: %w", id, err)
	}
	return n, nil
}

// ListByBook returns a page of a book's lines, newest first, each with its
// author and whether viewerID ("" when anonymous) likes it. Errors:
// NotFound (book), ValidationError (a token the store did not issue).
func (s *Service) ListByBook(ctx context.Context, bookID, viewerID string, p Page) (*LinePage, error) {
	bookID, ok := ParseID(bookID)
	if !ok {
		return nil, ErrBookNotFound
	}
	var (
		book             *books.Book
		items            []*Line
		next             string
		bookErr, listErr error
		wg               sync.WaitGroup
	)
	wg.Go(func() { book, bookErr = s.d.Store.GetBook(ctx, bookID) })
	wg.Go(func() { items, next, listErr = s.d.Store.ListBookLines(ctx, bookID, p) })
	wg.Wait()
	if bookErr != nil {
		return nil, fmt.Errorf("lines of book %s: %w", bookID, bookErr)
	}
	if listErr != nil {
		return nil, fmt.Errorf("lines of book %s: %w", bookID, listErr)
	}
	views, err := s.enrich(ctx, items, viewerID, map[string]*books.Book{book.ID: book})
	if err != nil {
		return nil, fmt.Errorf("lines of book %s: %w", bookID, err)
	}
	return &LinePage{Items: views, Next: next}, nil
}

// maxUsernameBytes bounds a username looked up from a path: longer ones
// cannot exist (users.ValidateUsername allows 30 characters).
const maxUsernameBytes = 120

// ListByUser returns a page of the lines of the account named username,
// newest first; see ListByBook. Errors: NotFound (user), ValidationError.
func (s *Service) ListByUser(ctx context.Context, username, viewerID string, p Page) (*LinePage, error) {
	if username == "" || len(username) > maxUsernameBytes {
		return nil, ErrUserNotFound
	}
	userID, err := s.d.Store.UserIDByUsername(ctx, username)
	if err != nil {
		return nil, fmt.Errorf("lines of user %q: %w", username, err)
	}
	items, next, err := s.d.Store.ListUserLines(ctx, userID, p)
	if err != nil {
		return nil, fmt.Errorf("lines of user %s: %w", userID, err)
	}
	views, err := s.enrich(ctx, items, viewerID, nil)
	if err != nil {
		return nil, fmt.Errorf("lines of user %s: %w", userID, err)
	}
	return &LinePage{Items: views, Next: next}, nil
}

// enrich turns a page of lines into views: one batch read for the authors
// and the books not already known, and beside it one for the viewer's
// likes.
func (s *Service) enrich(ctx context.Context, items []*Line, viewerID string, known map[string]*books.Book) ([]View, error) {
	refs := make([]posts.Ref, len(items))
	for i, l := range items {
		refs[i] = posts.Ref{ID: l.ID, UserID: l.UserID, BookID: l.BookID}
	}
	pc, err := posts.Load(ctx, s.d.Store, s.d.Store.LinesLikedBy, viewerID, refs, known)
	if err != nil {
		return nil, err
	}
	views := make([]View, len(items))
	for i, l := range items {
		views[i] = View{Line: l, Author: pc.Authors[l.UserID], Book: pc.Books[l.BookID], IsLiked: pc.Liked[l.ID]}
	}
	return views, nil
}

// CreateReply posts a reply by caller to a line; a reply is a post, so it
// counts against the monthly post quota like a line. Errors:
// ValidationError, Forbidden (monthly_limit_reached), NotFound (line).
func (s *Service) CreateReply(ctx context.Context, caller *users.User, lineID, content string) (*ReplyView, quota.Usage, error) {
	lineID, ok := ParseID(lineID)
	if !ok {
		return nil, quota.Usage{}, ErrLineNotFound
	}
	content, msg := CleanContent(content)
	if msg != "" {
		return nil, quota.Usage{}, fieldErrors{"content": msg}.err()
	}
	now := s.d.Now().UTC()
	r := &Reply{ID: NewReplyID(now), LineID: lineID, UserID: caller.ID, Content: content, CreatedAt: now}
	use, err := s.d.Quota.Do(ctx, caller, quota.Posts, now, s.reload(caller.ID), func(c quota.Charge) error {
		return s.d.Store.CreateReply(ctx, r, c)
	})
	if err != nil {
		return nil, quota.Usage{}, fmt.Errorf("reply to line %s: %w", lineID, err)
	}
	return &ReplyView{Reply: r, Author: caller}, use, nil
}

// ListReplies returns a page of a line's replies, oldest first, each with
// its author. Errors: NotFound (line), ValidationError.
func (s *Service) ListReplies(ctx context.Context, lineID string, p Page) (*ReplyPage, error) {
	lineID, ok := ParseID(lineID)
	if !ok {
		return nil, ErrLineNotFound
	}
	var (
		items            []*Reply
		next             string
		lineErr, listErr error
		wg               sync.WaitGroup
	)
	// The line is read only to answer 404 for a line that is gone.
	wg.Go(func() { _, lineErr = s.d.Store.GetLine(ctx, lineID) })
	wg.Go(func() { items, next, listErr = s.d.Store.ListReplies(ctx, lineID, p) })
	wg.Wait()
	if lineErr != nil {
		return nil, fmt.Errorf("replies of line %s: %w", lineID, lineErr)
	}
	if listErr != nil {
		return nil, fmt.Errorf("replies of line %s: %w", lineID, listErr)
	}
	page := &ReplyPage{Items: make([]ReplyView, len(items)), Next: next}
	if len(items) == 0 {
		return page, nil
	}
	userIDs := make([]string, len(items))
	for i, r := range items {
		userIDs[i] = r.UserID
	}
	us, _, err := s.d.Store.GetUsersAndBooks(ctx, userIDs, nil)
	if err != nil {
		return nil, fmt.Errorf("replies of line %s: %w", lineID, err)
	}
	for i, r := range items {
		page.Items[i] = ReplyView{Reply: r, Author: us[r.UserID]}
	}
	return page, nil
}

// DeleteReply removes a reply written by callerID. Errors: Forbidden (not
// the reply's author), NotFound (line or reply).
func (s *Service) DeleteReply(ctx context.Context, callerID, lineID, replyID string) error {
	lineID, ok := ParseID(lineID)
	if !ok {
		return ErrLineNotFound
	}
	if !validReplyID(replyID) {
		return ErrReplyNotFound
	}
	if err := s.d.Store.DeleteReply(ctx, callerID, lineID, replyID); err != nil {
		return fmt.Errorf("delete reply %s of line %s: %w", replyID, lineID, err)
	}
	return nil
}
