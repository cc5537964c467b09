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
func (h *handler) getMe(w http.ResponseWriter, r *http.Request) error {
	return httpapi.JSON(w, http.StatusOK, userjson.NewOwn(httpapi.CallerOf(r).User()))
}

// updateMeRequest is the body of PUT /v1/users/me: every field optional,
// display_name accepted for Form B's name.
type updateMeRequest struct {
	DisplayName  *string `json:"displayName,omitempty"`
	DisplayNameB *string `json:"display_name,omitempty"`
	Bio          *string `json:"bio,omitempty"`
	Username     *string `json:"username,omitempty"`
}

// passwordRequest is the body of PUT /v1/users/me/password.
type passwordRequest struct {
	CurrentPassword string `json:"currentPassword"`
	NewPassword     string `json:"newPassword"`
}

// avatarResponse is the answer of an avatar upload.
type avatarResponse struct {
	AvatarURL string `json:"avatarUrl"`
}

// updateMe serves PUT /v1/users/me: { displayName?, bio?, username? }.
func (h *handler) updateMe(w http.ResponseWriter, r *http.Request) error {
	var req updateMeRequest
	if err := httpapi.Decode(w, r, &req); err != nil {
		return err
	}
	if req.DisplayName == nil {
		req.DisplayName = req.DisplayNameB
	}
	u, err := h.users.UpdateProfile(r.Context(), httpapi.CallerOf(r).User(), users.ProfileUpdate{
		DisplayName: req.DisplayName, Bio: req.Bio, Username: req.Username,
	})
	if err != nil {
		return err
	}
	return httpapi.JSON(w, http.StatusOK, userjson.NewOwn(u))
}

// changePassword serves PUT /v1/users/me/password.
func (h *handler) changePassword(w http.ResponseWriter, r *http.Request) error {
	var req passwordRequest
	if err := httpapi.Decode(w, r, &req); err != nil {
		return err
	}
	c := httpapi.CallerOf(r)
	if err := h.users.ChangePassword(r.Context(), c.User(), c.SessionID, req.CurrentPassword, req.NewPassword); err != nil {
		return err
	}
	return httpapi.JSON(w, http.StatusOK, httpapi.Success{Success: true, Message: "Password changed; other sessions were signed out"})
}

// multipartSlack is room for the multipart framing around a 5 MB file.
const multipartSlack = 64 << 10

var errAvatarTooLarge = apperr.Validation("avatar must be at most 5 MB", map[string]string{"avatar": "must be at most 5 MB"})

// uploadAvatar serves POST /v1/users/me/avatar (multipart field avatar).
func (h *handler) uploadAvatar(w http.ResponseWriter, r *http.Request) error {
	data, err := readAvatar(w, r)
	if err != nil {
		return err
	}
	url, err := h.users.SetAvatar(r.Context(), httpapi.CallerOf(r).User(), data)
	if err != nil {
		return err
	}
	return httpapi.JSON(w, http.StatusOK, avatarResponse{AvatarURL: url})
}

// readAvatar reads the file of field avatar from a multipart/form-data
// body. The body is streamed: an oversized upload is refused after at
// most 5 MB + framing has been read, never buffered whole. Errors:
// ValidationError (not multipart, malformed, no avatar field, too large).
func readAvatar(w http.ResponseWriter, r *http.Request) ([]byte, error) {
	if r.ContentLength > users.MaxAvatarBytes+multipartSlack {
		return nil, errAvatarTooLarge
	}
	if mt, _, err := mime.ParseMediaType(r.Header.Get("Content-Type")); err != nil || mt != "multipart/form-data" {
		return nil, apperr.Validation("Upload must be multipart/form-data with the image in field avatar", nil)
	}
	r.Body = http.MaxBytesReader(w, r.Body, users.MaxAvatarBytes+multipartSlack)
	mr, err := r.MultipartReader()
	if err != nil {
		return nil, apperr.Validation("Upload must be multipart/form-data with the image in field avatar", nil)
	}
	for {
		part, err := mr.NextPart()
		if errors.Is(err, io.EOF) {
			return nil, apperr.Validation("Missing file field avatar", map[string]string{"avatar": "is required"})
		}
		if err != nil {
			return nil, uploadReadError(err)
		}
		if part.FormName() != "avatar" {
			continue // the reader skips the rest of this part
		}
		data, err := io.ReadAll(io.LimitReader(part, users.MaxAvatarBytes+1))
		if err != nil {
			return nil, uploadReadError(err)
		}
		if len(data) > users.MaxAvatarBytes {
			return nil, errAvatarTooLarge
		}
		return data, nil
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
func (h *handler) getByID(w http.ResponseWriter, r *http.Request) error {
	u, err := h.users.Get(r.Context(), r.PathValue("userId"))
	if err != nil {
		return err
	}
	return httpapi.JSON(w, http.StatusOK, userjson.NewPublic(u, false))
}

// getByUsername serves GET /v1/users/username/{username}: the public
// profile with follower and following counts.
func (h *handler) getByUsername(w http.ResponseWriter, r *http.Request) error {
	u, err := h.users.GetByUsername(r.Context(), r.PathValue("username"))
	if err != nil {
		return err
	}
	return httpapi.JSON(w, http.StatusOK, userjson.NewPublic(u, true))
}
