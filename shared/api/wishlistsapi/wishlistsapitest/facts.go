// Package wishlistsapitest declares what the central tests need about the
// wishlists group (shared/api/apitest): its steps of the call benchmark's
// scenario (local/bench) and the rate-limit actions of its routes
// (shared/groups). Test support: no function links it.
package wishlistsapitest

import (
	"github.com/bookplatform/backend/shared/api/apitest"
)

// Facts are the wishlists group's steps and its routes' rate-limit actions.
func Facts() apitest.Facts {
	return apitest.Facts{
		Steps: []apitest.Step{
			// Wishlists: the reader (free tier: one wishlist) keeps a public one.
			{Stage: apitest.Tidy, Route: "POST /v1/wishlists", Want: 201, Do: func(c *apitest.Client, s *apitest.State) *apitest.Response {
				res := c.Do("POST", "/v1/wishlists", map[string]any{"name": "Bench picks", "isPublic": true}, s.Token)
				s.WishlistID, _ = res.JSON["id"].(string)
				return res
			}},
			{Stage: apitest.Tidy, Route: "POST /v1/wishlists", Note: "free tier's limit", Want: 403, Do: func(c *apitest.Client, s *apitest.State) *apitest.Response {
				return c.Do("POST", "/v1/wishlists", map[string]any{"name": "One too many"}, s.Token)
			}},
			{Stage: apitest.Tidy, Route: "GET /v1/wishlists", Want: 200, Do: func(c *apitest.Client, s *apitest.State) *apitest.Response {
				return c.Do("GET", "/v1/wishlists", nil, s.Token)
			}},
			{Stage: apitest.Tidy, Route: "PUT /v1/wishlists/{id}", Want: 200, Do: func(c *apitest.Client, s *apitest.State) *apitest.Response {
				return c.Do("PUT", "/v1/wishlists/"+s.WishlistID, map[string]any{"description": "Measured."}, s.Token)
			}},
			{Stage: apitest.Tidy, Route: "PUT /v1/wishlists/{id}", Note: "not the owner", Want: 403, Do: func(c *apitest.Client, s *apitest.State) *apitest.Response {
				return c.Do("PUT", "/v1/wishlists/"+s.WishlistID, map[string]any{"name": "Mine now"}, s.MigratedToken)
			}},
			{Stage: apitest.Tidy, Route: "POST /v1/wishlists/{id}/items", Want: 201, Do: func(c *apitest.Client, s *apitest.State) *apitest.Response {
				return c.Do("POST", "/v1/wishlists/"+s.WishlistID+"/items", map[string]any{"bookId": s.BookID, "priority": 1, "notes": "first"}, s.Token)
			}},
			{Stage: apitest.Tidy, Route: "POST /v1/wishlists/{id}/items", Note: "second book", Want: 201, Do: func(c *apitest.Client, s *apitest.State) *apitest.Response {
				return c.Do("POST", "/v1/wishlists/"+s.WishlistID+"/items", map[string]any{"bookId": s.Book2ID}, s.Token)
			}},
			{Stage: apitest.Tidy, Route: "POST /v1/wishlists/{id}/items", Note: "same book again", Want: 400, Do: func(c *apitest.Client, s *apitest.State) *apitest.Response {
				return c.Do("POST", "/v1/wishlists/"+s.WishlistID+"/items", map[string]any{"bookId": s.BookID}, s.Token)
			}},
			{Stage: apitest.Tidy, Route: "PUT /v1/wishlists/{id}/items/{itemId}", Want: 200, Do: func(c *apitest.Client, s *apitest.State) *apitest.Response {
				return c.Do("PUT", "/v1/wishlists/"+s.WishlistID+"/items/"+s.Book2ID, map[string]any{"priority": 2}, s.Token)
			}},
			{Stage: apitest.Tidy, Route: "PUT /v1/wishlists/{id}/items/{itemId}", Note: "not the owner", Want: 403, Do: func(c *apitest.Client, s *apitest.State) *apitest.Response {
				return c.Do("PUT", "/v1/wishlists/"+s.WishlistID+"/items/"+s.Book2ID, map[string]any{"priority": 3}, s.MigratedToken)
			}},
			{Stage: apitest.Tidy, Route: "GET /v1/wishlists/{id}", Note: "2 books", Want: 200, Do: func(c *apitest.Client, s *apitest.State) *apitest.Response {
				return c.Do("GET", "/v1/wishlists/"+s.WishlistID, nil, "")
			}},
			{Stage: apitest.Tidy, Route: "GET /v1/wishlists/{id}", Note: "signed in", Want: 200, Do: func(c *apitest.Client, s *apitest.State) *apitest.Response {
				return c.Do("GET", "/v1/wishlists/"+s.WishlistID, nil, s.Token)
			}},
			{Stage: apitest.Tidy, Route: "GET /v1/wishlists/{id}", Note: "unknown id", Want: 404, Do: func(c *apitest.Client, s *apitest.State) *apitest.Response {
				return c.Do("GET", "/v1/wishlists/00000000-0000-4000-8000-000000000000", nil, s.Token)
			}},
			{Stage: apitest.Tidy, Route: "GET /v1/users/{username}/wishlists", Want: 200, Do: func(c *apitest.Client, s *apitest.State) *apitest.Response {
				return c.Do("GET", "/v1/users/"+s.Username+"/wishlists", nil, "")
			}},
			{Stage: apitest.Tidy, Route: "DELETE /v1/wishlists/{id}/items/{itemId}", Want: 200, Do: func(c *apitest.Client, s *apitest.State) *apitest.Response {
				return c.Do("DELETE", "/v1/wishlists/"+s.WishlistID+"/items/"+s.Book2ID, nil, s.Token)
			}},
			{Stage: apitest.Tidy, Route: "DELETE /v1/wishlists/{id}/items/{itemId}", Note: "not on it", Want: 404, Do: func(c *apitest.Client, s *apitest.State) *apitest.Response {
				return c.Do("DELETE", "/v1/wishlists/"+s.WishlistID+"/items/"+s.Book2ID, nil, s.Token)
			}},
			{Stage: apitest.Tidy, Route: "DELETE /v1/wishlists/{id}", Note: "not the owner", Want: 403, Do: func(c *apitest.Client, s *apitest.State) *apitest.Response {
				return c.Do("DELETE", "/v1/wishlists/"+s.WishlistID, nil, s.MigratedToken)
			}},
			{Stage: apitest.Tidy, Route: "DELETE /v1/wishlists/{id}", Note: "with one book", Want: 200, Do: func(c *apitest.Client, s *apitest.State) *apitest.Response {
				return c.Do("DELETE", "/v1/wishlists/"+s.WishlistID, nil, s.Token)
			}},
		},
		Actions: map[string][]string{
			"GET /v1/wishlists":                        nil,
			"POST /v1/wishlists":                       nil,
			"GET /v1/wishlists/{id}":                   nil,
			"PUT /v1/wishlists/{id}":                   nil,
			"DELETE /v1/wishlists/{id}":                nil,
			"POST /v1/wishlists/{id}/items":            nil,
			"PUT /v1/wishlists/{id}/items/{itemId}":    nil,
			"DELETE /v1/wishlists/{id}/items/{itemId}": nil,
			"GET /v1/users/{username}/wishlists":       nil,
			"GET /v1/stores/{slug}/wishlist-demand":    nil, // its steps are stores' (the store is made there)
		},
	}
}
