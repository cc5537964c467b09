// Package notesapitest declares what the central tests need about the
// notes group (shared/api/apitest): its steps of the call benchmark's
// scenario (local/bench) and the rate-limit actions of its routes
// (shared/groups). Test support: no function links it.
package notesapitest

import (
	"github.com/bookplatform/backend/shared/api/apitest"
)

// Facts are the notes group's steps and its routes' rate-limit actions.
func Facts() apitest.Facts {
	return apitest.Facts{
		Steps: []apitest.Step{
			// Notes: private to the reader.
			{Stage: apitest.Tidy, Route: "POST /v1/notes", Want: 201, Do: func(c *apitest.Client, s *apitest.State) *apitest.Response {
				res := c.Do("POST", "/v1/notes", map[string]any{"bookId": s.BookID, "content": "Note to self: measure.", "pageNumber": 12}, s.Token)
				s.NoteID, _ = res.JSON["id"].(string)
				return res
			}},
			{Stage: apitest.Tidy, Route: "GET /v1/notes", Want: 200, Do: func(c *apitest.Client, s *apitest.State) *apitest.Response {
				return c.Do("GET", "/v1/notes", nil, s.Token)
			}},
			{Stage: apitest.Tidy, Route: "GET /v1/notes", Note: "one book", Want: 200, Do: func(c *apitest.Client, s *apitest.State) *apitest.Response {
				return c.Do("GET", "/v1/notes?bookId="+s.BookID, nil, s.Token)
			}},
			{Stage: apitest.Tidy, Route: "GET /v1/notes/{id}", Want: 200, Do: func(c *apitest.Client, s *apitest.State) *apitest.Response {
				return c.Do("GET", "/v1/notes/"+s.NoteID, nil, s.Token)
			}},
			{Stage: apitest.Tidy, Route: "GET /v1/notes/{id}", Note: "another reader", Want: 404, Do: func(c *apitest.Client, s *apitest.State) *apitest.Response {
				return c.Do("GET", "/v1/notes/"+s.NoteID, nil, s.MigratedToken)
			}},
			{Stage: apitest.Tidy, Route: "PUT /v1/notes/{id}", Want: 200, Do: func(c *apitest.Client, s *apitest.State) *apitest.Response {
				return c.Do("PUT", "/v1/notes/"+s.NoteID, map[string]any{"content": "Measured.", "pageNumber": nil}, s.Token)
			}},
			{Stage: apitest.Tidy, Route: "DELETE /v1/notes/{id}", Want: 200, Do: func(c *apitest.Client, s *apitest.State) *apitest.Response {
				return c.Do("DELETE", "/v1/notes/"+s.NoteID, nil, s.Token)
			}},
		},
		Actions: map[string][]string{
			"POST /v1/notes":        nil,
			"GET /v1/notes":         nil,
			"GET /v1/notes/{id}":    nil,
			"PUT /v1/notes/{id}":    nil,
			"DELETE /v1/notes/{id}": nil,
		},
	}
}
