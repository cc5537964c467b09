// Package reviewsapi is the reviews endpoint group: reviews with their
// likes, and the two lists of reviews (a book's, with its rating
// statistics, and a reader's). The lists live here rather than with books
// and users because they read review data: this group's Lambda holds the
// grants for it.
package reviewsapi

import (
	"net/http"

	"github.com/bookplatform/backend/shared/httpapi"
	"github.com/bookplatform/backend/shared/reviews"
)

// Handler serves the reviews group.
type Handler struct {
	Reviews *reviews.Service
}

// Per-action limits (spec: Limits). Editing a review counts against
// create_review like writing one: the spec lists 429 on PUT, and
// create_review is the only review action it names. Taking a like back
// counts against like as giving one does, as on lines.
var (
	writeActions = []string{"create_review"}
	likeActions  = []string{"like"}
	feedActions  = []string{"feed"}
)

// Group returns the reviews group's route table. A zero Handler lists the
// routes without serving them (CDK, API reference).
func (h *Handler) Group() httpapi.Group {
	return httpapi.Group{Name: "reviews", Routes: []httpapi.Route{
		{Method: http.MethodPost, Path: httpapi.V1("/reviews"), Auth: httpapi.AuthBearer, Actions: writeActions, Handler: h.post},
		{Method: http.MethodGet, Path: httpapi.V1("/reviews/{id}"), Auth: httpapi.AuthBearer, Handler: h.get},
		{Method: http.MethodPut, Path: httpapi.V1("/reviews/{id}"), Auth: httpapi.AuthBearer, Actions: writeActions, Handler: h.update},
		{Method: http.MethodDelete, Path: httpapi.V1("/reviews/{id}"), Auth: httpapi.AuthBearer, Handler: h.delete},
		{Method: http.MethodPost, Path: httpapi.V1("/reviews/{id}/like"), Auth: httpapi.AuthBearer, Actions: likeActions, Handler: h.like},
		{Method: http.MethodDelete, Path: httpapi.V1("/reviews/{id}/like"), Auth: httpapi.AuthBearer, Actions: likeActions, Handler: h.unlike},
		{Method: http.MethodGet, Path: httpapi.V1("/books/{id}/reviews"), Auth: httpapi.AuthOptional, Actions: feedActions, Handler: h.listByBook},
		// The spec marks this list None; it is Optional so that a
		// signed-in caller sees isLiked, as on every review they can see.
		{Method: http.MethodGet, Path: httpapi.V1("/users/{username}/reviews"), Auth: httpapi.AuthOptional, Actions: feedActions, Handler: h.listByUser},
	}}
}
