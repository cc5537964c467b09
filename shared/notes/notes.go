// Package notes is the private reading notes domain: a reader's notes on
// a book (text and an optional page), which only their author ever
// sees, and the service behind the notes endpoint group. Notes are kept
// by author: every read and change is addressed by the caller's id and
// the note's, so another account's request names nothing that exists
// and is answered 404, never 403. Notes are not published, so they do
// not count toward the free tier's monthly quota (docs/decisions.md,
// "Notes"). It imports no AWS and no HTTP package.
package notes

import (
	"context"
	"fmt"
	"time"

	"github.com/bookplatform/backend/shared/apperr"
	"github.com/bookplatform/backend/shared/books"
	"github.com/bookplatform/backend/shared/ids"
	"github.com/bookplatform/backend/shared/page"
	"github.com/bookplatform/backend/shared/posts"
	"github.com/bookplatform/backend/shared/text"
	"golang.org/x/sync/errgroup"
)

// Limits of a note (the spec shows none). A note is longer than a line:
// it is a reader's own working text, not a post.
const (
	MaxContentRunes = 10000
	MaxPageNumber   = 100000 // as lines
)

// Note is a stored note.
type Note struct {
	ID         string
	UserID     string // the author, the only one who sees it
	BookID     string
	Content    string
	PageNumber int // 0 when not given
	CreatedAt  time.Time
	UpdatedAt  time.Time
}

// View is a note with its book (nil when the record is missing).
type View struct {
	*Note
	Book *books.Book
}

// NewNote is a request to write a note.
type NewNote struct {
	BookID     string
	Content    string
	PageNumber *int // nil when not given
}

// UpdateNote is a partial change of a note: Content when not nil, the page
// when SetPage (PageNumber nil clears it).
type UpdateNote struct {
	Content    *string
	SetPage    bool
	PageNumber *int
}

// ErrNotFound is a note that does not exist for the caller: missing, or
// another account's.
var ErrNotFound = apperr.NotFound("Note not found")

// Storer is the storage of notes. Implementations return the errors
// named on each method wrapped with context, never (nil, nil).
type Storer interface {
	// CreateNote stores n, conditional on its book existing. Errors:
	// books.ErrNotFound.
	CreateNote(ctx context.Context, n *Note) error
	// GetNote reads userID's note id, strongly consistent. Errors:
	// ErrNotFound.
	GetNote(ctx context.Context, userID, id string) (*Note, error)
	// UpdateNote applies e to userID's note id and returns it as stored
	// afterwards. Errors: ErrNotFound.
	UpdateNote(ctx context.Context, userID, id string, e UpdateNote, now time.Time) (*Note, error)
	// DeleteNote removes userID's note id. Errors: ErrNotFound.
	DeleteNote(ctx context.Context, userID, id string) error
	// ListNotes reads a page of userID's notes, newest first, and
	// ListBookNotes one of those on one book. Errors:
	// page.ErrInvalidCursor.
	ListNotes(ctx context.Context, userID string, c page.Cursor) (page.Page[*Note], error)
	ListBookNotes(ctx context.Context, userID, bookID string, c page.Cursor) (page.Page[*Note], error)
}

// Deps are the service's collaborators.
type Deps struct {
	Store  Storer
	Books  posts.Books  // a note's book
	Briefs posts.Reader // the books of a page of notes
	Now    func() time.Time
}

// Service implements notes.
type Service struct {
	d Deps
}

// NewService returns the notes service.
func NewService(d Deps) *Service {
	if d.Now == nil {
		d.Now = time.Now
	}
	return &Service{d: d}
}

// checkPage returns a message when p is not a page number.
func checkPage(p *int) string {
	if p != nil && (*p < 1 || *p > MaxPageNumber) {
		return fmt.Sprintf("must be an integer from 1 to %d", MaxPageNumber)
	}
	return ""
}

