package usersapi

import (
	"errors"
	"io"
	"mime"
	"net/http"

	"github.com/bookplatform/backend/shared/api/userjson"
	"github.com/bookplatform/backend/shared/apperr"
	"github.com/bookplatform/backend/shared/httpapi"
	"github.com/bookplatform/backend/shared/users"
)

// getMe serves GET /v1/users/me. The router already read the caller, so
// this costs no further database call.
func (h *Handler) getMe(w http.ResponseWriter, r *http.Request) error {
	return httpapi.JSON(w, http.StatusOK, userjson.NewOwn(httpapi.Caller(r)))
}

// updateMe serves PUT /v1/users/me: { displayName?, bio?, username? }.
func (h *Handler) updateMe(w http.ResponseWriter, r *http.Request) error {
	var req struct {
		DisplayName  *string `json:"displayName"`
		DisplayNameB *string `json:"display_name"`
		Bio          *string `json:"bio"`
		Username     *string `json:"username"`
	}
	if err := httpapi.Decode(w, r, &req); err != nil {
		return err
	}
	if req.DisplayName == nil {
		req.DisplayName = req.DisplayNameB
	}
	u, err := h.Users.UpdateProfile(r.Context(), httpapi.Caller(r), users.ProfileUpdate{
		DisplayName: req.DisplayName, Bio: req.Bio, Username: req.Username,
	})
	if err != nil {
		return err
	}
	return httpapi.JSON(w, http.StatusOK, userjson.NewOwn(u))
}

// changePassword serves PUT /v1/users/me/password.
func (h *Handler) changePassword(w http.ResponseWriter, r *http.Request) error {
	var req struct {
		CurrentPassword string `json:"currentPassword"`
		NewPassword     string `json:"newPassword"`
	}
	if err := httpapi.Decode(w, r, &req); err != nil {
		return err
	}
	if err := h.Users.ChangePassword(r.Context(), httpapi.Caller(r), httpapi.SessionID(r), req.CurrentPassword, req.NewPassword); err != nil {
		return err
	}
	return httpapi.JSON(w, http.StatusOK, httpapi.Success{Success: true, Message: "Password changed; other sessions were signed out"})
}

// multipartSlack is room for the multipart framing around a 5 MB file.
const multipartSlack = 64 << 10

var errAvatarTooLarge = apperr.Validation("avatar must be at most 5 MB", map[string]string{"avatar": "must be at most 5 MB"})

// uploadAvatar serves POST /v1/users/me/avatar (multipart field avatar).
// The body is streamed: an oversized upload is refused after at most
// 5 MB + framing has been read, never buffered whole.
func (h *Handler) uploadAvatar(w http.ResponseWriter, r *http.Request) error {
	if r.ContentLength > users.MaxAvatarBytes+multipartSlack {
		return errAvatarTooLarge
	}
	if mt, _, err := mime.ParseMediaType(r.Header.Get("Content-Type")); err != nil || mt != "multipart/form-data" {
		return apperr.Validation("Upload must be multipart/form-data with the image in field avatar", nil)
	}
	r.Body = http.MaxBytesReader(w, r.Body, users.MaxAvatarBytes+multipartSlack)
	mr, err := r.MultipartReader()
	if err != nil {
		return apperr.Validation("Upload must be multipart/form-data with the image in field avatar", nil)
	}
	for {
		part, err := mr.NextPart()
		if errors.Is(err, io.EOF) {
			return apperr.Validation("Missing file field avatar", map[string]string{"avatar": "is required"})
		}
		if err != nil {
			return uploadReadError(err)
		}
		if part.FormName() != "avatar" {
			continue // the reader skips the rest of this part
		}
		data, err := io.ReadAll(io.LimitReader(part, users.MaxAvatarBytes+1))
		if err != nil {
			return uploadReadError(err)
		}
		if len(data) > users.MaxAvatarBytes {
			return errAvatarTooLarge
		}
		url, err := h.Users.SetAvatar(r.Context(), httpapi.Caller(r), data)
		if err != nil {
			return err
		}
		return httpapi.JSON(w, http.StatusOK, map[string]string{"avatarUrl": url})
	}
}

func uploadReadError(err error) error {
	var mbe *http.MaxBytesError
	if errors.As(err, &mbe) {
		return errAvatarTooLarge
	}
	return apperr.Validation("Malformed multipart body", nil)
}

// getByID serves GET /v1/users/{userId}: the public profile.
func (h *Handler) getByID(w http.ResponseWriter, r *http.Request) error {
	u, err := h.Users.Get(r.Context(), r.PathValue("userId"))
	if err != nil {
		return err
	}
	return httpapi.JSON(w, http.StatusOK, userjson.NewPublic(u, false))
}

// getByUsername serves GET /v1/users/username/{username}: the public
// profile with follower and following counts.
func (h *Handler) getByUsername(w http.ResponseWriter, r *http.Request) error {
	u, err := h.Users.GetByUsername(r.Context(), r.PathValue("username"))
	if err != nil {
		return err
	}
	return httpapi.JSON(w, http.StatusOK, userjson.NewPublic(u, true))
}
