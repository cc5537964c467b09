package booksapi

import (
	"net/http"
	"net/url"
	"strconv"
	"strings"

	"github.com/bookplatform/backend/shared/api/bookjson"
	"github.com/bookplatform/backend/shared/apperr"
	"github.com/bookplatform/backend/shared/books"
	"github.com/bookplatform/backend/shared/httpapi"
)

// searchPage is the body of GET /v1/books.
type searchPage struct {
	Items  []bookjson.SearchItem `json:"items"`
	Total  int                   `json:"total"`
	Limit  int                   `json:"limit"`
	Offset int                   `json:"offset"`
}

// search serves GET /v1/books?q=&limit=&offset=: title, author or ISBN
// search with offset paging.
func (h *Handler) search(w http.ResponseWriter, r *http.Request) error {
	query := r.URL.Query()
	limit, err := intParam(query, "limit", books.DefaultSearchLimit)
	if err != nil {
		return err
	}
	offset, err := intParam(query, "offset", 0)
	if err != nil {
		return err
	}
	res, err := h.Books.Search(r.Context(), query.Get("q"), limit, offset)
	if err != nil {
		return err
	}
	page := searchPage{Items: make([]bookjson.SearchItem, len(res.Items)), Total: res.Total, Limit: limit, Offset: offset}
	for i, b := range res.Items {
		page.Items[i] = bookjson.NewSearchItem(b)
	}
	return httpapi.JSON(w, http.StatusOK, page)
}

// get serves GET /v1/books/{id}: the full book.
func (h *Handler) get(w http.ResponseWriter, r *http.Request) error {
	b, err := h.Books.Get(r.Context(), r.PathValue("id"))
	if err != nil {
		return err
	}
	return httpapi.JSON(w, http.StatusOK, bookjson.NewFull(b))
}

// getByISBN serves GET /v1/books/isbn/{isbn}: the full book of an ISBN-10
// or ISBN-13, hyphens and spaces allowed.
func (h *Handler) getByISBN(w http.ResponseWriter, r *http.Request) error {
	b, err := h.Books.GetByISBN(r.Context(), r.PathValue("isbn"))
	if err != nil {
		return err
	}
	return httpapi.JSON(w, http.StatusOK, bookjson.NewFull(b))
}

// intParam reads an optional integer query parameter; anything but an
// integer is a 400 BadRequest (the spec's name for invalid catalog
// queries). The range is the service's to check.
func intParam(q url.Values, name string, def int) (int, error) {
	if !q.Has(name) {
		return def, nil
	}
	v, err := strconv.Atoi(strings.TrimSpace(q.Get(name)))
	if err != nil {
		return 0, apperr.New(apperr.CodeBadRequest, "%s must be an integer", name)
	}
	return v, nil
}
