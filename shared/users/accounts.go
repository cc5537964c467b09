package users

import (
	"context"
	"crypto/rand"
	"errors"
	"fmt"
	"math/big"
	"strings"

	"github.com/bookplatform/backend/shared/apperr"
	"github.com/bookplatform/backend/shared/auth"
	"github.com/bookplatform/backend/shared/ids"
	"golang.org/x/sync/errgroup"
)

// Tokens is what a sign-in returns.
type Tokens struct {
	AccessToken  string
	RefreshToken string
	ExpiresIn    int64 // access token lifetime in seconds
}

// AuthResult is a signed-in user with fresh tokens.
type AuthResult struct {
	Tokens
	User *User
}

// SignupInput is a sign-up or guest-migration request. Username may be
// empty (the spec's Form B has none); one is then derived from the email.
type SignupInput struct {
	Username    string
	Email       string
	Password    string
	DisplayName string
}

// CreateGuest creates a guest account (named Guest, username guest_ and
// digits, tier free, no email) and signs it in.
func (s *Service) CreateGuest(ctx context.Context) (*AuthResult, error) {
	now := s.d.Now().UTC()
	for attempt := 0; ; attempt++ {
		u := &User{
			ID: ids.New(), Username: GuestPrefix + randomDigits(10), DisplayName: GuestDisplayName,
			Tier: TierFree, IsGuest: true, CreatedAt: now, UpdatedAt: now,
		}
		err := s.d.Store.CreateUser(ctx, u)
		if errors.Is(err, ErrUsernameTaken) && attempt < 4 {
			continue // a guest number collided: draw again
		}
		if err != nil {
			return nil, err
		}
		return s.signIn(ctx, u)
	}
}

// Signup creates a full account. Errors: ValidationError (fields),
// Conflict (email or username taken).
func (s *Service) Signup(ctx context.Context, in SignupInput) (*AuthResult, error) {
	in, hash, err := s.prepareSignup(ctx, in)
	if err != nil {
		return nil, err
	}
	now := s.d.Now().UTC()
	derive := in.Username == ""
	for attempt := 0; ; attempt++ {
		u := &User{
			ID: ids.New(), Username: in.Username, Email: in.Email, PasswordHash: hash,
			DisplayName: in.DisplayName, Tier: TierFree, CreatedAt: now, UpdatedAt: now,
		}
		if derive {
			u.Username = deriveUsername(in.Email)
		}
		if u.DisplayName == "" {
			u.DisplayName = u.Username
		}
		err := s.d.Store.CreateUser(ctx, u)
		if derive && errors.Is(err, ErrUsernameTaken) && attempt < 4 {
			continue
		}
		if err != nil {
			return nil, err
		}
		return s.signIn(ctx, u)
	}
}

// prepareSignup normalizes and validates a sign-up, reporting every bad
// field, and hashes its password.
func (s *Service) prepareSignup(ctx context.Context, in SignupInput) (SignupInput, string, error) {
	in.Username = strings.TrimSpace(in.Username)
	in.Email = NormalizeEmail(in.Email)
	in.DisplayName = strings.TrimSpace(in.DisplayName)
	var f apperr.Fields
	if in.Username != "" {
		f.Add("username", ValidateUsername(in.Username))
	}
	f.Add("email", ValidateEmail(in.Email))
	f.Add("password", ValidatePassword(in.Password))
	if in.DisplayName != "" {
		f.Add("displayName", ValidateDisplayName(in.DisplayName))
	}
	if err := f.Err(); err != nil {
		return in, "", err
	}
	hash, err := auth.HashPassword(in.Password, s.d.BcryptCost)
	return in, hash, err
}

// Login signs in with email and password from source, the client's
// address (httpapi.ClientAddress), which the attempts are counted by
// (login_attempts.go). A wrong email and a wrong password give the same
// 401, in the same time.
func (s *Service) Login(ctx context.Context, email, password, source string) (*AuthResult, error) {
	email = NormalizeEmail(email)
	var f apperr.Fields
	if email == "" {
		f.Add("email", "is required")
	}
	if password == "" {
		f.Add("password", "is required")
	}
	if err := f.Err(); err != nil {
		return nil, err
	}
	if len(email) > MaxEmailLen {
		// No account has it (sign-up refuses it), and it is no key
		// DynamoDB takes: the answer of an unknown email, in its time.
		checkPassword(nil, password)
		return nil, ErrBadCredentials
	}
	// The attempt is counted beside the account's read: a guesser meets
	// the limits before any password work.
	now := s.d.Now()
	var (
		u       *User
		userErr error
		take    loginTake
		g       errgroup.Group
	)
	g.Go(func() error { u, userErr = s.d.Store.GetUserByEmail(ctx, email); return nil })
	g.Go(func() (err error) { take, err = s.takeLoginAttempt(ctx, email, source, now); return err })
	if err := g.Wait(); err != nil {
		return nil, err
	}
	if errors.Is(userErr, ErrNotFound) {
		u, userErr = nil, nil
	}
	if userErr != nil {
		return nil, userErr
	}
	if !checkPassword(u, password) {
		if take.refused != nil {
			return nil, take.refused
		}
		return nil, ErrBadCredentials
	}
	if u.Suspended() {
		// Told only to whoever proved the password.
		return nil, ErrSuspended
	}
	var res *AuthResult
	g = errgroup.Group{}
	g.Go(func() (err error) { res, err = s.signIn(ctx, u); return err })
	g.Go(func() error { return s.loginSucceeded(ctx, email, source, take, now) })
	if err := g.Wait(); err != nil {
		return nil, err
	}
	return res, nil
}

