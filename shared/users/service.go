package users

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/bookplatform/backend/shared/auth"
	"github.com/bookplatform/backend/shared/images"
	"github.com/bookplatform/backend/shared/ratelimit"
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
	// GetUserEventually and GetUserByUsernameEventually read an account
	// eventually consistent, at half the read units, for the public
	// profile (Service.Profile). Errors: ErrNotFound.
	GetUserEventually(ctx context.Context, id string) (*User, error)
	GetUserByUsernameEventually(ctx context.Context, username string) (*User, error)
	// UpdateUser writes the changed profile of u; when the username
	// changes it claims the new one and frees prev's in the same
	// transaction. When prev was a guest it also claims the email.
	// Errors: ErrUsernameTaken, ErrEmailTaken, ErrChanged.
	UpdateUser(ctx context.Context, prev, u *User) error
	// SetOperator grants (on) or revokes the operator role of the
	// account read as prev; SetSuspension suspends it (at non-nil, with
	// reason) or restores it (at nil), setting its SessionsValidAfter to
	// SessionCutoff(now). Each is one transaction, so the back office's
	// audit entry rides it, with the count of working operators (the
	// role, not suspended), which never goes below one, and conditional
	// on prev's role and suspension state. Errors: ErrChanged (the state
	// moved or the account is gone), ErrLastOperator (a revoke),
	// ErrLastOperatorSuspended (a suspension).
	SetOperator(ctx context.Context, prev *User, on bool, now time.Time) error
	SetSuspension(ctx context.Context, prev *User, at *time.Time, reason string, now time.Time) error
}

// SessionStorer keeps refresh-token sessions (families).
type SessionStorer interface {
	// CreateSession stores a new session with its first refresh token.
	CreateSession(ctx context.Context, s Session, tokenHash string) error
	// GetRefreshToken reads a refresh token by hash (strongly consistent).
	// Errors: ErrRefreshInvalid for an unknown one.
	GetRefreshToken(ctx context.Context, hash string) (RefreshToken, error)
	// RotateRefreshToken marks old used (keeping the time of its first
	// use) and stores newHash in its session, extending the session, if
	// old is unused or was first used after reusableSince; a rotation
	// that fails leaves old as it was. Errors: ErrTokenReused when old was used before
	// reusableSince (also meanwhile), ErrSessionEnded when the session is
	// revoked or expired.
	RotateRefreshToken(ctx context.Context, old RefreshToken, newHash string, now, reusableSince time.Time, ttl time.Duration) error
	// RevokeSession ends a session of the user; revoking twice is fine.
	RevokeSession(ctx context.Context, userID, sessionID string) error
	// RevokeAllSessions revokes every session of the user but one; those
	// long expired at now (an hour or more) may be left as they are.
	RevokeAllSessions(ctx context.Context, userID, exceptSessionID string, now time.Time) error
}

// RefreshToken is a stored refresh token (only its hash is stored).
type RefreshToken struct {
	Hash      string
	UserID    string
	SessionID string
	Used      bool
	// UsedAt is when the token was first rotated (zero while unused).
	UsedAt    time.Time
	ExpiresAt time.Time
}

// Attempts counts the attempts with a password of an account, so that a
// password cannot be guessed faster than Limit tries per Window whatever
// the number of addresses trying.
type Attempts interface {
	// Take counts one attempt at key in the window holding now if fewer
	// than limit were counted there, atomically, and returns the
	// window's count with it (1 for the window's first); n is 0 when the
	// limit is reached, until the window ends.
	Take(ctx context.Context, key string, now time.Time, window time.Duration, limit int) (n int, until time.Time, err error)
	// Clear forgets the attempts at key in the window holding now (a
	// right password).
	Clear(ctx context.Context, key string, now time.Time, window time.Duration) error
	// Refund takes back one attempt at key in the window holding now (a
	// right password's own, where forgetting them all would forgive a
	// guesser's too); none left is not an error.
	Refund(ctx context.Context, key string, now time.Time, window time.Duration) error
	// TakeLogin counts one sign-in at k.Account from k.Source in the
	// window holding now, atomically each, as Take at the source's count
	// against limit and then, when that passes, at the account's against
	// accountLimit (none when zero or less) would: c.Source is the
	// source's count with this attempt (0 when its limit is reached),
	// c.Account the account's (0 when its limit is reached or the
	// source's refused it).
	TakeLogin(ctx context.Context, k LoginKeys, now time.Time, window time.Duration, limit, accountLimit int) (c LoginCount, until time.Time, err error)
	// LoginSucceeded forgets the source's attempts after a right password
	// and, when the account's count took this one (counted), gives it
	// back. c is what TakeLogin returned (zero when it failed).
	LoginSucceeded(ctx context.Context, k LoginKeys, c LoginCount, counted bool, now time.Time, window time.Duration) error
}

