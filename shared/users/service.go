package users

import (
	"context"
	"time"

	"github.com/bookplatform/backend/shared/auth"
)

// Storer is the storage of accounts. Implementations return the errors
// named on each method wrapped with context, never (nil, nil).
type Storer interface {
	// CreateUser stores a new user and claims its email and username.
	// Errors: ErrEmailTaken, ErrUsernameTaken.
	CreateUser(ctx context.Context, u *User) error
	// GetUser, GetUserByEmail and GetUserByUsername read an account.
	// Errors: ErrNotFound.
	GetUser(ctx context.Context, id string) (*User, error)
	GetUserByEmail(ctx context.Context, email string) (*User, error)
	GetUserByUsername(ctx context.Context, username string) (*User, error)
	// UpdateUser writes the changed profile of u; when the username
	// changes it claims the new one and frees prev's in the same
	// transaction. When prev was a guest it also claims the email.
	// Errors: ErrUsernameTaken, ErrEmailTaken, ErrChanged.
	UpdateUser(ctx context.Context, prev, u *User) error
}

// SessionStorer keeps refresh-token sessions (families).
type SessionStorer interface {
	// CreateSession stores a new session with its first refresh token.
	CreateSession(ctx context.Context, s Session, tokenHash string) error
	// GetRefreshToken reads a refresh token by hash (strongly consistent).
	// Errors: ErrRefreshInvalid for an unknown one.
	GetRefreshToken(ctx context.Context, hash string) (RefreshToken, error)
	// RotateRefreshToken marks old used and stores newHash in its place,
	// extending the session, in one transaction. Errors: ErrTokenReused
	// when old was used meanwhile, ErrSessionEnded when the session is
	// revoked or expired.
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

// checkPassword compares password with u's hash; a nil user (unknown
// email) spends the same time and fails.
func checkPassword(u *User, password string) bool {
	if u == nil {
		return auth.CheckNoUser(password)
	}
	return auth.CheckPassword(u.PasswordHash, password)
}
