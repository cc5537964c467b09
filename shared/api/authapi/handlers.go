package authapi

import (
	"net/http"

	"github.com/bookplatform/backend/shared/api/userjson"
	"github.com/bookplatform/backend/shared/apperr"
	"github.com/bookplatform/backend/shared/httpapi"
	"github.com/bookplatform/backend/shared/users"
)

// tokenResponse carries both stated forms of the token fields
// (docs/decisions.md, "Two token forms"). The alias tags document Form
// B's spellings as aliases, not as second properties (shared/openapi).
type tokenResponse struct {
	Token         string        `json:"token"`
	AccessToken   string        `json:"access_token" alias:"token"`
	RefreshToken  string        `json:"refreshToken"`
	RefreshTokenB string        `json:"refresh_token" alias:"refreshToken"`
	TokenType     string        `json:"tokenType"`
	ExpiresIn     int64         `json:"expiresIn"`
	User          *userjson.Own `json:"user,omitempty"`
}

func newTokenResponse(t users.Tokens, u *users.User) tokenResponse {
	r := tokenResponse{
		Token: t.AccessToken, AccessToken: t.AccessToken,
		RefreshToken: t.RefreshToken, RefreshTokenB: t.RefreshToken,
		TokenType: "Bearer", ExpiresIn: t.ExpiresIn,
	}
	if u != nil {
		own := userjson.NewOwn(u)
		r.User = &own
	}
	return r
}

// signupRequest accepts both forms: displayName or display_name; username
// is optional (Form B has none).
type signupRequest struct {
	Username     string `json:"username,omitempty"`
	Email        string `json:"email"`
	Password     string `json:"password"`
	DisplayName  string `json:"displayName,omitempty"`
	DisplayNameB string `json:"display_name,omitempty" alias:"displayName"`
}

func (s signupRequest) input() users.SignupInput {
	name := s.DisplayName
	if name == "" {
		name = s.DisplayNameB
	}
	return users.SignupInput{Username: s.Username, Email: s.Email, Password: s.Password, DisplayName: name}
}

// refreshRequest accepts refreshToken or refresh_token. refreshToken has
// no omitempty (the type is only decoded) so that the reference marks it
// required: a body without either is 400.
type refreshRequest struct {
	RefreshToken  string `json:"refreshToken"`
	RefreshTokenB string `json:"refresh_token,omitempty" alias:"refreshToken"`
}

func (r refreshRequest) token() string { return either(r.RefreshToken, r.RefreshTokenB) }

// logoutRequest is the optional body of POST /v1/auth/logout: {} or a
// refresh token (either spelling) whose session ends too.
type logoutRequest struct {
	RefreshToken  string `json:"refreshToken,omitempty"`
	RefreshTokenB string `json:"refresh_token,omitempty" alias:"refreshToken"`
}

func (r logoutRequest) token() string { return either(r.RefreshToken, r.RefreshTokenB) }

// either is a, or b when a is empty.
func either(a, b string) string {
	if a != "" {
		return a
	}
	return b
}

// guestRequest is the body of POST /v1/auth/guest: {} or Form B's
// {device_id}.
type guestRequest struct {
	DeviceID string `json:"device_id,omitempty"`
}

// loginRequest is the body of POST /v1/auth/login.
type loginRequest struct {
	Email    string `json:"email"`
	Password string `json:"password"`
}

// guest serves POST /v1/auth/guest. Body {} or {device_id}.
func (h *handler) guest(w http.ResponseWriter, r *http.Request) error {
	var req guestRequest
	if err := httpapi.Decode(w, r, &req); err != nil {
		return err
	}
	if len(req.DeviceID) > 200 {
		return apperr.Validation("Invalid request", map[string]string{"device_id": "must be at most 200 characters"})
	}
	res, err := h.users.CreateGuest(r.Context())
	if err != nil {
		return err
	}
	return httpapi.JSON(w, http.StatusCreated, newTokenResponse(res.Tokens, res.User))
}

// signup serves POST /v1/auth/signup.
func (h *handler) signup(w http.ResponseWriter, r *http.Request) error {
	var req signupRequest
	if err := httpapi.Decode(w, r, &req); err != nil {
		return err
	}
	res, err := h.users.Signup(r.Context(), req.input())
	if err != nil {
		return err
	}
	return httpapi.JSON(w, http.StatusCreated, newTokenResponse(res.Tokens, res.User))
}

// login serves POST /v1/auth/login. The attempts are counted per
// account and per the client's address as the router knows it.
func (h *handler) login(w http.ResponseWriter, r *http.Request) error {
	var req loginRequest
	if err := httpapi.Decode(w, r, &req); err != nil {
		return err
	}
	res, err := h.users.Login(r.Context(), req.Email, req.Password, httpapi.ClientAddress(r))
	if err != nil {
		return err
	}
	return httpapi.JSON(w, http.StatusOK, newTokenResponse(res.Tokens, res.User))
}

// refresh serves POST /v1/auth/refresh.
func (h *handler) refresh(w http.ResponseWriter, r *http.Request) error {
	var req refreshRequest
	if err := httpapi.Decode(w, r, &req); err != nil {
		return err
	}
	t, err := h.users.Refresh(r.Context(), req.token())
	if err != nil {
		return err
	}
	return httpapi.JSON(w, http.StatusOK, newTokenResponse(*t, nil))
}

// migrateGuest serves POST /v1/auth/migrate-guest.
func (h *handler) migrateGuest(w http.ResponseWriter, r *http.Request) error {
	var req signupRequest
	if err := httpapi.Decode(w, r, &req); err != nil {
		return err
	}
	res, err := h.users.MigrateGuest(r.Context(), httpapi.CallerOf(r).User(), req.input())
	if err != nil {
		return err
	}
	return httpapi.JSON(w, http.StatusOK, newTokenResponse(res.Tokens, res.User))
}

// logout serves POST /v1/auth/logout. Body {} ends this session; a
// refresh_token in the body (Form B) ends that token's session too.
func (h *handler) logout(w http.ResponseWriter, r *http.Request) error {
	var req logoutRequest
	if err := httpapi.Decode(w, r, &req); err != nil {
		return err
	}
	c := httpapi.CallerOf(r)
	if err := h.users.Logout(r.Context(), c.ID, c.SessionID, req.token()); err != nil {
		return err
	}
	return httpapi.JSON(w, http.StatusOK, httpapi.Success{Success: true, Message: "Logged out"})
}
