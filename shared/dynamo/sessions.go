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

// CreateSession writes the session, then its first token: two
// conditional puts, not a transaction (which DynamoDB bills at twice the
// writes). The token goes second, so it is written only for a session
// this call wrote: one put beside a session id that exists already (a
// collision) would otherwise join that session. A session whose token
// was not written is never reached, and TTL removes it.
func (s *Sessions) CreateSession(ctx context.Context, sess users.Session, tokenHash string) error {
	exp := sess.ExpiresAt.Unix()
	k := SessionKey(sess.UserID, sess.ID)
	err := s.t.put(sessionItem{PK: k.PK, SK: k.SK, Type: typeSession, ID: sess.ID, UserID: sess.UserID, CreatedAt: sess.CreatedAt.UTC(), ExpiresAt: exp}).
		If("attribute_not_exists(PK)").Run(ctx)
	if err == nil {
		err = s.t.put(newRefreshTokenItem(tokenHash, sess.UserID, sess.ID, exp)).If("attribute_not_exists(PK)").Run(ctx)
	}
	if err != nil {
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
		// Used before the interval, or gone: TTL removed it since it was
		// read, which is an expired token, not a replay that ends the
		// session.
		err = users.ErrTokenReused
		if _, gerr := s.GetRefreshToken(ctx, tok.Hash); errors.Is(gerr, users.ErrRefreshInvalid) {
			err = users.ErrRefreshInvalid
		}
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