// Refresh exchanges a refresh token for a new pair (rotation). Errors:
// ValidationError (missing), Unauthorized (unknown, expired, revoked or
// reused — reuse revokes the whole session).
func (s *Service) Refresh(ctx context.Context, refreshToken string) (*Tokens, error) {
	refreshToken = strings.TrimSpace(refreshToken)
	if refreshToken == "" {
		return nil, apperr.Validation("refreshToken is required", map[string]string{"refreshToken": "is required"})
	}
	next, err := auth.NewRefreshToken()
	if err != nil {
		return nil, err
	}
	now := s.d.Now()
	old, err := s.d.Sessions.GetRefreshToken(ctx, auth.HashRefreshToken(refreshToken))
	if err != nil {
		return nil, err
	}
	if !old.ExpiresAt.After(now) {
		return nil, ErrRefreshInvalid // TTL deletion lags expiry
	}
	// A token used a moment ago may be presented again (two tabs
	// refreshing at once): it gets a pair of its own. Later it is a
	// replay, and the session ends.
	reusableSince := now.Add(-s.d.RefreshReuse)
	if old.Used && old.UsedAt.Before(reusableSince) {
		return nil, s.revokeReused(ctx, old)
	}
	// The owner is known now: read the account beside the rotation.
	var (
		u      *User
		rotErr error
		g      errgroup.Group
	)
	g.Go(func() error {
		rotErr = s.d.Sessions.RotateRefreshToken(ctx, old, auth.HashRefreshToken(next), now, reusableSince, s.d.RefreshTTL)
		return nil
	})
	g.Go(func() (err error) { u, err = s.d.Store.GetUser(ctx, old.UserID); return err })
	userErr := g.Wait()
	if errors.Is(rotErr, ErrTokenReused) {
		return nil, s.revokeReused(ctx, old)
	}
	if rotErr != nil {
		return nil, rotErr
	}
	if errors.Is(userErr, ErrNotFound) {
		return nil, errCallerGone
	}
	if userErr != nil {
		return nil, userErr
	}
	if u.Suspended() {
		return nil, ErrSuspended
	}
	access, err := s.accessToken(u, old.SessionID)
	if err != nil {
		return nil, err
	}
	return &Tokens{AccessToken: access, RefreshToken: next, ExpiresIn: int64(s.d.Tokens.AccessTTL().Seconds())}, nil
}

// errCallerGone: a valid refresh token whose account no longer exists.
var errCallerGone = apperr.Unauthorized("User not found")

// revokeReused answers a refresh token presented after it was used (a
// replay, a stolen copy, or the loser of two uses at once): the whole
// session is revoked, so whoever holds its newest token must sign in again.
func (s *Service) revokeReused(ctx context.Context, tok RefreshToken) error {
	if err := s.d.Sessions.RevokeSession(ctx, tok.UserID, tok.SessionID); err != nil {
		return err
	}
	return apperr.Unauthorized("Refresh token already used; session revoked")
}

