package groups

import (
	"testing"

	"github.com/stretchr/testify/assert"
)

// The mapping of the spec's per-action rate limits to routes is not given
// by the spec (docs/decisions.md, "Rate limits", "Lines", "Reviews"); this
// pins it for every route of every group in one place, so a new route or a
// changed mapping is a visible decision. How a limit is enforced is tested
// in shared/httpapi; that limits bite through the API, in each group.
func TestRoutes_perActionLimits(t *testing.T) {
	post := []string{"create_line", "create_line_hourly"}
	want := map[string][]string{
		"GET /health": nil, "GET /openapi.json": nil, "GET /docs": nil, "GET /docs/redoc.standalone.js": nil,

		"POST /v1/auth/guest": nil, "POST /v1/auth/signup": nil, "POST /v1/auth/login": nil,
		"POST /v1/auth/refresh": nil, "POST /v1/auth/migrate-guest": nil, "POST /v1/auth/logout": nil,

		"GET /v1/users/me": nil, "PUT /v1/users/me": nil, "PUT /v1/users/me/password": nil,
		"POST /v1/users/me/avatar": nil, "POST /v1/users/me/avatar/upload-url": nil, "PUT /v1/users/me/avatar": nil,
		"GET /v1/users/{userId}": nil, "GET /v1/users/username/{username}": nil,

		"GET /v1/books":             {"search"},
		"GET /v1/books/{id}":        nil,
		"GET /v1/books/isbn/{isbn}": nil,

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

		"POST /v1/reviews":                 {"create_review"},
		"GET /v1/reviews/{id}":             nil,
		"PUT /v1/reviews/{id}":             {"create_review"},
		"DELETE /v1/reviews/{id}":          nil,
		"POST /v1/reviews/{id}/like":       {"like"},
		"DELETE /v1/reviews/{id}/like":     {"like"},
		"GET /v1/books/{id}/reviews":       {"feed"},
		"GET /v1/users/{username}/reviews": {"feed"},

		// The club and challenge lists of lines are feeds like a book's;
		// the spec names no action for clubs and challenges themselves.
		"GET /v1/lines/club/{clubId}":           {"feed"},
		"GET /v1/lines/challenge/{challengeId}": {"feed"},
		"GET /v1/clubs/{id}/lines":              {"feed"},

		"GET /v1/clubs": nil, "POST /v1/clubs": nil, "GET /v1/clubs/me/joined": nil,
		"GET /v1/clubs/{id}": nil, "PUT /v1/clubs/{id}": nil, "DELETE /v1/clubs/{id}": nil,
		"POST /v1/clubs/{id}/books": nil, "PUT /v1/clubs/{id}/books/{bookId}": nil, "DELETE /v1/clubs/{id}/books/{bookId}": nil,
		"POST /v1/clubs/{id}/join": nil, "DELETE /v1/clubs/{id}/leave": nil,
		"GET /v1/clubs/{id}/members": nil, "POST /v1/clubs/{id}/members": nil, "PUT /v1/clubs/{id}/members/{memberId}/role": nil,
		"GET /v1/users/me/clubs": nil, "GET /v1/users/{username}/clubs": nil,

		"GET /v1/challenges": nil, "POST /v1/challenges": nil, "GET /v1/challenges/{id}": nil,
		"PUT /v1/challenges/{id}": nil, "DELETE /v1/challenges/{id}": nil,
		"POST /v1/challenges/{id}/join": nil, "DELETE /v1/challenges/{id}/leave": nil,
		"PUT /v1/challenges/{id}/progress": nil, "GET /v1/challenges/{id}/participants": nil,
		"GET /v1/users/me/challenges": nil, "GET /v1/users/{username}/challenges": nil,
		"GET /v1/wishlists":                        nil,
		"POST /v1/wishlists":                       nil,
		"GET /v1/wishlists/{id}":                   nil,
		"PUT /v1/wishlists/{id}":                   nil,
		"DELETE /v1/wishlists/{id}":                nil,
		"POST /v1/wishlists/{id}/items":            nil,
		"PUT /v1/wishlists/{id}/items/{itemId}":    nil,
		"DELETE /v1/wishlists/{id}/items/{itemId}": nil,
		"GET /v1/users/{username}/wishlists":       nil,

		"POST /v1/follows/users/{userId}":   {"follow_user"},
		"DELETE /v1/follows/users/{userId}": {"follow_user"},
		"GET /v1/follows/users/{userId}":    nil,
		"GET /v1/follows/following":         nil,
		"GET /v1/follows/followers":         nil,
		// A store is followed under the same budget as a reader.
		"POST /v1/follows/stores/{storeId}":   {"follow_user"},
		"DELETE /v1/follows/stores/{storeId}": {"follow_user"},
		"GET /v1/follows/stores/{storeId}":    nil,
		"GET /v1/follows/stores":              nil,

		"POST /v1/notes":        nil,
		"GET /v1/notes":         nil,
		"GET /v1/notes/{id}":    nil,
		"PUT /v1/notes/{id}":    nil,
		"DELETE /v1/notes/{id}": nil,

		"POST /v1/reports": {"report"},
		// Stores: the spec names no action for them; the tier rate
		// applies (lookup-by-domain is unmetered: a storefront's lookup).
		"GET /v1/stores": nil, "POST /v1/stores": nil, "GET /v1/stores/my": nil, "GET /v1/stores/lookup-by-domain": nil,
		"GET /v1/stores/{slug}": nil, "PUT /v1/stores/{slug}": nil, "DELETE /v1/stores/{slug}": nil,
		"GET /v1/stores/{slug}/website-config": nil,
		"POST /v1/stores/{slug}/logo":          nil, "POST /v1/stores/{slug}/logo/upload-url": nil, "PUT /v1/stores/{slug}/logo": nil,
		"POST /v1/stores/{slug}/banner": nil, "POST /v1/stores/{slug}/banner/upload-url": nil, "PUT /v1/stores/{slug}/banner": nil,
		"POST /v1/stores/{slug}/domain/verify": nil, "GET /v1/stores/{slug}/domain/status": nil, "DELETE /v1/stores/{slug}/domain": nil,
		"POST /v1/stores/{slug}/staff": nil, "GET /v1/stores/{slug}/staff": nil, "DELETE /v1/stores/{slug}/staff/{userId}": nil,
		"GET /v1/users/me/home-store": nil, "PUT /v1/users/me/home-store": nil, "DELETE /v1/users/me/home-store": nil,
		"GET /v1/stores/{slug}/clubs": nil, "GET /v1/stores/{slug}/challenges": nil,
	}
	got := map[string][]string{}
	for _, r := range Routes() {
		got[r.Method+" "+r.Path] = r.Actions
	}
	assert.Equal(t, want, got)
}
