// Package booksapitest declares what the central tests need about the
// books group (shared/api/apitest): its steps of the call benchmark's
// scenario (local/bench) and the rate-limit actions of its routes
// (shared/groups). Test support: no function links it.
package booksapitest

import (
	"github.com/bookplatform/backend/shared/api/apitest"
)

// Facts are the books group's steps and its routes' rate-limit actions.
func Facts() apitest.Facts {
	return apitest.Facts{
		Steps: []apitest.Step{
			{Stage: apitest.Write, Route: "GET /v1/books", Note: "two words", Want: 200, Do: func(c *apitest.Client, _ *apitest.State) *apitest.Response {
				return c.Do("GET", "/v1/books?q=harry+pot", nil, "")
			}},
			{Stage: apitest.Write, Route: "GET /v1/books", Note: "signed in", Want: 200, Do: func(c *apitest.Client, s *apitest.State) *apitest.Response {
				return c.Do("GET", "/v1/books?q=tolkien&limit=5", nil, s.Token)
			}},
			{Stage: apitest.Write, Route: "GET /v1/books", Note: "an ISBN", Want: 200, Do: func(c *apitest.Client, _ *apitest.State) *apitest.Response {
				return c.Do("GET", "/v1/books?q=0-306-40615-2", nil, "")
			}},
			{Stage: apitest.Write, Route: "GET /v1/books", Note: "limit 51", Want: 400, Do: func(c *apitest.Client, _ *apitest.State) *apitest.Response {
				return c.Do("GET", "/v1/books?q=harry&limit=51", nil, "")
			}},
			{Stage: apitest.Write, Route: "GET /v1/books/{id}", Want: 200, Do: func(c *apitest.Client, s *apitest.State) *apitest.Response {
				return c.Do("GET", "/v1/books/"+s.BookID, nil, "")
			}},
			{Stage: apitest.Write, Route: "GET /v1/books/{id}", Note: "signed in", Want: 200, Do: func(c *apitest.Client, s *apitest.State) *apitest.Response {
				return c.Do("GET", "/v1/books/"+s.BookID, nil, s.Token)
			}},
			{Stage: apitest.Write, Route: "GET /v1/books/{id}", Note: "unknown id", Want: 404, Do: func(c *apitest.Client, _ *apitest.State) *apitest.Response {
				return c.Do("GET", "/v1/books/00000000-0000-4000-8000-000000000000", nil, "")
			}},
			{Stage: apitest.Write, Route: "GET /v1/books/isbn/{isbn}", Note: "ISBN-10", Want: 200, Do: func(c *apitest.Client, _ *apitest.State) *apitest.Response {
				return c.Do("GET", "/v1/books/isbn/0-306-40615-2", nil, "")
			}},
			{Stage: apitest.Write, Route: "GET /v1/books/isbn/{isbn}", Note: "signed in", Want: 200, Do: func(c *apitest.Client, s *apitest.State) *apitest.Response {
				return c.Do("GET", "/v1/books/isbn/9780306406157", nil, s.Token)
			}},
			{Stage: apitest.Write, Route: "GET /v1/books/isbn/{isbn}", Note: "bad check digit", Want: 400, Do: func(c *apitest.Client, _ *apitest.State) *apitest.Response {
				return c.Do("GET", "/v1/books/isbn/9780306406158", nil, "")
			}},
		},
		Actions: map[string][]string{
			"GET /v1/books":             {"search"},
			"GET /v1/books/{id}":        nil,
			"GET /v1/books/isbn/{isbn}": nil,
		},
	}
}
