// Package reviewsapitest declares what the central tests need about the
// reviews group (shared/api/apitest): its steps of the call benchmark's
// scenario (local/bench) and the rate-limit actions of its routes
// (shared/groups). Test support: no function links it.
package reviewsapitest

import (
	"github.com/bookplatform/backend/shared/api/apitest"
)

// Facts are the reviews group's steps and its routes' rate-limit actions.
func Facts() apitest.Facts {
	return apitest.Facts{
		Steps: []apitest.Step{
			// Reviews: at most 5 review writes by one user, create_review's hourly limit.
			{Stage: apitest.Write, Route: "POST /v1/reviews", Note: "create", Want: 201, Do: func(c *apitest.Client, s *apitest.State) *apitest.Response {
				res := c.Do("POST", "/v1/reviews", map[string]any{"bookId": s.BookID, "rating": 4, "content": "Benchmarked."}, s.Token)
				s.ReviewID, _ = res.JSON["id"].(string)
				return res
			}},
			{Stage: apitest.Write, Route: "POST /v1/reviews", Note: "again: update", Want: 200, Do: func(c *apitest.Client, s *apitest.State) *apitest.Response {
				return c.Do("POST", "/v1/reviews", map[string]any{"bookId": s.BookID, "rating": 5, "content": "Benchmarked twice."}, s.Token)
			}},
			{Stage: apitest.Write, Route: "POST /v1/reviews", Note: "rating 2.5", Want: 400, Do: func(c *apitest.Client, s *apitest.State) *apitest.Response {
				return c.Do("POST", "/v1/reviews", map[string]any{"bookId": s.BookID, "rating": 2.5}, s.Token)
			}},
			{Stage: apitest.Write, Route: "GET /v1/reviews/{id}", Want: 200, Do: func(c *apitest.Client, s *apitest.State) *apitest.Response {
				return c.Do("GET", "/v1/reviews/"+s.ReviewID, nil, s.Token)
			}},
			{Stage: apitest.Write, Route: "GET /v1/reviews/{id}", Note: "unknown id", Want: 404, Do: func(c *apitest.Client, s *apitest.State) *apitest.Response {
				return c.Do("GET", "/v1/reviews/00000000-0000-4000-8000-000000000000", nil, s.Token)
			}},
			{Stage: apitest.Write, Route: "PUT /v1/reviews/{id}", Note: "new rating", Want: 200, Do: func(c *apitest.Client, s *apitest.State) *apitest.Response {
				return c.Do("PUT", "/v1/reviews/"+s.ReviewID, map[string]any{"rating": 3}, s.Token)
			}},
			{Stage: apitest.Write, Route: "PUT /v1/reviews/{id}", Note: "not the author", Want: 403, Do: func(c *apitest.Client, s *apitest.State) *apitest.Response {
				return c.Do("PUT", "/v1/reviews/"+s.ReviewID, map[string]any{"rating": 1}, s.MigratedToken)
			}},
			{Stage: apitest.Write, Route: "POST /v1/reviews/{id}/like", Want: 200, Do: func(c *apitest.Client, s *apitest.State) *apitest.Response {
				return c.Do("POST", "/v1/reviews/"+s.ReviewID+"/like", nil, s.MigratedToken)
			}},
			{Stage: apitest.Write, Route: "POST /v1/reviews/{id}/like", Note: "already liked", Want: 400, Do: func(c *apitest.Client, s *apitest.State) *apitest.Response {
				return c.Do("POST", "/v1/reviews/"+s.ReviewID+"/like", nil, s.MigratedToken)
			}},
			// After the reports of the review (apitest.Report): the lists,
			// then the removal.
			{Stage: apitest.Tidy, Route: "GET /v1/books/{id}/reviews", Want: 200, Do: func(c *apitest.Client, s *apitest.State) *apitest.Response {
				return c.Do("GET", "/v1/books/"+s.BookID+"/reviews", nil, "")
			}},
			{Stage: apitest.Tidy, Route: "GET /v1/books/{id}/reviews", Note: "signed in, rating", Want: 200, Do: func(c *apitest.Client, s *apitest.State) *apitest.Response {
				return c.Do("GET", "/v1/books/"+s.BookID+"/reviews?sort=rating&limit=10", nil, s.MigratedToken)
			}},
			{Stage: apitest.Tidy, Route: "GET /v1/books/{id}/reviews", Note: "unknown book", Want: 404, Do: func(c *apitest.Client, _ *apitest.State) *apitest.Response {
				return c.Do("GET", "/v1/books/00000000-0000-4000-8000-000000000000/reviews", nil, "")
			}},
			{Stage: apitest.Tidy, Route: "GET /v1/users/{username}/reviews", Want: 200, Do: func(c *apitest.Client, s *apitest.State) *apitest.Response {
				return c.Do("GET", "/v1/users/"+s.Username+"/reviews", nil, "")
			}},
			{Stage: apitest.Tidy, Route: "GET /v1/users/{username}/reviews", Note: "signed in", Want: 200, Do: func(c *apitest.Client, s *apitest.State) *apitest.Response {
				return c.Do("GET", "/v1/users/"+s.Username+"/reviews", nil, s.MigratedToken)
			}},
			{Stage: apitest.Tidy, Route: "DELETE /v1/reviews/{id}/like", Want: 200, Do: func(c *apitest.Client, s *apitest.State) *apitest.Response {
				return c.Do("DELETE", "/v1/reviews/"+s.ReviewID+"/like", nil, s.MigratedToken)
			}},
			{Stage: apitest.Tidy, Route: "POST /v1/reviews/{id}/like", Note: "like again", Want: 200, Do: func(c *apitest.Client, s *apitest.State) *apitest.Response {
				return c.Do("POST", "/v1/reviews/"+s.ReviewID+"/like", nil, s.MigratedToken)
			}},
			{Stage: apitest.Tidy, Route: "DELETE /v1/reviews/{id}", Note: "not the author", Want: 403, Do: func(c *apitest.Client, s *apitest.State) *apitest.Response {
				return c.Do("DELETE", "/v1/reviews/"+s.ReviewID, nil, s.MigratedToken)
			}},
			{Stage: apitest.Tidy, Route: "DELETE /v1/reviews/{id}", Note: "with a like", Want: 200, Do: func(c *apitest.Client, s *apitest.State) *apitest.Response {
				return c.Do("DELETE", "/v1/reviews/"+s.ReviewID, nil, s.Token)
			}},
		},
		Actions: map[string][]string{
			"POST /v1/reviews":                 {"create_review"},
			"GET /v1/reviews/{id}":             nil,
			"PUT /v1/reviews/{id}":             {"create_review"},
			"DELETE /v1/reviews/{id}":          nil,
			"POST /v1/reviews/{id}/like":       {"like"},
			"DELETE /v1/reviews/{id}/like":     {"like"},
			"GET /v1/books/{id}/reviews":       {"feed"},
			"GET /v1/users/{username}/reviews": {"feed"},
		},
	}
}
