package dynamo

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/bookplatform/backend/shared/books"
	"github.com/bookplatform/backend/shared/clubs"
	"github.com/bookplatform/backend/shared/page"
)

// clubBookItem is a book on a reading list (ClubBookKey). Dates are
// YYYY-MM-DD strings, absent when not set, so they compare as days in
// conditions.
type clubBookItem struct {
	PK        string    `dynamo:"PK"`
	SK        string    `dynamo:"SK"`
	Type      string    `dynamo:"type"`
	ClubID    string    `dynamo:"clubId"`
	BookID    string    `dynamo:"bookId"`
	Status    string    `dynamo:"status"`
	StartDate string    `dynamo:"startDate,omitempty"`
	EndDate   string    `dynamo:"endDate,omitempty"`
	Notes     string    `dynamo:"notes,omitempty"`
	AddedAt   time.Time `dynamo:"addedAt"`
	UpdatedAt time.Time `dynamo:"updatedAt"`
}

func toClubBookItem(b *clubs.Book) clubBookItem {
	k := ClubBookKey(b.ClubID, b.BookID)
	return clubBookItem{
		PK: k.PK, SK: k.SK, Type: typeClubBook, ClubID: b.ClubID, BookID: b.BookID, Status: string(b.Status),
		StartDate: b.StartDate, EndDate: b.EndDate, Notes: b.Notes, AddedAt: b.AddedAt.UTC(), UpdatedAt: b.UpdatedAt.UTC(),
	}
}

func (it clubBookItem) toBook() *clubs.Book {
	return &clubs.Book{
		ClubID: it.ClubID, BookID: it.BookID, Status: clubs.BookStatus(it.Status), StartDate: it.StartDate,
		EndDate: it.EndDate, Notes: it.Notes, AddedAt: it.AddedAt, UpdatedAt: it.UpdatedAt,
	}
}

// AddBook adds one to bookCount, conditional on the club existing and its
// list not being full, checks that byUserID manages the club and that the
// book exists, and puts the club book if absent, in one
// TransactWriteItems. Only when the club's condition fails are the club
// and the caller's membership read, to tell 404 from 403 from a full
// list. Errors: clubs.ErrNotFound, clubs.ErrNotManager,
// books.ErrNotFound, clubs.ErrBookOnList, clubs.ErrListFull.
func (s *Clubs) AddBook(ctx context.Context, byUserID string, b *clubs.Book) error {
	err := s.t.tx().
		update(s.t.update(ClubKey(b.ClubID)).Add("bookCount", 1).If("attribute_exists(PK) AND bookCount < ?", clubs.MaxBooks), errRefused).
		check(s.managerCheck(b.ClubID, byUserID), clubs.ErrNotManager).
		check(s.t.check(BookKey(b.BookID)).If("attribute_exists(PK)"), books.ErrNotFound).
		put(s.t.put(toClubBookItem(b)).If("attribute_not_exists(PK)"), clubs.ErrBookOnList).
		run(ctx)
	if errors.Is(err, errRefused) {
		if _, err := s.GetClub(ctx, b.ClubID); err != nil {
			return err
		}
		if m, err := s.GetMember(ctx, b.ClubID, byUserID); err != nil || !m.Role.ManagesBooks() {
			return fmt.Errorf("add book to club %s: %w", b.ClubID, clubs.ErrNotManager)
		}
		return fmt.Errorf("add book to club %s: %w", b.ClubID, clubs.ErrListFull)
	}
	if err != nil {
		return fmt.Errorf("add book %s to club %s: %w", b.BookID, b.ClubID, err)
	}
	return nil
}

