package clubs

import (
	"context"
	"fmt"
	"sort"
	"time"

	"github.com/bookplatform/backend/shared/apperr"
	"github.com/bookplatform/backend/shared/books"
	"github.com/bookplatform/backend/shared/dates"
	"github.com/bookplatform/backend/shared/ids"
	"github.com/bookplatform/backend/shared/text"
	"golang.org/x/sync/errgroup"
)

// BookStorer is the storage of club books, the reading list (part of
// Storer).
type BookStorer interface {
	// AddBook puts b on a club's reading list on behalf of byUserID.
	// Errors: ErrNotFound, ErrNotManager, books.ErrNotFound,
	// ErrBookOnList, ErrListFull.
	AddBook(ctx context.Context, byUserID string, b *Book) error
	// UpdateBook applies e to a club book on behalf of byUserID and
	// returns it as stored afterwards. A date set alone must keep the
	// stored other date in order. Errors: ErrNotFound, ErrNotManager,
	// ErrBookNotFound, ErrDateOrder.
	UpdateBook(ctx context.Context, byUserID, clubID, bookID string, e UpdateBook, now time.Time) (*Book, error)
	// RemoveBook takes a book off the reading list on behalf of byUserID.
	// Errors: ErrNotFound, ErrNotManager, ErrBookNotFound.
	RemoveBook(ctx context.Context, byUserID, clubID, bookID string) error
	// ListBooks reads a club's whole reading list (MaxBooks at most).
	ListBooks(ctx context.Context, clubID string) ([]*Book, error)
}

// BookView is a club book with its book (nil when the record is missing).
type BookView struct {
	Entry *Book
	Book  *books.Book
}

// CreateBook puts a book on a club's reading list on behalf of callerID, its
// host or a moderator. The book is read beside the write for the answer;
// the write requires it to exist. Errors: ValidationError, ErrNotFound,
// ErrNotManager, books.ErrNotFound, ErrBookOnList, ErrListFull.
func (s *Service) CreateBook(ctx context.Context, callerID, clubID string, in NewBook) (*BookView, error) {
	clubID, ok := ids.Parse(clubID)
	if !ok {
		return nil, ErrNotFound
	}
	var f apperr.Fields
	bookID, msg := ids.Required(in.BookID)
	f.Add("bookId", msg)
	if in.Status == "" {
		f.Add("status", "is required")
	}
	f.Add("status", checkStatus(in.Status))
	f.Add("startDate", checkDate(in.StartDate))
	f.Add("endDate", checkDate(in.EndDate))
	if f["startDate"] == "" && f["endDate"] == "" {
		f.Add("endDate", dates.CheckOrder(in.StartDate, in.EndDate))
	}
	notes, msg := text.Prose(in.Notes, MaxNotesRunes)
	f.Add("notes", msg)
	if err := f.Err(); err != nil {
		return nil, err
	}
	now := s.d.Now().UTC()
	b := &Book{
		ClubID: clubID, BookID: bookID, Status: BookStatus(in.Status), StartDate: in.StartDate, EndDate: in.EndDate,
		Notes: notes, AddedAt: now, UpdatedAt: now,
	}
	var (
		book    *books.Book
		bookErr error
		g       errgroup.Group
	)
	g.Go(func() error { book, bookErr = s.d.Books.GetBook(ctx, bookID); return nil })
	g.Go(func() error { return s.d.Store.AddBook(ctx, callerID, b) })
	if err := g.Wait(); err != nil {
		return nil, fmt.Errorf("add book %s to club %s: %w", bookID, clubID, err)
	}
	if bookErr != nil {
		// Stored all the same (the write required the book): show it
		// without its brief rather than fail.
		book = nil
	}
	return &BookView{Entry: b, Book: book}, nil
}

// UpdateBook changes a club book's status, notes or dates on behalf of
// callerID, its host or a moderator. Errors: ValidationError,
// ErrNotFound, ErrNotManager, ErrBookNotFound, ErrDateOrder.
func (s *Service) UpdateBook(ctx context.Context, callerID, clubID, bookID string, e UpdateBook) (*Book, error) {
	clubID, ok := ids.Parse(clubID)
	if !ok {
		return nil, ErrNotFound
	}
	if bookID, ok = ids.Parse(bookID); !ok {
		return nil, ErrBookNotFound
	}
	var f apperr.Fields
	if e.Status != nil {
		f.Add("status", checkStatus(*e.Status))
	}
	if e.Notes != nil {
		n, msg := text.Prose(*e.Notes, MaxNotesRunes)
		f.Add("notes", msg)
		e.Notes = &n
	}
	if e.SetStart {
		f.Add("startDate", checkDate(e.StartDate))
	}
	if e.SetEnd {
		f.Add("endDate", checkDate(e.EndDate))
	}
	if e.SetStart && e.SetEnd && f["startDate"] == "" && f["endDate"] == "" {
		f.Add("endDate", dates.CheckOrder(e.StartDate, e.EndDate))
	}
	if err := f.Err(); err != nil {
		return nil, err
	}
	b, err := s.d.Store.UpdateBook(ctx, callerID, clubID, bookID, e, s.d.Now().UTC())
	if err != nil {
		return nil, fmt.Errorf("update book %s of club %s: %w", bookID, clubID, err)
	}
	return b, nil
}

// DeleteBook takes a book off a club's reading list on behalf of
// callerID, its host or a moderator. Errors: ErrNotFound, ErrNotManager,
// ErrBookNotFound.
func (s *Service) DeleteBook(ctx context.Context, callerID, clubID, bookID string) error {
	clubID, ok := ids.Parse(clubID)
	if !ok {
		return ErrNotFound
	}
	if bookID, ok = ids.Parse(bookID); !ok {
		return ErrBookNotFound
	}
	if err := s.d.Store.RemoveBook(ctx, callerID, clubID, bookID); err != nil {
		return fmt.Errorf("remove book %s from club %s: %w", bookID, clubID, err)
	}
	return nil
}

// sortBooks orders a reading list as the single view shows it: in the
// order the books were added, ties by book id.
func sortBooks(bs []*Book) {
	sort.Slice(bs, func(i, j int) bool {
		if !bs[i].AddedAt.Equal(bs[j].AddedAt) {
			return bs[i].AddedAt.Before(bs[j].AddedAt)
		}
		return bs[i].BookID < bs[j].BookID
	})
}
