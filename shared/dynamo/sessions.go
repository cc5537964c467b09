package dynamo

import (
	"context"
	"errors"
	"fmt"
	"sync"
	"time"

	"github.com/bookplatform/backend/shared/apperr"
	"github.com/bookplatform/backend/shared/users"
	"github.com/guregu/dynamo/v2"
)

var _ users.SessionStorer = (*Store)(nil)

// sessionItem is one sign-in: PK USER#<id>, SK SESSION#<sid>. Its TTL
// follows the newest refresh token, so an idle session disappears.
type sessionItem struct {
	PK        string    `dynamo:"PK"`
	SK        string    `dynamo:"SK"`
	Type      string    `dynamo:"type"`
	ID        string    `dynamo:"id"`
	UserID    string    `dynamo:"userId"`
	Revoked   bool      `dynamo:"revoked"`
	CreatedAt time.Time `dynamo:"createdAt"`
	ExpiresAt int64     `dynamo:"expiresAt"`
}

// refreshTokenItem is one refresh token, by hash: PK RTOKEN#<sha256>.
type refreshTokenItem struct {
	PK        string `dynamo:"PK"`
	SK        string `dynamo:"SK"`
	Type      string `dynamo:"type"`
	UserID    string `dynamo:"userId"`
	SessionID string `dynamo:"sessionId"`
	Used      bool   `dynamo:"used"`
	ExpiresAt int64  `dynamo:"expiresAt"`
}

var errRefresh = apperr.Unauthorized("Invalid or expired refresh token")

// CreateSession writes the session and its first token in one transaction.
func (s *Store) CreateSession(ctx context.Context, sess users.Session, tokenHash string) error {
	exp := sess.ExpiresAt.Unix()
	err := s.db.WriteTx().
		Put(s.table.Put(sessionItem{PK: userPK(sess.UserID), SK: sessionSK(sess.ID), Type: "Session", ID: sess.ID, UserID: sess.UserID, CreatedAt: sess.CreatedAt.UTC(), ExpiresAt: exp}).If("attribute_not_exists(PK)")).
		Put(s.table.Put(refreshTokenItem{PK: refreshTokenPK(tokenHash), SK: refreshTokenSK, Type: "RefreshToken", UserID: sess.UserID, SessionID: sess.ID, ExpiresAt: exp}).If("attribute_not_exists(PK)")).
		Run(ctx)
	if err != nil {
		return fmt.Errorf("create session %s: %w", sess.ID, err)
	}
	return nil
}

// GetRefreshToken reads a refresh token by hash, strongly consistent: a
// rotation a moment ago must show as used.
func (s *Store) GetRefreshToken(ctx context.Context, hash string) (users.RefreshToken, error) {
	var tok refreshTokenItem
	err := s.table.Get(AttrPK, refreshTokenPK(hash)).Range(AttrSK, dynamo.Equal, refreshTokenSK).Consistent(true).One(ctx, &tok)
	if errors.Is(err, dynamo.ErrNotFound) {
		return users.RefreshToken{}, errRefresh
	}
	if err != nil {
		return users.RefreshToken{}, fmt.Errorf("get refresh token: %w", err)
	}
	return users.RefreshToken{Hash: hash, UserID: tok.UserID, SessionID: tok.SessionID, Used: tok.Used, ExpiresAt: time.Unix(tok.ExpiresAt, 0)}, nil
}

// RotateRefreshToken marks the old token used and stores the new one in
// one transaction that also requires the session to be live and extends
// it. Losing a race against another use of the same token is
// users.ErrTokenReused; the service revokes the session for it.
func (s *Store) RotateRefreshToken(ctx context.Context, tok users.RefreshToken, newHash string, now time.Time, ttl time.Duration) error {
	oldHash := tok.Hash
	exp := now.Add(ttl).Unix()
	err := s.db.WriteTx().
		Update(s.table.Update(AttrPK, refreshTokenPK(oldHash)).Range(AttrSK, refreshTokenSK).
			Set("used", true).If("used = ?", false)).
		Put(s.table.Put(refreshTokenItem{PK: refreshTokenPK(newHash), SK: refreshTokenSK, Type: "RefreshToken", UserID: tok.UserID, SessionID: tok.SessionID, ExpiresAt: exp}).If("attribute_not_exists(PK)")).
		Update(s.table.Update(AttrPK, userPK(tok.UserID)).Range(AttrSK, sessionSK(tok.SessionID)).
			Set(AttrTTL, exp).If("attribute_exists(PK) AND revoked = ? AND expiresAt > ?", false, now.Unix())).
		Run(ctx)
	if codes, ok := cancelReasons(err); ok {
		if failedCondition(codes, 0) {
			return users.ErrTokenReused // another request used this token first
		}
		if failedCondition(codes, 2) {
			return apperr.Unauthorized("Session revoked or expired")
		}
	}
	if err != nil {
		return fmt.Errorf("rotate refresh token: %w", err)
	}
	return nil
}

// RevokeSession marks a session revoked; its tokens can no longer rotate.
// An unknown or already revoked session is not an error.
func (s *Store) RevokeSession(ctx context.Context, userID, sessionID string) error {
	err := s.table.Update(AttrPK, userPK(userID)).Range(AttrSK, sessionSK(sessionID)).
		Set("revoked", true).If("attribute_exists(PK)").Run(ctx)
	if err != nil && !dynamo.IsCondCheckFailed(err) {
		return fmt.Errorf("revoke session %s: %w", sessionID, err)
	}
	return nil
}

// RevokeAllSessions revokes every session of a user (password change).
func (s *Store) RevokeAllSessions(ctx context.Context, userID, exceptSessionID string) error {
	var items []sessionItem
	err := s.table.Get(AttrPK, userPK(userID)).Range(AttrSK, dynamo.BeginsWith, sessionPrefix).
		Project("id", "revoked").All(ctx, &items)
	if err != nil {
		return fmt.Errorf("list sessions of %s: %w", userID, err)
	}
	// One update per session, all at once: a user with many devices
	// should not wait for them one after another.
	var wg sync.WaitGroup
	errs := make([]error, len(items))
	for i, it := range items {
		if it.Revoked || it.ID == exceptSessionID {
			continue
		}
		wg.Add(1)
		go func() {
			defer wg.Done()
			errs[i] = s.RevokeSession(ctx, userID, it.ID)
		}()
	}
	wg.Wait()
	return errors.Join(errs...)
}