// UpdateBook checks the club and the caller's role and updates the club
// book in one TransactWriteItems; a date set alone is conditional on
// the stored other date (dates compare as text), then the book is read
// for the answer. Only when the book's condition fails is it read, to
// tell 404 from a date out of order. Errors: clubs.ErrNotFound,
// clubs.ErrNotManager, clubs.ErrBookNotFound, clubs.ErrDateOrder.
func (s *Clubs) UpdateBook(ctx context.Context, byUserID, clubID, bookID string, e clubs.UpdateBook, now time.Time) (*clubs.Book, error) {
	k := ClubBookKey(clubID, bookID)
	upd := s.t.update(k).Set("updatedAt", now.UTC())
	if e.Status != nil {
		upd = upd.Set("status", *e.Status)
	}
	if e.Notes != nil {
		upd = setOrRemove(upd, "notes", *e.Notes)
	}
	if e.SetStart {
		upd = setOrRemove(upd, "startDate", e.StartDate)
	}
	if e.SetEnd {
		upd = setOrRemove(upd, "endDate", e.EndDate)
	}
	switch {
	case e.SetStart && e.StartDate != "" && !e.SetEnd:
		upd = upd.If("attribute_exists(PK) AND (attribute_not_exists(endDate) OR endDate >= ?)", e.StartDate)
	case e.SetEnd && e.EndDate != "" && !e.SetStart:
		upd = upd.If("attribute_exists(PK) AND (attribute_not_exists(startDate) OR startDate <= ?)", e.EndDate)
	default:
		upd = upd.If("attribute_exists(PK)")
	}
	err := s.t.tx().
		check(s.t.check(ClubKey(clubID)).If("attribute_exists(PK)"), clubs.ErrNotFound).
		check(s.managerCheck(clubID, byUserID), clubs.ErrNotManager).
		update(upd, errRefused).
		run(ctx)
	if errors.Is(err, errRefused) {
		if _, err := s.getBook(ctx, clubID, bookID); err != nil {
			return nil, err
		}
		return nil, fmt.Errorf("update book %s of club %s: %w", bookID, clubID, clubs.ErrDateOrder)
	}
	if err != nil {
		return nil, fmt.Errorf("update book %s of club %s: %w", bookID, clubID, err)
	}
	return s.getBook(ctx, clubID, bookID)
}

// getBook reads a club book, strongly consistent. Errors:
// clubs.ErrBookNotFound.
func (s *Clubs) getBook(ctx context.Context, clubID, bookID string) (*clubs.Book, error) {
	return getOne(ctx, s.t, ClubBookKey(clubID, bookID), clubBookItem.toBook, clubs.ErrBookNotFound,
		"book "+bookID+" of club "+clubID)
}

// RemoveBook subtracts one from bookCount (the club exists), checks the
// caller's role and deletes the club book if there, in one
// TransactWriteItems. Errors: clubs.ErrNotFound, clubs.ErrNotManager,
// clubs.ErrBookNotFound.
func (s *Clubs) RemoveBook(ctx context.Context, byUserID, clubID, bookID string) error {
	err := s.t.tx().
		update(s.t.update(ClubKey(clubID)).Add("bookCount", -1).If("attribute_exists(PK)"), clubs.ErrNotFound).
		check(s.managerCheck(clubID, byUserID), clubs.ErrNotManager).
		delete(s.t.del(ClubBookKey(clubID, bookID)).If("attribute_exists(PK)"), clubs.ErrBookNotFound).
		run(ctx)
	if err != nil {
		return fmt.Errorf("remove book %s from club %s: %w", bookID, clubID, err)
	}
	return nil
}

// ListBooks reads a club's whole reading list with one consistent Query
// of its partition (clubs.MaxBooks items at most).
func (s *Clubs) ListBooks(ctx context.Context, clubID string) ([]*clubs.Book, error) {
	p, err := queryPage[clubBookItem](ctx, s.t, clubBooks(clubID), page.First(clubs.MaxBooks))
	if err != nil {
		return nil, fmt.Errorf("books of club %s: %w", clubID, err)
	}
	return page.Map(p, clubBookItem.toBook).Items, nil
}
