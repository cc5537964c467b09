// Package linesapitest declares what the central tests need about the
// lines group (shared/api/apitest): its steps of the call benchmark's
// scenario (local/bench) and the rate-limit actions of its routes
// (shared/groups). Test support: no function links it.
package linesapitest

import (
	"github.com/bookplatform/backend/shared/api/apitest"
)

// Facts are the lines group's steps and its routes' rate-limit actions.
func Facts() apitest.Facts {
	post := []string{"create_line", "create_line_hourly"}
	return apitest.Facts{
		Steps: []apitest.Step{
			// Lines: the reader posts, the converted guest likes and replies.
			{Stage: apitest.Write, Route: "POST /v1/lines", Want: 201, Do: func(c *apitest.Client, s *apitest.State) *apitest.Response {
				res := c.Do("POST", "/v1/lines", map[string]any{"bookId": s.BookID, "content": "Measured, line by line.", "pageNumber": 42}, s.Token)
				s.LineID, _ = res.JSON["id"].(string)
				return res
			}},
			{Stage: apitest.Write, Route: "POST /v1/lines", Note: "unknown book", Want: 404, Do: func(c *apitest.Client, s *apitest.State) *apitest.Response {
				return c.Do("POST", "/v1/lines", map[string]any{"bookId": "00000000-0000-4000-8000-000000000000", "content": "Lost."}, s.Token)
			}},
			{Stage: apitest.Write, Route: "GET /v1/lines/{id}", Want: 200, Do: func(c *apitest.Client, s *apitest.State) *apitest.Response {
				return c.Do("GET", "/v1/lines/"+s.LineID, nil, s.MigratedToken)
			}},
			{Stage: apitest.Write, Route: "GET /v1/lines/{id}", Note: "unknown id", Want: 404, Do: func(c *apitest.Client, s *apitest.State) *apitest.Response {
				return c.Do("GET", "/v1/lines/00000000-0000-4000-8000-000000000000", nil, s.Token)
			}},
			{Stage: apitest.Write, Route: "PUT /v1/lines/{id}", Want: 200, Do: func(c *apitest.Client, s *apitest.State) *apitest.Response {
				return c.Do("PUT", "/v1/lines/"+s.LineID, map[string]any{"content": "Measured again."}, s.Token)
			}},
			{Stage: apitest.Write, Route: "PUT /v1/lines/{id}", Note: "not the author", Want: 403, Do: func(c *apitest.Client, s *apitest.State) *apitest.Response {
				return c.Do("PUT", "/v1/lines/"+s.LineID, map[string]any{"content": "Mine now."}, s.MigratedToken)
			}},
			{Stage: apitest.Write, Route: "POST /v1/lines/{id}/like", Want: 200, Do: func(c *apitest.Client, s *apitest.State) *apitest.Response {
				return c.Do("POST", "/v1/lines/"+s.LineID+"/like", nil, s.MigratedToken)
			}},
			{Stage: apitest.Write, Route: "POST /v1/lines/{id}/like", Note: "already liked", Want: 400, Do: func(c *apitest.Client, s *apitest.State) *apitest.Response {
				return c.Do("POST", "/v1/lines/"+s.LineID+"/like", nil, s.MigratedToken)
			}},
			{Stage: apitest.Write, Route: "DELETE /v1/lines/{id}/like", Want: 200, Do: func(c *apitest.Client, s *apitest.State) *apitest.Response {
				return c.Do("DELETE", "/v1/lines/"+s.LineID+"/like", nil, s.MigratedToken)
			}},
			{Stage: apitest.Write, Route: "POST /v1/lines/{id}/like", Note: "like again", Want: 200, Do: func(c *apitest.Client, s *apitest.State) *apitest.Response {
				return c.Do("POST", "/v1/lines/"+s.LineID+"/like", nil, s.MigratedToken)
			}},
			{Stage: apitest.Write, Route: "POST /v1/lines/{id}/replies", Want: 201, Do: func(c *apitest.Client, s *apitest.State) *apitest.Response {
				res := c.Do("POST", "/v1/lines/"+s.LineID+"/replies", map[string]any{"content": "Seconded."}, s.MigratedToken)
				s.ReplyID, _ = res.JSON["id"].(string)
				return res
			}},
			{Stage: apitest.Write, Route: "POST /v1/lines/{id}/replies", Note: "second reply", Want: 201, Do: func(c *apitest.Client, s *apitest.State) *apitest.Response {
				return c.Do("POST", "/v1/lines/"+s.LineID+"/replies", map[string]any{"content": "Thanks."}, s.Token)
			}},
			{Stage: apitest.Write, Route: "GET /v1/lines/{id}/replies", Want: 200, Do: func(c *apitest.Client, s *apitest.State) *apitest.Response {
				return c.Do("GET", "/v1/lines/"+s.LineID+"/replies", nil, s.Token)
			}},
			{Stage: apitest.Write, Route: "DELETE /v1/lines/{lineId}/replies/{replyId}", Note: "not the author", Want: 403, Do: func(c *apitest.Client, s *apitest.State) *apitest.Response {
				return c.Do("DELETE", "/v1/lines/"+s.LineID+"/replies/"+s.ReplyID, nil, s.Token)
			}},
			{Stage: apitest.Write, Route: "DELETE /v1/lines/{lineId}/replies/{replyId}", Want: 200, Do: func(c *apitest.Client, s *apitest.State) *apitest.Response {
				return c.Do("DELETE", "/v1/lines/"+s.LineID+"/replies/"+s.ReplyID, nil, s.MigratedToken)
			}},
			{Stage: apitest.Write, Route: "GET /v1/books/{id}/lines", Want: 200, Do: func(c *apitest.Client, s *apitest.State) *apitest.Response {
				return c.Do("GET", "/v1/books/"+s.BookID+"/lines", nil, "")
			}},
			{Stage: apitest.Write, Route: "GET /v1/books/{id}/lines", Note: "signed in", Want: 200, Do: func(c *apitest.Client, s *apitest.State) *apitest.Response {
				return c.Do("GET", "/v1/books/"+s.BookID+"/lines?limit=10", nil, s.MigratedToken)
			}},
			{Stage: apitest.Write, Route: "GET /v1/books/{id}/lines", Note: "unknown book", Want: 404, Do: func(c *apitest.Client, _ *apitest.State) *apitest.Response {
				return c.Do("GET", "/v1/books/00000000-0000-4000-8000-000000000000/lines", nil, "")
			}},
			{Stage: apitest.Write, Route: "GET /v1/users/{username}/lines", Want: 200, Do: func(c *apitest.Client, s *apitest.State) *apitest.Response {
				return c.Do("GET", "/v1/users/"+s.Username+"/lines", nil, "")
			}},
			{Stage: apitest.Write, Route: "GET /v1/users/{username}/lines", Note: "signed in", Want: 200, Do: func(c *apitest.Client, s *apitest.State) *apitest.Response {
				return c.Do("GET", "/v1/users/"+s.Username+"/lines", nil, s.MigratedToken)
			}},
			{Stage: apitest.Write, Route: "DELETE /v1/lines/{id}", Note: "not the author", Want: 403, Do: func(c *apitest.Client, s *apitest.State) *apitest.Response {
				return c.Do("DELETE", "/v1/lines/"+s.LineID, nil, s.MigratedToken)
			}},
			{Stage: apitest.Write, Route: "DELETE /v1/lines/{id}", Note: "a like, a reply", Want: 200, Do: func(c *apitest.Client, s *apitest.State) *apitest.Response {
				return c.Do("DELETE", "/v1/lines/"+s.LineID, nil, s.Token)
			}},
		},
		Actions: map[string][]string{
			"POST /v1/lines":                              post,
			"GET /v1/lines/{id}":                          nil,
			"PUT /v1/lines/{id}":                          nil,
			"DELETE /v1/lines/{id}":                       nil,
			"POST /v1/lines/{id}/like":                    {"like"},
			"DELETE /v1/lines/{id}/like":                  {"like"},
			"POST /v1/lines/{id}/replies":                 post,
			"GET /v1/lines/{id}/replies":                  {"feed"},
			"DELETE /v1/lines/{lineId}/replies/{replyId}": nil,
			"GET /v1/books/{id}/lines":                    {"feed"},
			"GET /v1/users/{username}/lines":              {"feed"},
			// The club and challenge lists of lines are feeds like a book's;
			// the spec names no action for clubs and challenges themselves.
			"GET /v1/lines/club/{clubId}":           {"feed"},
			"GET /v1/lines/challenge/{challengeId}": {"feed"},
			"GET /v1/clubs/{id}/lines":              {"feed"},
		},
	}
}