// MigrateGuest turns the calling guest into a full account with the same
// id, so everything the guest made stays theirs, and issues new tokens.
// The guest's earlier sessions are revoked. Errors: Unauthorized (caller
// is not a guest), ValidationError, Conflict.
func (s *Service) MigrateGuest(ctx context.Context, caller *User, in SignupInput) (*AuthResult, error) {
	if !caller.IsGuest {
		return nil, ErrNotGuest
	}
	in, hash, err := s.prepareSignup(ctx, in)
	if err != nil {
		return nil, err
	}
	derive := in.Username == ""
	for attempt := 0; ; attempt++ {
		u := *caller
		u.Username, u.Email, u.PasswordHash, u.IsGuest = in.Username, in.Email, hash, false
		if derive {
			u.Username = deriveUsername(in.Email)
		}
		if in.DisplayName != "" {
			u.DisplayName = in.DisplayName
		} else if u.DisplayName == GuestDisplayName {
			u.DisplayName = u.Username
		}
		u.UpdatedAt = s.d.Now().UTC()
		err := s.d.Store.UpdateUser(ctx, caller, &u)
		if derive && errors.Is(err, ErrUsernameTaken) && attempt < 4 {
			continue
		}
		if err != nil {
			return nil, err
		}
		// The guest's old sessions go while the new one starts: its id is
		// chosen first, so the revocation spares it.
		sid := ids.New()
		var (
			res *AuthResult
			g   errgroup.Group
		)
		g.Go(func() error { return s.d.Sessions.RevokeAllSessions(ctx, u.ID, sid, s.d.Now()) })
		g.Go(func() (err error) { res, err = s.startSession(ctx, &u, sid); return err })
		if err := g.Wait(); err != nil {
			return nil, err
		}
		return res, nil
	}
}

// Logout revokes the session of the access token and, when given, the
// session of a refresh token of the same user: the access token's session
// is revoked beside the refresh token's read.
func (s *Service) Logout(ctx context.Context, callerID, sessionID, refreshToken string) error {
	var g errgroup.Group
	if sessionID != "" {
		g.Go(func() error { return s.d.Sessions.RevokeSession(ctx, callerID, sessionID) })
	}
	if refreshToken = strings.TrimSpace(refreshToken); refreshToken != "" {
		g.Go(func() error {
			tok, err := s.d.Sessions.GetRefreshToken(ctx, auth.HashRefreshToken(refreshToken))
			switch {
			case errors.Is(err, ErrRefreshInvalid):
				return nil // unknown or expired: nothing left to revoke
			case err != nil:
				return err
			case tok.UserID != callerID, tok.SessionID == sessionID:
				return nil // another's, or the session revoked beside
			}
			return s.d.Sessions.RevokeSession(ctx, callerID, tok.SessionID)
		})
	}
	return g.Wait()
}

// signIn starts a session for u and issues its tokens.
func (s *Service) signIn(ctx context.Context, u *User) (*AuthResult, error) {
	return s.startSession(ctx, u, ids.New())
}

// startSession is signIn with the session id chosen by the caller.
func (s *Service) startSession(ctx context.Context, u *User, sessionID string) (*AuthResult, error) {
	refresh, err := auth.NewRefreshToken()
	if err != nil {
		return nil, err
	}
	now := s.d.Now().UTC()
	sess := Session{ID: sessionID, UserID: u.ID, CreatedAt: now, ExpiresAt: now.Add(s.d.RefreshTTL)}
	if err := s.d.Sessions.CreateSession(ctx, sess, auth.HashRefreshToken(refresh)); err != nil {
		return nil, err
	}
	access, err := s.accessToken(u, sess.ID)
	if err != nil {
		return nil, err
	}
	return &AuthResult{
		Tokens: Tokens{AccessToken: access, RefreshToken: refresh, ExpiresIn: int64(s.d.Tokens.AccessTTL().Seconds())},
		User:   u,
	}, nil
}

func (s *Service) accessToken(u *User, sessionID string) (string, error) {
	return s.d.Tokens.Issue(auth.Claims{UserID: u.ID, IsGuest: u.IsGuest, Tier: string(u.Tier), SessionID: sessionID})
}

// deriveUsername makes a username from an email's local part plus four
// random digits, for sign-ups that send none (Form B).
func deriveUsername(email string) string {
	local, _, _ := strings.Cut(email, "@")
	var b strings.Builder
	for _, r := range local {
		switch {
		case r >= 'a' && r <= 'z', r >= 'A' && r <= 'Z', r >= '0' && r <= '9', r == '_':
			b.WriteRune(r)
		case r == '.' || r == '-' || r == '+':
			b.WriteRune('_')
		}
	}
	base := b.String()
	if base == "" || !(base[0] >= 'a' && base[0] <= 'z' || base[0] >= 'A' && base[0] <= 'Z') {
		base = "reader" + base
	}
	if strings.HasPrefix(strings.ToLower(base), GuestPrefix) || reserved[strings.ToLower(base)] {
		base = "reader_" + base
	}
	if len(base) > MaxUsernameLen-5 {
		base = base[:MaxUsernameLen-5]
	}
	return base + "_" + randomDigits(4)
}

func randomDigits(n int) string {
	var b strings.Builder
	for i := 0; i < n; i++ {
		d, err := rand.Int(rand.Reader, big.NewInt(10))
		if err != nil {
			panic(fmt.Sprintf("crypto/rand: %v", err))
		}
		b.WriteByte(byte('0' + d.Int64()))
	}
	return b.String()
}
