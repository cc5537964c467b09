package users

import (
	"context"
	"errors"
	"time"

	"github.com/bookplatform/backend/shared/admission"
	"github.com/bookplatform/backend/shared/auth"
)

// Storer is the storage the user service needs. Implementations return
// apperr NotFound and Conflict errors, never (nil, nil).
type Storer interface {
	// CreateUser stores a new user and claims its email and username;
	// a taken one is an apperr Conflict naming it.
	CreateUser(ctx context.Context, u *User) error
	GetUser(ctx context.Context, id string) (*User, error)
	GetUserByEmail(ctx context.Context, email string) (*User, error)
	GetUserByUsername(ctx context.Context, username string) (*User, error)
	// UpdateUser writes the changed profile of u; when the username
	// changes it claims the new one and frees prev's in the same
	// transaction. When prev was a guest it also claims the email.
	UpdateUser(ctx context.Context, prev, u *User) error
}

// SessionStorer keeps refresh-token sessions (families).
type SessionStorer interface {
	// CreateSession stores a new session with its first refresh token.
	CreateSession(ctx context.Context, s Session, tokenHash string) error
	// GetRefreshToken reads a refresh token by hash (strongly consistent).
	// Errors: apperr Unauthorized for an unknown one.
	GetRefreshToken(ctx context.Context, hash string) (RefreshToken, error)
	// RotateRefreshToken marks old used and stores newHash in its place,
	// extending the session, in one transaction. Errors: ErrTokenReused
	// when old was used meanwhile, apperr Unauthorized when the session
	// is revoked or expired.
	RotateRefreshToken(ctx context.Context, old RefreshToken, newHash string, now time.Time, ttl time.Duration) error
	// RevokeSession ends a session of the user; revoking twice is fine.
	RevokeSession(ctx context.Context, userID, sessionID string) error
	// RevokeAllSessions revokes every session of the user but one.
	RevokeAllSessions(ctx context.Context, userID, exceptSessionID string) error
}

// RefreshToken is a stored refresh token (only its hash is stored).
type RefreshToken struct {
	Hash      string
	UserID    string
	SessionID string
	Used      bool
	ExpiresAt time.Time
}

// ErrTokenReused is a refresh token that another request rotated first.
var ErrTokenReused = errors.New("refresh token already used")

// Session is one sign-in (one device): a family of refresh tokens.
type Session struct {
	ID        string
	UserID    string
	CreatedAt time.Time
	ExpiresAt time.Time
}

// MediaStore stores uploaded images and returns their public URL.
type MediaStore interface {
	PutImage(ctx context.Context, key, contentType string, data []byte) (string, error)
}

// Deps are the service's collaborators.
type Deps struct {
	Store      Storer
	Sessions   SessionStorer
	Tokens     *auth.Tokens
	Media      MediaStore
	RefreshTTL time.Duration
	BcryptCost int
	Now        func() time.Time
}

// Service implements accounts, sessions and profiles.
type Service struct {
	d Deps
}

// NewService returns the user service.
func NewService(d Deps) *Service {
	if d.Now == nil {
		d.Now = time.Now
	}
	return &Service{d: d}
}

// Password work costs tens of milliseconds of CPU, so it waits for the
// request's admission (shared/admission): a request refused by the rate
// limiter must not get a bcrypt round for free.

func (s *Service) hashPassword(ctx context.Context, password string) (string, error) {
	if err := admission.Wait(ctx); err != nil {
		return "", err
	}
	return auth.HashPassword(password, s.d.BcryptCost)
}

// checkPassword compares password with hash; a nil user (unknown email)
// spends the same time and fails.
func (s *Service) checkPassword(ctx context.Context, u *User, password string) (bool, error) {
	if err := admission.Wait(ctx); err != nil {
		return false, err
	}
	if u == nil {
		return auth.CheckNoUser(password), nil
	}
	return auth.CheckPassword(u.PasswordHash, password), nil
}
