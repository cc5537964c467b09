package dynamo

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/bookplatform/backend/shared/users"
	"github.com/guregu/dynamo/v2"
	"golang.org/x/sync/errgroup"
)

// Sessions stores sign-ins (families of refresh tokens) and refresh tokens.
type Sessions struct{ t *table }

var _ users.SessionStorer = (*Sessions)(nil)

// sessionItem is one sign-in (SessionKey). Its TTL follows the newest
// refresh token, so an idle session disappears.
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

// refreshTokenItem is one refresh token, by hash (RefreshTokenKey).
type refreshTokenItem struct {
	PK        string `dynamo:"PK"`
	SK        string `dynamo:"SK"`
	Type      string `dynamo:"type"`
	UserID    string `dynamo:"userId"`
	SessionID string `dynamo:"sessionId"`
	Used      bool   `dynamo:"used"`
	UsedAt    int64  `dynamo:"usedAt,omitempty"` // epoch ms of the first rotation
	ExpiresAt int64  `dynamo:"expiresAt"`
}

func newRefreshTokenItem(hash, userID, sessionID string, expires int64) refreshTokenItem {
	k := RefreshTokenKey(hash)
	return refreshTokenItem{PK: k.PK, SK: k.SK, Type: typeRefreshToken, UserID: userID, SessionID: sessionID, ExpiresAt: expires}
}

// errSessionIDTaken is a new session's id colliding with a stored one.
var errSessionIDTaken = errors.New("session id or refresh token already exists")

// CreateSession writes the session and its first token: two conditional
// puts at once, not a transaction (which DynamoDB bills at twice the
// writes), since neither item is of use without the other. A token whose
// session was not written cannot rotate (rotation requires the session
// live), and a session without its token is never reached; the sign-in
// that lost either answers an error and leaves nothing a client holds,
// and TTL removes what it left.
func (s *Sessions) CreateSession(ctx context.Context, sess users.Session, tokenHash string) error {
	exp := sess.ExpiresAt.Unix()
	k := SessionKey(sess.UserID, sess.ID)
	var g errgroup.Group
	g.Go(func() error {
		return s.t.put(sessionItem{PK: k.PK, SK: k.SK, Type: typeSession, ID: sess.ID, UserID: sess.UserID, CreatedAt: sess.CreatedAt.UTC(), ExpiresAt: exp}).
			If("attribute_not_exists(PK)").Run(ctx)
	})
	g.Go(func() error {
		return s.t.put(newRefreshTokenItem(tokenHash, sess.UserID, sess.ID, exp)).If("attribute_not_exists(PK)").Run(ctx)
	})
	if err := g.Wait(); err != nil {
		if dynamo.IsCondCheckFailed(err) {
			err = errSessionIDTaken
		}
		return fmt.Errorf("create session %s: %w", sess.ID, err)
	}
	return nil
}

// GetRefreshToken reads a refresh token by hash, strongly consistent: a
// rotation a moment ago must show as used. Errors: users.ErrRefreshInvalid.
func (s *Sessions) GetRefreshToken(ctx context.Context, hash string) (users.RefreshToken, error) {
	var tok refreshTokenItem
	err := s.t.get(RefreshTokenKey(hash)).Consistent(true).One(ctx, &tok)
	if errors.Is(err, dynamo.ErrNotFound) {
		return users.RefreshToken{}, fmt.Errorf("get refresh token: %w", users.ErrRefreshInvalid)
	}
	if err != nil {
		return users.RefreshToken{}, fmt.Errorf("get refresh token: %w", err)
	}
	rt := users.RefreshToken{Hash: hash, UserID: tok.UserID, SessionID: tok.SessionID, Used: tok.Used, ExpiresAt: time.Unix(tok.ExpiresAt, 0)}
	if tok.UsedAt > 0 {
		rt.UsedAt = time.UnixMilli(tok.UsedAt)
	}
	return rt, nil
}

// RotateRefreshToken stores the new token and extends the session
// (conditional on it being live) at once, then marks the old token used,
// keeping the time of its first use, conditional on it being unused or
// first used after reusableSince (the reuse interval). Three single-item
// writes, not a transaction (which DynamoDB bills at twice the writes),
// ordered so that every failure leaves what a transaction would: the old
// token is marked last, so a rotation that fails before (a session
// ended, a storage error) leaves it unused, and its holder may retry at
// any time rather than only within the reuse interval. A new token
// written by a rotation that then failed is never handed out and TTL
// removes it; one of an ended session cannot rotate. Two rotations of one
// token at once both pass, as within the reuse interval they must.
// Errors: users.ErrTokenReused, users.ErrSessionEnded.
func (s *Sessions) RotateRefreshToken(ctx context.Context, tok users.RefreshToken, newHash string, now, reusableSince time.Time, ttl time.Duration) error {
	exp := now.Add(ttl).Unix()
	var g errgroup.Group
	g.Go(func() error {
		err := s.t.update(SessionKey(tok.UserID, tok.SessionID)).Set(AttrTTL, exp).
			If("attribute_exists(PK) AND revoked = ? AND expiresAt > ?", false, now.Unix()).Run(ctx)
		if dynamo.IsCondCheckFailed(err) {
			return users.ErrSessionEnded
		}
		return err
	})
	g.Go(func() error {
		err := s.t.put(newRefreshTokenItem(newHash, tok.UserID, tok.SessionID, exp)).If("attribute_not_exists(PK)").Run(ctx)
		if dynamo.IsCondCheckFailed(err) {
			return errSessionIDTaken
		}
		return err
	})
	if err := g.Wait(); err != nil {
		return fmt.Errorf("rotate refresh token: %w", err)
	}
	err := s.t.update(RefreshTokenKey(tok.Hash)).Set("used", true).SetIfNotExists("usedAt", now.UnixMilli()).
		If("attribute_exists(PK) AND (used = ? OR usedAt > ?)", false, reusableSince.UnixMilli()).Run(ctx)
	if dynamo.IsCondCheckFailed(err) {
		err = users.ErrTokenReused
	}
	if err != nil {
		return fmt.Errorf("rotate refresh token: %w", err)
	}
	return nil
}

// RevokeSession marks a session revoked; its tokens can no longer rotate.
// An unknown or already revoked session is not an error.
func (s *Sessions) RevokeSession(ctx context.Context, userID, sessionID string) error {
	err := s.t.update(SessionKey(userID, sessionID)).Set("revoked", true).If("attribute_exists(PK)").Run(ctx)
	if err != nil && !dynamo.IsCondCheckFailed(err) {
		return fmt.Errorf("revoke session %s: %w", sessionID, err)
	}
	return nil
}

// RevokeAllSessions revokes every session of a user but one (password
// change, guest migration): one Query of the user's partition, then one
// update per live session, all at once.
func (s *Sessions) RevokeAllSessions(ctx context.Context, userID, exceptSessionID string) error {
	var items []sessionItem
	err := s.t.table.Get(AttrPK, UserKey(userID).PK).Range(AttrSK, dynamo.BeginsWith, sessionPrefix).
		Consistent(true).Project("id", "revoked").All(ctx, &items)
	if err != nil {
		return fmt.Errorf("list sessions of %s: %w", userID, err)
	}
	var g errgroup.Group
	for _, it := range items {
		if it.Revoked || it.ID == exceptSessionID {
			continue
		}
		g.Go(func() error { return s.RevokeSession(ctx, userID, it.ID) })
	}
	return g.Wait()
}