// Create writes a note by callerID on a book. Errors: ValidationError,
// books.ErrNotFound.
func (s *Service) Create(ctx context.Context, callerID string, in NewNote) (*View, error) {
	var f apperr.Fields
	content, msg := text.Body(in.Content, MaxContentRunes)
	f.Add("content", msg)
	bookID, msg := ids.Required(in.BookID)
	f.Add("bookId", msg)
	f.Add("pageNumber", checkPage(in.PageNumber))
	if err := f.Err(); err != nil {
		return nil, err
	}
	now := s.d.Now().UTC()
	n := &Note{ID: ids.New(), UserID: callerID, BookID: bookID, Content: content, CreatedAt: now, UpdatedAt: now}
	if in.PageNumber != nil {
		n.PageNumber = *in.PageNumber
	}
	// The book is read beside the write, whose condition is the
	// existence check.
	var (
		book    *books.Book
		bookErr error
		g       errgroup.Group
	)
	g.Go(func() error { book, bookErr = s.d.Books.GetBook(ctx, bookID); return nil })
	g.Go(func() error { return s.d.Store.CreateNote(ctx, n) })
	if err := g.Wait(); err != nil {
		return nil, fmt.Errorf("create note on book %s: %w", bookID, err)
	}
	if bookErr != nil {
		book = nil // the note is stored; its book shows as null this once
	}
	return &View{Note: n, Book: book}, nil
}

// Get returns callerID's note id with its book. Errors: ErrNotFound
// (also for another account's note, and an id that is not a UUID).
func (s *Service) Get(ctx context.Context, callerID, id string) (*View, error) {
	id, ok := ids.Parse(id)
	if !ok {
		return nil, ErrNotFound
	}
	n, err := s.d.Store.GetNote(ctx, callerID, id)
	if err != nil {
		return nil, fmt.Errorf("get note %s: %w", id, err)
	}
	return s.withBook(ctx, n), nil
}

// withBook reads a note's book; a book that cannot be read is shown as
// null rather than failing the answer.
func (s *Service) withBook(ctx context.Context, n *Note) *View {
	b, err := s.d.Books.GetBook(ctx, n.BookID)
	if err != nil {
		b = nil
	}
	return &View{Note: n, Book: b}
}

// List returns a page of callerID's notes, newest first, all of them or
// (bookID not "") those on one book, each with its book. Errors:
// ValidationError (a bookId that is not a UUID), page.ErrInvalidCursor.
func (s *Service) List(ctx context.Context, callerID, bookID string, c page.Cursor) (page.Page[View], error) {
	var (
		p   page.Page[*Note]
		err error
	)
	if bookID == "" {
		p, err = s.d.Store.ListNotes(ctx, callerID, c)
	} else {
		id, ok := ids.Parse(bookID)
		if !ok {
			return page.Page[View]{}, apperr.Validation("bookId must be a UUID", map[string]string{"bookId": "must be a UUID"})
		}
		p, err = s.d.Store.ListBookNotes(ctx, callerID, id, c)
	}
	if err != nil {
		return page.Page[View]{}, fmt.Errorf("notes of %s: %w", callerID, err)
	}
	bookIDs := make([]string, len(p.Items))
	for i, n := range p.Items {
		bookIDs[i] = n.BookID
	}
	_, bs, err := s.d.Briefs.GetUsersAndBooks(ctx, nil, bookIDs)
	if err != nil {
		return page.Page[View]{}, fmt.Errorf("books of notes of %s: %w", callerID, err)
	}
	return page.Map(p, func(n *Note) View { return View{Note: n, Book: bs[n.BookID]} }), nil
}

// Update changes callerID's note id: its content when given, its page
// when set. A change of nothing answers the note as it is. Errors:
// ValidationError, ErrNotFound.
func (s *Service) Update(ctx context.Context, callerID, id string, e UpdateNote) (*View, error) {
	id, ok := ids.Parse(id)
	if !ok {
		return nil, ErrNotFound
	}
	var f apperr.Fields
	if e.Content != nil {
		c, msg := text.Body(*e.Content, MaxContentRunes)
		f.Add("content", msg)
		e.Content = &c
	}
	if e.SetPage {
		f.Add("pageNumber", checkPage(e.PageNumber))
	}
	if err := f.Err(); err != nil {
		return nil, err
	}
	var (
		n   *Note
		err error
	)
	if e.Content == nil && !e.SetPage {
		n, err = s.d.Store.GetNote(ctx, callerID, id)
	} else {
		n, err = s.d.Store.UpdateNote(ctx, callerID, id, e, s.d.Now().UTC())
	}
	if err != nil {
		return nil, fmt.Errorf("update note %s: %w", id, err)
	}
	return s.withBook(ctx, n), nil
}

// Delete removes callerID's note id. Errors: ErrNotFound.
func (s *Service) Delete(ctx context.Context, callerID, id string) error {
	id, ok := ids.Parse(id)
	if !ok {
		return ErrNotFound
	}
	if err := s.d.Store.DeleteNote(ctx, callerID, id); err != nil {
		return fmt.Errorf("delete note %s: %w", id, err)
	}
	return nil
}