// LoginKeys name a sign-in's counts (login_attempts.go): the account's
// key, the source's name within it, and the key the source is counted
// at apart from it (past the account's limit).
type LoginKeys struct {
	Account, Source, Apart string
}

// LoginCount is what TakeLogin counted: see Attempts.
type LoginCount struct {
	Source, Account int
	// Apart: the source's count is its own item, not the account's.
	Apart bool
}

// AttemptPolicy is how many attempts with a password an account gets per
// window: a sign-in Limit from each source address and AccountLimit from
// all of them together (login_attempts.go), a password change Limit.
// Zero Limit turns the checks off, zero AccountLimit the account-wide one.
type AttemptPolicy struct {
	Limit        int
	AccountLimit int
	Window       time.Duration
}

// Session is one sign-in (one device): a family of refresh tokens.
type Session struct {
	ID        string
	UserID    string
	CreatedAt time.Time
	ExpiresAt time.Time
}

// Deps are the service's collaborators.
type Deps struct {
	Store    Storer
	Sessions SessionStorer
	Attempts Attempts
	Tokens   *auth.Tokens
	// Images stores avatars; nil in a service that sets none (WithImages).
	Images *images.Service
	// RefreshTTL is a refresh token's life; RefreshReuse how long after
	// its first use it may be presented again without ending its session.
	RefreshTTL    time.Duration
	RefreshReuse  time.Duration
	BcryptCost    int
	PasswordTries AttemptPolicy
	Now           func() time.Time
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

// WithImages returns the service with img as its avatars' storage: the
// users group's (and the local run's), which hold the media bucket's
// client; the service in api.Deps has none, so a function that stores no
// avatar (auth) does not link S3.
func (s *Service) WithImages(img *images.Service) *Service {
	d := s.d
	d.Images = img
	return &Service{d: d}
}

// errNoImages is an avatar call on a service built without WithImages: a
// wiring mistake, answered as an internal error rather than a panic.
var errNoImages = errors.New("users: the service has no image storage (users.Service.WithImages)")

// images is the avatars' storage. Errors: errNoImages.
func (s *Service) images() (*images.Service, error) {
	if s.d.Images == nil {
		return nil, errNoImages
	}
	return s.d.Images, nil
}

// checkPassword compares password with u's hash; a nil user (unknown
// email) spends the same time and fails.
func checkPassword(u *User, password string) bool {
	if u == nil {
		return auth.CheckNoUser(password)
	}
	return auth.CheckPassword(u.PasswordHash, password)
}

// takeAttempt counts an attempt with a password at key (for a sign-in
// the account's email, with or without its source address, counted
// whether or not an account has it, so the answer tells nothing; its id
// for a password change) against limit. Errors: a 429 with Retry-After
// once limit is reached, saying what (of) is limited. A counter that
// fails lets the attempt through, as the rate limits do: the password
// check still stands.
func (s *Service) takeAttempt(ctx context.Context, key string, limit int, of string, now time.Time) error {
	_, err := s.countAttempt(ctx, key, limit, of, now)
	return err
}

// countAttempt is takeAttempt that also returns the window's count with
// this attempt: 1 for the window's first, 0 when the attempt was not
// counted (no limit, a counter that failed, or the 429).
func (s *Service) countAttempt(ctx context.Context, key string, limit int, of string, now time.Time) (int, error) {
	p := s.d.PasswordTries
	if p.Limit <= 0 || limit <= 0 || s.d.Attempts == nil {
		return 0, nil
	}
	n, until, err := s.d.Attempts.Take(ctx, key, now, p.Window, limit)
	if err != nil {
		return 0, nil
	}
	if n > 0 {
		return n, nil
	}
	return 0, attemptsExceeded(limit, until, now, of)
}

// attemptsExceeded is the 429 of an attempt with a password past limit,
// until the window ends, saying what (of) is limited.
func attemptsExceeded(limit int, until, now time.Time, of string) error {
	retry := until.Sub(now)
	return ratelimit.Exceeded(ratelimit.PasswordAction, int64(limit), retry,
		fmt.Sprintf("Too many attempts with a password for %s; retry in %s", of, retry.Round(time.Second)))
}

// clearAttempts forgets key's attempts after a right password.
func (s *Service) clearAttempts(ctx context.Context, key string, now time.Time) error {
	if s.d.PasswordTries.Limit <= 0 || s.d.Attempts == nil {
		return nil
	}
	return s.d.Attempts.Clear(ctx, key, now, s.d.PasswordTries.Window)
}

// passwordAttempts is the key of an account's password-change attempts;
// the sign-in keys are in login_attempts.go. Each kind of key has a
// prefix of its own, so no key of one kind is a key of another.
func passwordAttempts(userID string) string { return "password:" + userID }
