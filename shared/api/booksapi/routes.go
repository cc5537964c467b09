// Package booksapi is the books endpoint group: catalog search and books
// by id or ISBN. The catalog is written by the importer (books.Service
// Import), not through this group.
package booksapi

import (
	"net/http"

	"github.com/bookplatform/backend/shared/books"
	"github.com/bookplatform/backend/shared/httpapi"
)

// Handler serves the books group.
type Handler struct {
	Books *books.Service
}

// Group returns the books group's route table. A zero Handler lists the
// routes without serving them (CDK, API reference).
func (h *Handler) Group() httpapi.Group {
	return httpapi.Group{Name: "books", Routes: []httpapi.Route{
		{Method: http.MethodGet, Path: httpapi.V1("/books"), Auth: httpapi.AuthOptional, Actions: []string{"search"}, Handler: h.search},
		{Method: http.MethodGet, Path: httpapi.V1("/books/{id}"), Auth: httpapi.AuthOptional, Handler: h.get},
		{Method: http.MethodGet, Path: httpapi.V1("/books/isbn/{isbn}"), Auth: httpapi.AuthOptional, Handler: h.getByISBN},
	}}
}
