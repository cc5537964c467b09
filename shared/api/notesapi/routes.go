// Package notesapi is the notes endpoint group (/v1/notes, designed: the
// spec names the base path only): a reader's private reading notes on
// books. Only their author ever sees them: to anyone else a note does not
// exist (404, never 403). Notes are not published and do not count
// toward the monthly quota (docs/decisions.md, "Notes").
package notesapi

import (
	"github.com/bookplatform/backend/shared/page"
	"net/http"

	"github.com/bookplatform/backend/shared/api"
	"github.com/bookplatform/backend/shared/dynamo"
	"github.com/bookplatform/backend/shared/httpapi"
	"github.com/bookplatform/backend/shared/notes"
)

// handler serves the notes group.
type handler struct {
	notes *notes.Service
}

// Group is the notes group. Its calls: TransactWriteItems for a new note
// with the check that its book exists (parts: PutItem,
// ConditionCheckItem); GetItem for a note and a book; UpdateItem and
// DeleteItem for a note; Query for the two lists (GSI1, GSI2);
// BatchGetItem for a page's books.
func Group(d api.Deps) api.Group {
	h := &handler{notes: notes.NewService(notes.Deps{
		Store: dynamo.NewNotes(d.Table), Books: dynamo.NewBooks(d.Table), Briefs: dynamo.NewBriefs(d.Table), Now: d.Now,
	})}
	return api.Group{
		Name: "notes",
		Table: []string{"dynamodb:GetItem", "dynamodb:Query", "dynamodb:BatchGetItem", "dynamodb:UpdateItem", "dynamodb:DeleteItem",
			"dynamodb:PutItem", "dynamodb:ConditionCheckItem"},
		Routes: []httpapi.Route{
			{Method: http.MethodPost, Path: httpapi.V1("/notes"), Auth: httpapi.AuthBearer, Idempotent: true, Handler: h.create,
				Doc: httpapi.Doc{Summary: "Write a private note on a book", Body: createRequest{}, Response: note{}, Status: http.StatusCreated, Errors: []int{400, 404},
					Why: map[int]string{404: "no book has this bookId."}}},
			{Method: http.MethodGet, Path: httpapi.V1("/notes"), Auth: httpapi.AuthBearer, Handler: h.list,
				Doc: httpapi.Doc{Summary: "The caller's notes, newest first, optionally on one book", Response: httpapi.CursorBody[note]{}, Errors: []int{400},
					Query: []httpapi.Param{
						{Name: "bookId", Type: "string", About: "only the notes on this book"},
						{Name: "cursor", Type: "string", About: "nextCursor of the previous page"},
						httpapi.LimitParam(page.DefaultLimit, page.MaxLimit),
					}}},
			{Method: http.MethodGet, Path: httpapi.V1("/notes/{id}"), Auth: httpapi.AuthBearer, Handler: h.get,
				Doc: httpapi.Doc{Summary: "One of the caller's notes", Response: note{}, Errors: []int{404},
					Why: map[int]string{404: "the caller has no note with this id (another account's note is 404 too)."}}},
			{Method: http.MethodPut, Path: httpapi.V1("/notes/{id}"), Auth: httpapi.AuthBearer, Handler: h.update,
				Doc: httpapi.Doc{Summary: "Edit one of the caller's notes", Body: updateRequest{}, Response: note{}, Errors: []int{400, 404},
					Why: map[int]string{404: "the caller has no note with this id (another account's note is 404 too)."}}},
			{Method: http.MethodDelete, Path: httpapi.V1("/notes/{id}"), Auth: httpapi.AuthBearer, Handler: h.delete,
				Doc: httpapi.Doc{Summary: "Delete one of the caller's notes", Response: httpapi.Success{}, Errors: []int{404},
					Why: map[int]string{404: "the caller has no note with this id (another account's note is 404 too)."}}},
		},
	}
}
