package notesapi

import (
	"encoding/json"
	"fmt"
	"net/http"

	"github.com/bookplatform/backend/shared/api/bookjson"
	"github.com/bookplatform/backend/shared/api/userjson"
	"github.com/bookplatform/backend/shared/httpapi"
	"github.com/bookplatform/backend/shared/notes"
)

// note is a private reading note: its book as a BookBrief (null only when
// the catalog record is missing), its text and its page (null when not
// given).
type note struct {
	ID         string          `json:"id"`
	UserID     string          `json:"userId"`
	BookID     string          `json:"bookId"`
	Book       *bookjson.Brief `json:"book"`
	Content    string          `json:"content"`
	PageNumber *int            `json:"pageNumber"`
	CreatedAt  string          `json:"createdAt"`
	UpdatedAt  string          `json:"updatedAt"`
}

func newNote(v notes.View) note {
	n := note{
		ID: v.ID, UserID: v.UserID, BookID: v.BookID, Book: bookjson.BriefOf(v.Book), Content: v.Content,
		CreatedAt: userjson.Time(v.CreatedAt), UpdatedAt: userjson.Time(v.UpdatedAt),
	}
	if v.PageNumber > 0 {
		p := v.PageNumber
		n.PageNumber = &p
	}
	return n
}

// createRequest is the body of POST /v1/notes. pageNumber is read raw to
// tell an integer from anything else.
type createRequest struct {
	BookID     string          `json:"bookId"`
	Content    string          `json:"content"`
	PageNumber json.RawMessage `json:"pageNumber,omitempty" openapi:"integer,null"`
}

// updateRequest is the body of PUT /v1/notes/{id}: content left out keeps
// the text; pageNumber left out keeps the page, null clears it.
type updateRequest struct {
	Content    *string         `json:"content,omitempty"`
	PageNumber json.RawMessage `json:"pageNumber,omitempty" openapi:"integer,null"`
}

var pageMessage = fmt.Sprintf("must be an integer from 1 to %d", notes.MaxPageNumber)

// create serves POST /v1/notes: 201 Note.
func (h *handler) create(w http.ResponseWriter, r *http.Request) error {
	var req createRequest
	if err := httpapi.Decode(w, r, &req); err != nil {
		return err
	}
	page, _, err := httpapi.IntField(req.PageNumber, "pageNumber", pageMessage)
	if err != nil {
		return err
	}
	v, err := h.notes.Create(r.Context(), httpapi.CallerOf(r).ID, notes.NewNote{BookID: req.BookID, Content: req.Content, PageNumber: page})
	if err != nil {
		return err
	}
	return httpapi.JSON(w, http.StatusCreated, newNote(*v))
}

// list serves GET /v1/notes?bookId=&cursor=&limit=. A cursor is bound to
// the list it came from: the caller's notes, or those on one book.
func (h *handler) list(w http.ResponseWriter, r *http.Request) error {
	c, err := httpapi.CursorPage(r)
	if err != nil {
		return err
	}
	p, err := h.notes.List(r.Context(), httpapi.CallerOf(r).ID, r.URL.Query().Get("bookId"), c)
	if err != nil {
		return err
	}
	return httpapi.JSON(w, http.StatusOK, httpapi.NewCursorBody(r, p, newNote))
}

// get serves GET /v1/notes/{id}: the caller's note, 404 for any other.
func (h *handler) get(w http.ResponseWriter, r *http.Request) error {
	v, err := h.notes.Get(r.Context(), httpapi.CallerOf(r).ID, r.PathValue("id"))
	if err != nil {
		return err
	}
	return httpapi.JSON(w, http.StatusOK, newNote(*v))
}

// update serves PUT /v1/notes/{id}.
func (h *handler) update(w http.ResponseWriter, r *http.Request) error {
	var req updateRequest
	if err := httpapi.Decode(w, r, &req); err != nil {
		return err
	}
	page, set, err := httpapi.IntField(req.PageNumber, "pageNumber", pageMessage)
	if err != nil {
		return err
	}
	v, err := h.notes.Update(r.Context(), httpapi.CallerOf(r).ID, r.PathValue("id"), notes.UpdateNote{Content: req.Content, SetPage: set, PageNumber: page})
	if err != nil {
		return err
	}
	return httpapi.JSON(w, http.StatusOK, newNote(*v))
}

// delete serves DELETE /v1/notes/{id}.
func (h *handler) delete(w http.ResponseWriter, r *http.Request) error {
	if err := h.notes.Delete(r.Context(), httpapi.CallerOf(r).ID, r.PathValue("id")); err != nil {
		return err
	}
	return httpapi.JSON(w, http.StatusOK, httpapi.Success{Success: true, Message: "Note deleted"})
}
