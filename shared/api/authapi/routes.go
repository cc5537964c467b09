// Package authapi is the auth endpoint group: guest accounts, sign-up,
// login, token refresh, guest migration and logout.
package authapi

import (
	"net/http"

	"github.com/bookplatform/backend/shared/httpapi"
	"github.com/bookplatform/backend/shared/users"
)

// Handler serves the auth group.
type Handler struct {
	Users *users.Service
}

// Group returns the auth group's route table. A zero Handler lists the
// routes without serving them (CDK, API reference).
func (h *Handler) Group() httpapi.Group {
	return httpapi.Group{Name: "auth", Routes: []httpapi.Route{
		{Method: http.MethodPost, Path: httpapi.V1("/auth/guest"), Auth: httpapi.AuthNone, Handler: h.guest},
		{Method: http.MethodPost, Path: httpapi.V1("/auth/signup"), Auth: httpapi.AuthNone, Handler: h.signup},
		{Method: http.MethodPost, Path: httpapi.V1("/auth/login"), Auth: httpapi.AuthNone, Handler: h.login},
		{Method: http.MethodPost, Path: httpapi.V1("/auth/refresh"), Auth: httpapi.AuthNone, Handler: h.refresh},
		{Method: http.MethodPost, Path: httpapi.V1("/auth/migrate-guest"), Auth: httpapi.AuthBearer, Handler: h.migrateGuest},
		{Method: http.MethodPost, Path: httpapi.V1("/auth/logout"), Auth: httpapi.AuthBearer, Handler: h.logout},
	}}
}
