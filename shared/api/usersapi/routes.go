// Package usersapi is the users endpoint group: the caller's own profile,
// password and avatar, and public profiles.
package usersapi

import (
	"net/http"

	"github.com/bookplatform/backend/shared/httpapi"
	"github.com/bookplatform/backend/shared/users"
)

// Handler serves the users group.
type Handler struct {
	Users *users.Service
}

// Group returns the users group's route table. A zero Handler lists the
// routes without serving them (CDK, API reference).
func (h *Handler) Group() httpapi.Group {
	return httpapi.Group{Name: "users", Routes: []httpapi.Route{
		{Method: http.MethodGet, Path: httpapi.V1("/users/me"), Auth: httpapi.AuthBearer, Handler: h.getMe},
		{Method: http.MethodPut, Path: httpapi.V1("/users/me"), Auth: httpapi.AuthBearer, Handler: h.updateMe},
		{Method: http.MethodPut, Path: httpapi.V1("/users/me/password"), Auth: httpapi.AuthBearer, Handler: h.changePassword},
		{Method: http.MethodPost, Path: httpapi.V1("/users/me/avatar"), Auth: httpapi.AuthBearer, Handler: h.uploadAvatar},
		{Method: http.MethodGet, Path: httpapi.V1("/users/{userId}"), Auth: httpapi.AuthNone, Handler: h.getByID},
		{Method: http.MethodGet, Path: httpapi.V1("/users/username/{username}"), Auth: httpapi.AuthNone, Handler: h.getByUsername},
	}}
}
