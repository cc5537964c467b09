// Package linesapi is the lines endpoint group: lines, their likes and
// replies, and the two lists of lines (a book's and an author's). The
// lists live here rather than with books and users because they read
// lines data: this group's Lambda holds the grants for it.
package linesapi

import (
	"net/http"

	"github.com/bookplatform/backend/shared/httpapi"
	"github.com/bookplatform/backend/shared/lines"
)

// Handler serves the lines group.
type Handler struct {
	Lines *lines.Service
}

// Per-action limits (spec: Limits). A reply is a post like a line, so it
// counts against the same create_line limits as it counts against the
// same monthly quota.
var (
	postActions = []string{"create_line", "create_line_hourly"}
	likeActions = []string{"like"}
	feedActions = []string{"feed"}
)

// Group returns the lines group's route table. A zero Handler lists the
// routes without serving them (CDK, API reference).
func (h *Handler) Group() httpapi.Group {
	return httpapi.Group{Name: "lines", Routes: []httpapi.Route{
		{Method: http.MethodPost, Path: httpapi.V1("/lines"), Auth: httpapi.AuthBearer, Actions: postActions, Handler: h.create},
		{Method: http.MethodGet, Path: httpapi.V1("/lines/{id}"), Auth: httpapi.AuthBearer, Handler: h.get},
		{Method: http.MethodPut, Path: httpapi.V1("/lines/{id}"), Auth: httpapi.AuthBearer, Handler: h.update},
		{Method: http.MethodDelete, Path: httpapi.V1("/lines/{id}"), Auth: httpapi.AuthBearer, Handler: h.delete},
		{Method: http.MethodPost, Path: httpapi.V1("/lines/{id}/like"), Auth: httpapi.AuthBearer, Actions: likeActions, Handler: h.like},
		{Method: http.MethodDelete, Path: httpapi.V1("/lines/{id}/like"), Auth: httpapi.AuthBearer, Actions: likeActions, Handler: h.unlike},
		{Method: http.MethodPost, Path: httpapi.V1("/lines/{id}/replies"), Auth: httpapi.AuthBearer, Actions: postActions, Handler: h.createReply},
		{Method: http.MethodGet, Path: httpapi.V1("/lines/{id}/replies"), Auth: httpapi.AuthBearer, Actions: feedActions, Handler: h.listReplies},
		{Method: http.MethodDelete, Path: httpapi.V1("/lines/{lineId}/replies/{replyId}"), Auth: httpapi.AuthBearer, Handler: h.deleteReply},
		{Method: http.MethodGet, Path: httpapi.V1("/books/{id}/lines"), Auth: httpapi.AuthOptional, Actions: feedActions, Handler: h.listByBook},
		// The spec marks this list None; it is Optional so that a
		// signed-in caller sees isLiked, as on every line they can see.
		{Method: http.MethodGet, Path: httpapi.V1("/users/{username}/lines"), Auth: httpapi.AuthOptional, Actions: feedActions, Handler: h.listByUser},
	}}
}
