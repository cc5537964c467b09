package booksapi

import (
	"net/http"

	"github.com/bookplatform/backend/shared/api/bookjson"
	"github.com/bookplatform/backend/shared/apperr"
	"github.com/bookplatform/backend/shared/books"
	"github.com/bookplatform/backend/shared/httpapi"
)

// searchPage is the body of GET /v1/books.
type searchPage struct {
	Items []bookjson.SearchItem `json:"items"`
	// Total hides OffsetMeta's to describe it: it is exact, or a lower
	// bound when TotalIsLowerBound says so.
	Total int `json:"total" doc:"The number of matching books, exact unless totalIsLowerBound is true: then the search stopped reading before the end of its candidates (a common word read only as far as the page needs, or a lone prefix with more than 8 completions; with OpenSearch, more than 10,000 matches), total counts the matches it read (at least offset + limit when there are that many), and more may exist."`
	httpapi.OffsetMeta
	// TotalIsLowerBound is present (true) when the search stopped reading
	// candidates before their end: total counts the matches read and more
	// may exist (docs/decisions.md, "Catalog search at size"). Beside the
	// spec's fields, which keep their meaning otherwise.
	TotalIsLowerBound bool `json:"totalIsLowerBound,omitempty" doc:"Present (true) when total is a lower bound: the search did not read every candidate, so more books may match than total says; absent when total is exact."`
}

// searchLimits: the spec's search limit (1-50, default 20); a bad value
// is BadRequest, the spec's name on catalog endpoints.
var searchLimits = httpapi.OffsetLimits{Default: books.DefaultSearchLimit, Max: books.MaxSearchLimit, Code: apperr.CodeBadRequest}

// search serves GET /v1/books?q=&limit=&offset=: title, author or ISBN
// search with offset paging.
func (h *handler) search(w http.ResponseWriter, r *http.Request) error {
	o, err := httpapi.OffsetPage(r, searchLimits)
	if err != nil {
		return err
	}
	res, err := h.books.Search(r.Context(), r.URL.Query().Get("q"), o.Limit, o.Offset)
	if err != nil {
		return err
	}
	page := searchPage{Items: make([]bookjson.SearchItem, len(res.Items)), Total: res.Total, OffsetMeta: httpapi.NewOffsetMeta(o, res.Total), TotalIsLowerBound: res.TotalIsLowerBound}
	for i, b := range res.Items {
		page.Items[i] = bookjson.NewSearchItem(b)
	}
	return httpapi.JSON(w, http.StatusOK, page)
}

// get serves GET /v1/books/{id}: the full book.
func (h *handler) get(w http.ResponseWriter, r *http.Request) error {
	b, err := h.books.Get(r.Context(), r.PathValue("id"))
	if err != nil {
		return err
	}
	return httpapi.JSON(w, http.StatusOK, bookjson.NewFull(b))
}

// getByISBN serves GET /v1/books/isbn/{isbn}: the full book of an ISBN-10
// or ISBN-13, hyphens and spaces allowed.
func (h *handler) getByISBN(w http.ResponseWriter, r *http.Request) error {
	b, err := h.books.GetByISBN(r.Context(), r.PathValue("isbn"))
	if err != nil {
		return err
	}
	return httpapi.JSON(w, http.StatusOK, bookjson.NewFull(b))
}
