// Package authapi is the auth endpoint group: guest accounts, sign-up,
// login, token refresh, guest migration and logout.
package authapi

import (
	"net/http"

	"github.com/bookplatform/backend/shared/api"
	"github.com/bookplatform/backend/shared/httpapi"
	"github.com/bookplatform/backend/shared/users"
)

// handler serves the auth group.
type handler struct {
	users *users.Service
}

// Group is the auth group. It writes accounts, their claims, sessions and
// refresh tokens, and reads sessions to revoke them. Its transactions (an
// account with its claims, a converted guest's claims, a rotated refresh
// token) are granted by their parts: PutItem, UpdateItem, DeleteItem.
func Group(d api.Deps) api.Group {
	h := &handler{users: d.Users}
	return api.Group{
		Name:  "auth",
		Table: []string{"dynamodb:PutItem", "dynamodb:DeleteItem", "dynamodb:Query", "dynamodb:UpdateItem"},
		Routes: []httpapi.Route{
			{Method: http.MethodPost, Path: httpapi.V1("/auth/guest"), Auth: httpapi.AuthNone, Idempotent: true, Handler: h.guest,
				Doc: httpapi.Doc{Summary: "Create a guest account", Body: guestRequest{}, OptionalBody: true, Response: tokenResponse{}, Status: http.StatusCreated, Errors: []int{400}}},
			{Method: http.MethodPost, Path: httpapi.V1("/auth/signup"), Auth: httpapi.AuthNone, Idempotent: true, Handler: h.signup,
				Doc: httpapi.Doc{Summary: "Sign up with email and password", Body: signupRequest{}, Response: tokenResponse{}, Status: http.StatusCreated, Errors: []int{400, 409},
					Why: map[int]string{409: "the email is already registered, or the chosen username is taken."}}},
			{Method: http.MethodPost, Path: httpapi.V1("/auth/login"), Auth: httpapi.AuthNone, Handler: h.login,
				Doc: httpapi.Doc{Summary: "Sign in with email and password", Body: loginRequest{}, Response: tokenResponse{}, Errors: []int{400, 401, 403},
					Why: map[int]string{403: "the account is suspended (told only with the right password)."}}},
			{Method: http.MethodPost, Path: httpapi.V1("/auth/refresh"), Auth: httpapi.AuthNone, Handler: h.refresh,
				Doc: httpapi.Doc{Summary: "Exchange a refresh token for a new pair", Body: refreshRequest{}, Response: tokenResponse{}, Errors: []int{400, 401, 403},
					Why: map[int]string{403: "the account is suspended."}}},
			{Method: http.MethodPost, Path: httpapi.V1("/auth/migrate-guest"), Auth: httpapi.AuthBearer, Handler: h.migrateGuest,
				Doc: httpapi.Doc{Summary: "Turn the calling guest into a full account", Body: signupRequest{}, Response: tokenResponse{}, Errors: []int{400, 409},
					Why: map[int]string{409: "the email is already registered, the chosen username is taken, or the account changed meanwhile (retry)."}}},
			{Method: http.MethodPost, Path: httpapi.V1("/auth/logout"), Auth: httpapi.AuthBearer, Handler: h.logout,
				Doc: httpapi.Doc{Summary: "End this session (and a refresh token's)", Body: logoutRequest{}, OptionalBody: true, Response: httpapi.Success{}}},
		},
	}
}
