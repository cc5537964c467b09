package usersapi

import (
	"net/http"

	"github.com/bookplatform/backend/shared/api/imagejson"
	"github.com/bookplatform/backend/shared/api/userjson"
	"github.com/bookplatform/backend/shared/httpapi"
	"github.com/bookplatform/backend/shared/images"
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
	DisplayNameB *string `json:"display_name,omitempty" alias:"displayName"`
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
	u, err := h.users.Update(r.Context(), httpapi.CallerOf(r).User(), users.UpdateUser{
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

// uploadAvatar serves POST /v1/users/me/avatar (multipart field avatar).
func (h *handler) uploadAvatar(w http.ResponseWriter, r *http.Request) error {
	data, err := httpapi.ReadFile(w, r, images.Avatar.Field, images.MaxBytes, images.Avatar.ErrTooLarge())
	if err != nil {
		return err
	}
	url, err := h.users.SetAvatar(r.Context(), httpapi.CallerOf(r).User(), data)
	if err != nil {
		return err
	}
	return httpapi.JSON(w, http.StatusOK, avatarResponse{AvatarURL: url})
}

// avatarUploadURL serves POST /v1/users/me/avatar/upload-url: a
// presigned slot for a file too large for API Gateway's payload limit.
func (h *handler) avatarUploadURL(w http.ResponseWriter, r *http.Request) error {
	u, err := h.users.AvatarUpload(r.Context(), httpapi.CallerOf(r).User())
	if err != nil {
		return err
	}
	return httpapi.JSON(w, http.StatusOK, imagejson.NewUpload(u, images.Avatar))
}

// attachAvatar serves PUT /v1/users/me/avatar: { uploadKey } of a slot
// whose file was uploaded becomes the avatar.
func (h *handler) attachAvatar(w http.ResponseWriter, r *http.Request) error {
	var req imagejson.Attach
	if err := httpapi.Decode(w, r, &req); err != nil {
		return err
	}
	url, err := h.users.AttachAvatar(r.Context(), httpapi.CallerOf(r).User(), req.UploadKey)
	if err != nil {
		return err
	}
	return httpapi.JSON(w, http.StatusOK, avatarResponse{AvatarURL: url})
}

// getByID serves GET /v1/users/{userId}: the public profile.
func (h *handler) getByID(w http.ResponseWriter, r *http.Request) error {
	u, err := h.users.Profile(r.Context(), r.PathValue("userId"))
	if err != nil {
		return err
	}
	return httpapi.JSON(w, http.StatusOK, userjson.NewPublic(u, false))
}

// getByUsername serves GET /v1/users/username/{username}: the public
// profile with follower and following counts.
func (h *handler) getByUsername(w http.ResponseWriter, r *http.Request) error {
	u, err := h.users.ProfileByUsername(r.Context(), r.PathValue("username"))
	if err != nil {
		return err
	}
	return httpapi.JSON(w, http.StatusOK, userjson.NewPublic(u, true))
}
