package users

import (
	"context"
	"strings"

	"github.com/bookplatform/backend/shared/apperr"
	"github.com/bookplatform/backend/shared/auth"
	"github.com/bookplatform/backend/shared/ids"
	"github.com/bookplatform/backend/shared/images"
	"github.com/bookplatform/backend/shared/text"
	"golang.org/x/sync/errgroup"
)

// Get returns a user by id. Errors: NotFound.
func (s *Service) Get(ctx context.Context, id string) (*User, error) {
	id, ok := ids.Parse(id)
	if !ok {
		return nil, ErrNotFound
	}
	return s.d.Store.GetUser(ctx, id)
}

// Profile and ProfileByUsername read a public profile (GET
// /v1/users/{userId}, /v1/users/username/{username}; a username
// case-insensitively) as Get does, but eventually consistent, like the
// other public pages: a change to a profile, its counts or its username
// shows there within about a second. The account's owner reads their own with GET
// /v1/users/me, strongly consistent. Errors: NotFound.
func (s *Service) Profile(ctx context.Context, id string) (*User, error) {
	id, ok := ids.Parse(id)
	if !ok {
		return nil, ErrNotFound
	}
	return s.d.Store.GetUserEventually(ctx, id)
}

// ProfileByUsername: see Profile.
func (s *Service) ProfileByUsername(ctx context.Context, username string) (*User, error) {
	if username == "" || len(username) > 64 {
		return nil, ErrNotFound
	}
	return s.d.Store.GetUserByUsernameEventually(ctx, username)
}

// UpdateUser is a partial update: nil fields are left as they are.
type UpdateUser struct {
	DisplayName *string
	Bio         *string
	Username    *string
}

// Update changes the caller's display name, bio or username.
// Renaming frees the old username. Guests keep their generated username
// until they migrate. Errors: ValidationError, Conflict (username taken).
func (s *Service) Update(ctx context.Context, caller *User, p UpdateUser) (*User, error) {
	u := *caller
	var f apperr.Fields
	if p.DisplayName != nil {
		u.DisplayName = strings.TrimSpace(*p.DisplayName)
		f.Add("displayName", ValidateDisplayName(u.DisplayName))
	}
	if p.Bio != nil {
		if u.Bio = strings.TrimSpace(*p.Bio); text.Blank(u.Bio) {
			u.Bio = "" // nothing visible: no bio
		}
		f.Add("bio", ValidateBio(u.Bio))
	}
	if p.Username != nil {
		u.Username = strings.TrimSpace(*p.Username)
		switch {
		case caller.IsGuest && u.Username != caller.Username:
			f.Add("username", "guests cannot choose a username; sign up with POST /v1/auth/migrate-guest")
		case u.Username != caller.Username:
			f.Add("username", ValidateUsername(u.Username))
		}
	}
	if err := f.Err(); err != nil {
		return nil, err
	}
	if u.DisplayName == caller.DisplayName && u.Bio == caller.Bio && u.Username == caller.Username {
		return caller, nil
	}
	u.UpdatedAt = s.d.Now().UTC()
	if err := s.d.Store.UpdateUser(ctx, caller, &u); err != nil {
		return nil, err
	}
	return &u, nil
}

// ChangePassword replaces the caller's password after checking the
// current one, and signs out every other session. Errors: ValidationError,
// Unauthorized (wrong current password).
func (s *Service) ChangePassword(ctx context.Context, caller *User, sessionID, current, next string) error {
	var f apperr.Fields
	if current == "" {
		f.Add("currentPassword", "is required")
	}
	f.Add("newPassword", ValidatePassword(next))
	if caller.IsGuest {
		return apperr.Validation("Guest accounts have no password; sign up with POST /v1/auth/migrate-guest", nil)
	}
	if err := f.Err(); err != nil {
		return err
	}
	now := s.d.Now()
	if err := s.takeAttempt(ctx, passwordAttempts(caller.ID), s.d.PasswordTries.Limit, "this account", now); err != nil {
		return err
	}
	if !checkPassword(caller, current) {
		return ErrWrongPassword
	}
	// The right password forgets the attempts beside the new hash's
	// work and write.
	var g errgroup.Group
	g.Go(func() error { return s.clearAttempts(ctx, passwordAttempts(caller.ID), now) })
	g.Go(func() error {
		hash, err := auth.HashPassword(next, s.d.BcryptCost)
		if err != nil {
			return err
		}
		u := *caller
		u.PasswordHash, u.UpdatedAt = hash, s.d.Now().UTC()
		return s.d.Store.UpdateUser(ctx, caller, &u)
	})
	if err := g.Wait(); err != nil {
		return err
	}
	return s.d.Sessions.RevokeAllSessions(ctx, caller.ID, sessionID, s.d.Now())
}

// SetAvatar stores a new avatar image, read from a multipart upload, and
// points the caller's profile at it. Errors: ValidationError (not JPG,
// PNG or GIF, empty, over 5 MB).
func (s *Service) SetAvatar(ctx context.Context, caller *User, data []byte) (string, error) {
	img, err := s.images()
	if err != nil {
		return "", err
	}
	url, err := img.Put(ctx, images.Avatar, caller.ID, data)
	if err != nil {
		return "", err
	}
	return url, s.pointAvatar(ctx, caller, url)
}

// AvatarUpload returns a presigned upload slot for the caller's next
// avatar (images.Service.Presign).
func (s *Service) AvatarUpload(ctx context.Context, caller *User) (images.Upload, error) {
	img, err := s.images()
	if err != nil {
		return images.Upload{}, err
	}
	return img.Presign(ctx, images.Avatar, caller.ID)
}

// AttachAvatar makes the file uploaded at key the caller's avatar, after
// the checks SetAvatar makes. Errors: ValidationError, images.ErrNoUpload.
func (s *Service) AttachAvatar(ctx context.Context, caller *User, key string) (string, error) {
	img, err := s.images()
	if err != nil {
		return "", err
	}
	url, err := img.Attach(ctx, images.Avatar, caller.ID, key)
	if err != nil {
		return "", err
	}
	return url, s.pointAvatar(ctx, caller, url)
}

func (s *Service) pointAvatar(ctx context.Context, caller *User, url string) error {
	u := *caller
	u.AvatarURL, u.UpdatedAt = url, s.d.Now().UTC()
	return s.d.Store.UpdateUser(ctx, caller, &u)
}

// SetTier changes a user's tier (the back office's PUT
// /v1/admin/users/{userId}/tier, and demo data). Errors:
// ValidationError, NotFound.
func (s *Service) SetTier(ctx context.Context, userID string, tier Tier) (*User, error) {
	prev, err := s.d.Store.GetUser(ctx, userID)
	if err != nil {
		return nil, err
	}
	return s.SetTierOf(ctx, prev, tier)
}

// SetTierOf is SetTier of an account its caller has read already (the
// back office reads it for its audit entry's "from"): one write, no
// second read. The same tier still writes the account's updatedAt: the
// back office's audit entry rides that transaction. Errors:
// ValidationError, NotFound, ErrChanged.
func (s *Service) SetTierOf(ctx context.Context, prev *User, tier Tier) (*User, error) {
	if !tier.Valid() {
		return nil, apperr.Validation("unknown tier", map[string]string{"tier": "must be free, premium or bookstore"})
	}
	u := *prev
	u.Tier, u.UpdatedAt = tier, s.d.Now().UTC()
	if err := s.d.Store.UpdateUser(ctx, prev, &u); err != nil {
		return nil, err
	}
	return &u, nil
}
