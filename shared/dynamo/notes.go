package dynamo

import (
	"context"
	"fmt"
	"time"

	"github.com/bookplatform/backend/shared/books"
	"github.com/bookplatform/backend/shared/notes"
	"github.com/bookplatform/backend/shared/page"
	"github.com/guregu/dynamo/v2"
)

// Notes stores private reading notes, each in its author's partition
// (NoteKey): a note is only ever addressed with its author's id.
type Notes struct{ t *table }

var _ notes.Storer = (*Notes)(nil)

// noteItem is a note as stored (NoteKey), listed on GSI1 under its
// author (userNotes) and on GSI2 under its author and book
// (userBookNotes), both newest first.
type noteItem struct {
	PK         string    `dynamo:"PK"`
	SK         string    `dynamo:"SK"`
	GSI1PK     string    `dynamo:"GSI1PK"`
	GSI1SK     string    `dynamo:"GSI1SK"`
	GSI2PK     string    `dynamo:"GSI2PK"`
	GSI2SK     string    `dynamo:"GSI2SK"`
	Type       string    `dynamo:"type"`
	ID         string    `dynamo:"id"`
	UserID     string    `dynamo:"userId"`
	BookID     string    `dynamo:"bookId"`
	Content    string    `dynamo:"content"`
	PageNumber int       `dynamo:"pageNumber,omitempty"`
	CreatedAt  time.Time `dynamo:"createdAt"`
	UpdatedAt  time.Time `dynamo:"updatedAt"`
}

func toNoteItem(n *notes.Note) noteItem {
	k, sk := NoteKey(n.UserID, n.ID), timeIDKey(n.CreatedAt, n.ID)
	return noteItem{
		PK: k.PK, SK: k.SK,
		GSI1PK: userNotes(n.UserID).pk, GSI1SK: sk,
		GSI2PK: userBookNotes(n.UserID, n.BookID).pk, GSI2SK: sk,
		Type: typeNote, ID: n.ID, UserID: n.UserID, BookID: n.BookID, Content: n.Content,
		PageNumber: n.PageNumber, CreatedAt: n.CreatedAt.UTC(), UpdatedAt: n.UpdatedAt.UTC(),
	}
}

func (it noteItem) toNote() *notes.Note {
	return &notes.Note{
		ID: it.ID, UserID: it.UserID, BookID: it.BookID, Content: it.Content,
		PageNumber: it.PageNumber, CreatedAt: it.CreatedAt, UpdatedAt: it.UpdatedAt,
	}
}

// CreateNote puts the note, with a condition check that its book exists,
// in one TransactWriteItems. Errors: books.ErrNotFound.
func (s *Notes) CreateNote(ctx context.Context, n *notes.Note) error {
	err := s.t.tx().
		check(s.t.check(BookKey(n.BookID)).If("attribute_exists(PK)"), books.ErrNotFound).
		put(s.t.put(toNoteItem(n)).If("attribute_not_exists(PK)"), errIDTaken).
		run(ctx)
	if err != nil {
		return fmt.Errorf("create note %s: %w", n.ID, err)
	}
	return nil
}

// GetNote reads userID's note, strongly consistent: an author who has
// just written or edited it reads it as written. Errors: notes.ErrNotFound.
func (s *Notes) GetNote(ctx context.Context, userID, id string) (*notes.Note, error) {
	return getOne(ctx, s.t, NoteKey(userID, id), noteItem.toNote, notes.ErrNotFound, "note "+id)
}

// UpdateNote is one UpdateItem conditional on the note existing in
// userID's partition, returning the new item. Errors: notes.ErrNotFound.
func (s *Notes) UpdateNote(ctx context.Context, userID, id string, e notes.UpdateNote, now time.Time) (*notes.Note, error) {
	upd := s.t.update(NoteKey(userID, id)).Set("updatedAt", now.UTC()).If("attribute_exists(PK)")
	if e.Content != nil {
		upd = upd.Set("content", *e.Content)
	}
	if e.SetPage {
		if e.PageNumber == nil {
			upd = upd.Remove("pageNumber")
		} else {
			upd = upd.Set("pageNumber", *e.PageNumber)
		}
	}
	var it noteItem
	err := upd.Value(ctx, &it)
	if dynamo.IsCondCheckFailed(err) {
		return nil, fmt.Errorf("update note %s: %w", id, notes.ErrNotFound)
	}
	if err != nil {
		return nil, fmt.Errorf("update note %s: %w", id, err)
	}
	return it.toNote(), nil
}

// DeleteNote is one DeleteItem conditional on the note existing in
// userID's partition. Errors: notes.ErrNotFound.
func (s *Notes) DeleteNote(ctx context.Context, userID, id string) error {
	err := s.t.del(NoteKey(userID, id)).If("attribute_exists(PK)").Run(ctx)
	if dynamo.IsCondCheckFailed(err) {
		return fmt.Errorf("delete note %s: %w", id, notes.ErrNotFound)
	}
	if err != nil {
		return fmt.Errorf("delete note %s: %w", id, err)
	}
	return nil
}

// ListNotes reads a page of an author's notes, newest first (GSI1).
func (s *Notes) ListNotes(ctx context.Context, userID string, c page.Cursor) (page.Page[*notes.Note], error) {
	return s.list(ctx, userNotes(userID), c)
}

// ListBookNotes reads a page of an author's notes on one book, newest
// first (GSI2).
func (s *Notes) ListBookNotes(ctx context.Context, userID, bookID string, c page.Cursor) (page.Page[*notes.Note], error) {
	return s.list(ctx, userBookNotes(userID, bookID), c)
}

// list reads a page of notes. Index reads are eventually consistent: a
// note written a moment ago may miss the page being read.
func (s *Notes) list(ctx context.Context, l list, c page.Cursor) (page.Page[*notes.Note], error) {
	return queryMapped(ctx, s.t, l, c, noteItem.toNote)
}
