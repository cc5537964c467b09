// Package storesapitest declares what the central tests need about the
// stores group (shared/api/apitest): its steps of the call benchmark's
// scenario (local/bench) and the rate-limit actions of its routes
// (shared/groups). Test support: no function links it.
package storesapitest

import (
	"github.com/bookplatform/backend/shared/api/apitest"
	"github.com/bookplatform/backend/shared/api/storesapi"
)

// Facts are the stores group's steps and its routes' rate-limit actions.
func Facts() apitest.Facts {
	return apitest.Facts{
		Steps: []apitest.Step{
			// Stores: a bookseller opens a store; the reader (s.token) is a
			// customer and, for a while, staff.
			{Stage: apitest.Store, Route: "POST /v1/stores", Want: 201, Do: func(c *apitest.Client, s *apitest.State) *apitest.Response {
				s.StoreSlug = "bench-books"
				res := c.Do("POST", "/v1/stores", map[string]any{
					"name": "Bench Books", "slug": s.StoreSlug, "description": "Measured.", "addressLine1": "1005 W Burnside St",
					"city": "Portland", "state": "OR", "postalCode": "97209", "country": "US", "phone": "+1 503 555 0100",
					"email": "bench@example.com", "primaryColor": "#336699", "hours": map[string]any{"monday": "9-17"}, "taxRate": 0.0,
				}, s.SellerToken)
				s.StoreID, _ = res.JSON["id"].(string)
				return res
			}},
			{Stage: apitest.Store, Route: "POST /v1/stores", Note: "free tier", Want: 403, Do: func(c *apitest.Client, s *apitest.State) *apitest.Response {
				return c.Do("POST", "/v1/stores", map[string]any{"name": "No", "slug": "no-shop"}, s.Token)
			}},
			{Stage: apitest.Store, Route: "POST /v1/stores", Note: "a second store, slug taken", Want: 400, Do: func(c *apitest.Client, s *apitest.State) *apitest.Response {
				return c.Do("POST", "/v1/stores", map[string]any{
					"name": "Bench Books", "slug": s.StoreSlug, "addressLine1": "1005 W Burnside St",
					"city": "Portland", "state": "OR", "postalCode": "97209", "country": "US",
				}, s.SellerToken)
			}},
			{Stage: apitest.Store, Route: "GET /v1/stores/my", Want: 200, Do: func(c *apitest.Client, s *apitest.State) *apitest.Response {
				return c.Do("GET", "/v1/stores/my", nil, s.SellerToken)
			}},
			{Stage: apitest.Store, Route: "GET /v1/stores/{slug}", Want: 200, Do: func(c *apitest.Client, s *apitest.State) *apitest.Response {
				return c.Do("GET", "/v1/stores/"+s.StoreSlug, nil, "")
			}},
			{Stage: apitest.Store, Route: "GET /v1/stores/{slug}", Note: "unknown slug", Want: 404, Do: func(c *apitest.Client, _ *apitest.State) *apitest.Response {
				return c.Do("GET", "/v1/stores/no-such-shop", nil, "")
			}},
			{Stage: apitest.Store, Route: "PUT /v1/stores/{slug}", Note: "name and hours", Want: 200, Do: func(c *apitest.Client, s *apitest.State) *apitest.Response {
				return c.Do("PUT", "/v1/stores/"+s.StoreSlug, map[string]any{"name": "Bench Books & Coffee", "hours": map[string]any{"sunday": "Closed"}}, s.SellerToken)
			}},
			{Stage: apitest.Store, Route: "PUT /v1/stores/{slug}", Note: "not the owner", Want: 403, Do: func(c *apitest.Client, s *apitest.State) *apitest.Response {
				return c.Do("PUT", "/v1/stores/"+s.StoreSlug, map[string]any{"name": "Mine"}, s.Token)
			}},
			{Stage: apitest.Store, Route: "GET /v1/stores", Note: "25 miles", Want: 200, Do: func(c *apitest.Client, _ *apitest.State) *apitest.Response {
				return c.Do("GET", "/v1/stores?latitude=45.5231&longitude=-122.6765", nil, "")
			}},
			{Stage: apitest.Store, Route: "GET /v1/stores", Note: "by name", Want: 200, Do: func(c *apitest.Client, _ *apitest.State) *apitest.Response {
				return c.Do("GET", "/v1/stores?limit=5", nil, "")
			}},
			{Stage: apitest.Store, Route: "GET /v1/stores", Note: "700 miles (ranges)", Want: 200, Do: func(c *apitest.Client, _ *apitest.State) *apitest.Response {
				return c.Do("GET", "/v1/stores?latitude=45.5231&longitude=-122.6765&radius=700", nil, "")
			}},
			{Stage: apitest.Store, Route: "GET /v1/stores", Note: "near the pole (ranges)", Want: 200, Do: func(c *apitest.Client, _ *apitest.State) *apitest.Response {
				return c.Do("GET", "/v1/stores?latitude=89.4&longitude=0&radius=100", nil, "")
			}},
			// The store hosts a club and a challenge; the reader follows it.
			{Stage: apitest.Store, Route: "POST /v1/clubs", Note: "store-hosted", Want: 201, Do: func(c *apitest.Client, s *apitest.State) *apitest.Response {
				return c.Do("POST", "/v1/clubs", map[string]any{"name": "Bench Books club", "storeId": s.StoreID}, s.SellerToken)
			}},
			{Stage: apitest.Store, Route: "POST /v1/challenges", Note: "store-hosted", Want: 201, Do: func(c *apitest.Client, s *apitest.State) *apitest.Response {
				return c.Do("POST", "/v1/challenges", map[string]any{"name": "Bench Books challenge", "goal": 6, "startDate": "2026-01-01", "endDate": "2026-06-30", "storeId": s.StoreID}, s.SellerToken)
			}},
			{Stage: apitest.Store, Route: "GET /v1/stores/{slug}/clubs", Want: 200, Do: func(c *apitest.Client, s *apitest.State) *apitest.Response {
				return c.Do("GET", "/v1/stores/"+s.StoreSlug+"/clubs", nil, "")
			}},
			{Stage: apitest.Store, Route: "GET /v1/stores/{slug}/clubs", Note: "unknown slug", Want: 404, Do: func(c *apitest.Client, _ *apitest.State) *apitest.Response {
				return c.Do("GET", "/v1/stores/no-such-shop/clubs", nil, "")
			}},
			{Stage: apitest.Store, Route: "GET /v1/stores/{slug}/challenges", Want: 200, Do: func(c *apitest.Client, s *apitest.State) *apitest.Response {
				return c.Do("GET", "/v1/stores/"+s.StoreSlug+"/challenges", nil, s.Token)
			}},
			{Stage: apitest.Store, Route: "POST /v1/follows/stores/{storeId}", Want: 200, Do: func(c *apitest.Client, s *apitest.State) *apitest.Response {
				return c.Do("POST", "/v1/follows/stores/"+s.StoreID, nil, s.Token)
			}},
			{Stage: apitest.Store, Route: "POST /v1/follows/stores/{storeId}", Note: "already following", Want: 400, Do: func(c *apitest.Client, s *apitest.State) *apitest.Response {
				return c.Do("POST", "/v1/follows/stores/"+s.StoreID, nil, s.Token)
			}},
			{Stage: apitest.Store, Route: "GET /v1/follows/stores/{storeId}", Want: 200, Do: func(c *apitest.Client, s *apitest.State) *apitest.Response {
				return c.Do("GET", "/v1/follows/stores/"+s.StoreID, nil, s.Token)
			}},
			{Stage: apitest.Store, Route: "GET /v1/follows/stores", Want: 200, Do: func(c *apitest.Client, s *apitest.State) *apitest.Response {
				return c.Do("GET", "/v1/follows/stores", nil, s.Token)
			}},
			{Stage: apitest.Store, Route: "DELETE /v1/follows/stores/{storeId}", Want: 200, Do: func(c *apitest.Client, s *apitest.State) *apitest.Response {
				return c.Do("DELETE", "/v1/follows/stores/"+s.StoreID, nil, s.Token)
			}},
			{Stage: apitest.Store, Route: "POST /v1/follows/stores/{storeId}", Note: "for the delete", Want: 200, Do: func(c *apitest.Client, s *apitest.State) *apitest.Response {
				return c.Do("POST", "/v1/follows/stores/"+s.StoreID, nil, s.Token)
			}},
			{Stage: apitest.Store, Route: "GET /v1/stores/{slug}/website-config", Want: 200, Do: func(c *apitest.Client, s *apitest.State) *apitest.Response {
				return c.Do("GET", "/v1/stores/"+s.StoreSlug+"/website-config", nil, "")
			}},
			{Stage: apitest.Store, Route: "POST /v1/stores/{slug}/logo", Note: "1 KB PNG", Want: 200, Do: func(c *apitest.Client, s *apitest.State) *apitest.Response {
				body, ctype := apitest.ImageUpload("logo")
				return c.Raw("POST", "/v1/stores/"+s.StoreSlug+"/logo", ctype, body, s.SellerToken)
			}},
			{Stage: apitest.Store, Route: "POST /v1/stores/{slug}/banner", Note: "1 KB PNG", Want: 200, Do: func(c *apitest.Client, s *apitest.State) *apitest.Response {
				body, ctype := apitest.ImageUpload("banner")
				return c.Raw("POST", "/v1/stores/"+s.StoreSlug+"/banner", ctype, body, s.SellerToken)
			}},
			{Stage: apitest.Store, Route: "POST /v1/stores/{slug}/logo/upload-url", Want: 200, Do: func(c *apitest.Client, s *apitest.State) *apitest.Response {
				res := c.Do("POST", "/v1/stores/"+s.StoreSlug+"/logo/upload-url", nil, s.SellerToken)
				s.Upload = res.JSON
				return res
			}},
			{Stage: apitest.Store, Route: "PUT /v1/stores/{slug}/logo", Note: "presigned", Want: 200, Do: func(c *apitest.Client, s *apitest.State) *apitest.Response {
				apitest.PutUpload(s.Upload)
				return c.Do("PUT", "/v1/stores/"+s.StoreSlug+"/logo", map[string]any{"uploadKey": s.Upload["uploadKey"]}, s.SellerToken)
			}},
			{Stage: apitest.Store, Route: "POST /v1/stores/{slug}/banner/upload-url", Want: 200, Do: func(c *apitest.Client, s *apitest.State) *apitest.Response {
				res := c.Do("POST", "/v1/stores/"+s.StoreSlug+"/banner/upload-url", nil, s.SellerToken)
				s.Upload = res.JSON
				return res
			}},
			{Stage: apitest.Store, Route: "PUT /v1/stores/{slug}/banner", Note: "presigned", Want: 200, Do: func(c *apitest.Client, s *apitest.State) *apitest.Response {
				apitest.PutUpload(s.Upload)
				return c.Do("PUT", "/v1/stores/"+s.StoreSlug+"/banner", map[string]any{"uploadKey": s.Upload["uploadKey"]}, s.SellerToken)
			}},
			// The reader's avatar by a presigned slot: a users route, run
			// beside the store's presigned images, as the scenario always has.
			{Stage: apitest.Store, Route: "POST /v1/users/me/avatar/upload-url", Want: 200, Do: func(c *apitest.Client, s *apitest.State) *apitest.Response {
				res := c.Do("POST", "/v1/users/me/avatar/upload-url", nil, s.Token)
				s.Upload = res.JSON
				return res
			}},
			{Stage: apitest.Store, Route: "PUT /v1/users/me/avatar", Note: "presigned", Want: 200, Do: func(c *apitest.Client, s *apitest.State) *apitest.Response {
				apitest.PutUpload(s.Upload)
				return c.Do("PUT", "/v1/users/me/avatar", map[string]any{"uploadKey": s.Upload["uploadKey"]}, s.Token)
			}},
			{Stage: apitest.Store, Route: "POST /v1/stores/{slug}/staff", Want: 201, Do: func(c *apitest.Client, s *apitest.State) *apitest.Response {
				return c.Do("POST", "/v1/stores/"+s.StoreSlug+"/staff", map[string]any{"email": s.Email}, s.SellerToken)
			}},
			{Stage: apitest.Store, Route: "GET /v1/stores/{slug}/staff", Want: 200, Do: func(c *apitest.Client, s *apitest.State) *apitest.Response {
				return c.Do("GET", "/v1/stores/"+s.StoreSlug+"/staff", nil, s.SellerToken)
			}},
			{Stage: apitest.Store, Route: "GET /v1/stores/{slug}/staff", Note: "staff, not owner", Want: 403, Do: func(c *apitest.Client, s *apitest.State) *apitest.Response {
				return c.Do("GET", "/v1/stores/"+s.StoreSlug+"/staff", nil, s.Token)
			}},
			{Stage: apitest.Store, Route: "PUT /v1/users/me/home-store", Want: 200, Do: func(c *apitest.Client, s *apitest.State) *apitest.Response {
				return c.Do("PUT", "/v1/users/me/home-store", map[string]any{"storeId": s.StoreID}, s.Token)
			}},
			{Stage: apitest.Store, Route: "GET /v1/users/me/home-store", Want: 200, Do: func(c *apitest.Client, s *apitest.State) *apitest.Response {
				return c.Do("GET", "/v1/users/me/home-store", nil, s.Token)
			}},
			{Stage: apitest.Store, Route: "DELETE /v1/users/me/home-store", Want: 200, Do: func(c *apitest.Client, s *apitest.State) *apitest.Response {
				return c.Do("DELETE", "/v1/users/me/home-store", nil, s.Token)
			}},
			{Stage: apitest.Store, Route: "PUT /v1/users/me/home-store", Note: "again, for the delete", Want: 200, Do: func(c *apitest.Client, s *apitest.State) *apitest.Response {
				return c.Do("PUT", "/v1/users/me/home-store", map[string]any{"storeId": s.StoreID}, s.Token)
			}},
			// Wishlist demand (a wishlists route, here for the store): the
			// reader, whose home store it is, wishes for a book.
			{Stage: apitest.Store, Route: "POST /v1/wishlists", Note: "a reader of the store", Want: 201, Do: func(c *apitest.Client, s *apitest.State) *apitest.Response {
				res := c.Do("POST", "/v1/wishlists", map[string]any{"name": "Wanted nearby"}, s.Token)
				s.WishlistID, _ = res.JSON["id"].(string)
				return res
			}},
			{Stage: apitest.Store, Route: "POST /v1/wishlists/{id}/items", Note: "counted at the home store", Want: 201, Do: func(c *apitest.Client, s *apitest.State) *apitest.Response {
				return c.Do("POST", "/v1/wishlists/"+s.WishlistID+"/items", map[string]any{"bookId": s.BookID}, s.Token)
			}},
			{Stage: apitest.Store, Route: "GET /v1/stores/{slug}/wishlist-demand", Want: 200, Do: func(c *apitest.Client, s *apitest.State) *apitest.Response {
				return c.Do("GET", "/v1/stores/"+s.StoreSlug+"/wishlist-demand", nil, s.SellerToken)
			}},
			{Stage: apitest.Store, Route: "GET /v1/stores/{slug}/wishlist-demand", Note: "staff, not owner", Want: 403, Do: func(c *apitest.Client, s *apitest.State) *apitest.Response {
				return c.Do("GET", "/v1/stores/"+s.StoreSlug+"/wishlist-demand", nil, s.Token)
			}},
			{Stage: apitest.Store, Route: "POST /v1/stores/{slug}/domain/verify", Want: 200, Do: func(c *apitest.Client, s *apitest.State) *apitest.Response {
				return c.Do("POST", "/v1/stores/"+s.StoreSlug+"/domain/verify", map[string]any{"domain": "books.bench.example.com"}, s.SellerToken)
			}},
			{Stage: apitest.Store, Route: "GET /v1/stores/{slug}/domain/status", Note: "still PENDING", Want: 200, Do: func(c *apitest.Client, s *apitest.State) *apitest.Response {
				return c.Do("GET", "/v1/stores/"+s.StoreSlug+"/domain/status", nil, s.SellerToken)
			}},
			{Stage: apitest.Store, Route: "GET /v1/stores/{slug}/domain/status", Note: "moves to VERIFIED", Want: 200, Writes: true, Do: func(c *apitest.Client, s *apitest.State) *apitest.Response {
				s.SetCNAME("books.bench.example.com", s.StoreSlug+"."+storesapi.DefaultDomainTarget)
				return c.Do("GET", "/v1/stores/"+s.StoreSlug+"/domain/status", nil, s.SellerToken)
			}},
			{Stage: apitest.Store, Route: "GET /v1/stores/lookup-by-domain", Want: 200, Do: func(c *apitest.Client, _ *apitest.State) *apitest.Response {
				return c.Do("GET", "/v1/stores/lookup-by-domain?domain=books.bench.example.com", nil, "")
			}},
			{Stage: apitest.Store, Route: "GET /v1/stores/lookup-by-domain", Note: "unknown domain", Want: 404, Do: func(c *apitest.Client, _ *apitest.State) *apitest.Response {
				return c.Do("GET", "/v1/stores/lookup-by-domain?domain=nobody.example.com", nil, "")
			}},
			{Stage: apitest.Store, Route: "DELETE /v1/stores/{slug}/domain", Want: 200, Do: func(c *apitest.Client, s *apitest.State) *apitest.Response {
				return c.Do("DELETE", "/v1/stores/"+s.StoreSlug+"/domain", nil, s.SellerToken)
			}},
			{Stage: apitest.Store, Route: "DELETE /v1/stores/{slug}/staff/{userId}", Want: 200, Do: func(c *apitest.Client, s *apitest.State) *apitest.Response {
				return c.Do("DELETE", "/v1/stores/"+s.StoreSlug+"/staff/"+s.UserID, nil, s.SellerToken)
			}},
			{Stage: apitest.Store, Route: "DELETE /v1/stores/{slug}", Note: "with dependents", Want: 200, Do: func(c *apitest.Client, s *apitest.State) *apitest.Response {
				return c.Do("DELETE", "/v1/stores/"+s.StoreSlug, nil, s.SellerToken)
			}},
		},
		// The spec names no action for stores; the tier rate applies
		// (lookup-by-domain is unmetered: a storefront's lookup).
		Actions: map[string][]string{
			"GET /v1/stores":                           nil,
			"POST /v1/stores":                          nil,
			"GET /v1/stores/my":                        nil,
			"GET /v1/stores/lookup-by-domain":          nil,
			"GET /v1/stores/{slug}":                    nil,
			"PUT /v1/stores/{slug}":                    nil,
			"DELETE /v1/stores/{slug}":                 nil,
			"GET /v1/stores/{slug}/website-config":     nil,
			"POST /v1/stores/{slug}/domain/verify":     nil,
			"GET /v1/stores/{slug}/domain/status":      nil,
			"DELETE /v1/stores/{slug}/domain":          nil,
			"POST /v1/stores/{slug}/staff":             nil,
			"GET /v1/stores/{slug}/staff":              nil,
			"DELETE /v1/stores/{slug}/staff/{userId}":  nil,
			"GET /v1/users/me/home-store":              nil,
			"PUT /v1/users/me/home-store":              nil,
			"DELETE /v1/users/me/home-store":           nil,
			"POST /v1/stores/{slug}/logo":              nil,
			"POST /v1/stores/{slug}/logo/upload-url":   nil,
			"PUT /v1/stores/{slug}/logo":               nil,
			"POST /v1/stores/{slug}/banner":            nil,
			"POST /v1/stores/{slug}/banner/upload-url": nil,
			"PUT /v1/stores/{slug}/banner":             nil,
		},
	}
}
