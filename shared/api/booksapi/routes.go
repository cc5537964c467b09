// Package booksapi is the books endpoint group: catalog search and books
// by id or ISBN. The catalog is written by the importer (books.Service
// Import), not through this group.
package booksapi

import (
	"net/http"

	"github.com/bookplatform/backend/shared/api"
	"github.com/bookplatform/backend/shared/api/bookjson"
	"github.com/bookplatform/backend/shared/books"
	"github.com/bookplatform/backend/shared/booksearch"
	"github.com/bookplatform/backend/shared/dynamo"
	"github.com/bookplatform/backend/shared/httpapi"
)

// handler serves the books group.
type handler struct {
	books *books.Service
}

// Group is the books group. It only reads: Query for search postings and
// for a book by ISBN (GSI1), BatchGetItem for a result page. Search is
// the engine its settings name (booksearch.ReadSettings): the table's own
// index unless SEARCH_ENGINE is opensearch, whose collection's data
// access the stack grants when it creates one (infra, -c opensearch=true).
func Group(d api.Deps) api.Group {
	store := dynamo.NewBooks(d.Table)
	search, err := booksearch.New(booksearch.ReadSettings(d.Env), d.AWS, store)
	d.Env.Fail(err)
	h := &handler{books: books.NewService(books.Deps{Store: store, Search: search, Now: d.Now})}
	return api.Group{
		Name:  "books",
		Table: []string{"dynamodb:Query", "dynamodb:BatchGetItem"},
		Routes: []httpapi.Route{
			{Method: http.MethodGet, Path: httpapi.V1("/books"), Auth: httpapi.AuthOptional, Actions: []string{"search"}, Handler: h.search,
				Doc: httpapi.Doc{Summary: "Search the catalog by title, author or ISBN", Response: searchPage{}, Errors: []int{400},
					Query: []httpapi.Param{
						{Name: "q", Type: "string", Required: true, About: "title or author words (the last one a prefix), or an ISBN-10 or ISBN-13. A lone word of 3 or more characters is a prefix completed to at most its 8 shortest indexed words; with more completions the books of the others are left out and totalIsLowerBound is set. Where the platform searches with OpenSearch instead of its table (a deployment setting), a prefix matches every word it begins, whatever the number of completions, and total is exact up to 10,000 matches"},
						httpapi.LimitParam(books.DefaultSearchLimit, books.MaxSearchLimit),
						httpapi.OffsetParam(),
					}}},
			{Method: http.MethodGet, Path: httpapi.V1("/books/{id}"), Auth: httpapi.AuthOptional, Handler: h.get,
				Doc: httpapi.Doc{Summary: "A book by id", Response: bookjson.Full{}, Errors: []int{404},
					Why: map[int]string{404: "no book has this id (also for an id that is not a UUID)."}}},
			{Method: http.MethodGet, Path: httpapi.V1("/books/isbn/{isbn}"), Auth: httpapi.AuthOptional, Handler: h.getByISBN,
				Doc: httpapi.Doc{Summary: "A book by ISBN-10 or ISBN-13", Response: bookjson.Full{}, Errors: []int{400, 404},
					Why: map[int]string{404: "no book in the catalog has this ISBN (400 for one that is not a valid ISBN-10 or ISBN-13)."}}},
		},
	}
}
