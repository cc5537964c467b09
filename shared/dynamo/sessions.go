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

// sessionItem is one sign-in (SessionKey). Its TTL is kept ahead of the
// newest refresh token's expiry by up to one token life (sessionExpiry),
// so an idle session disappears at most that much later than its last
// token, and most rotations need only read it.
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

// sessionExpiry is what a session's expiresAt is set to when it is
// written for a token expiring at tokenExp (epoch seconds) of life ttl:
// one more token life beyond it. A rotation writes the session only when
// its new token would outlive it (RotateRefreshToken), so a session in use
// is written about once per token life instead of at every rotation; the
// price is that an idle session stays up to one token life longer before
// TTL removes it, unusable all the while since its tokens have expired.
func sessionExpiry(tokenExp int64, ttl time.Duration) int64 {
	return tokenExp + int64(ttl/time.Second)
}

// CreateSession writes the session, then its first token: two
// conditional puts, not a transaction (which DynamoDB bills at twice the
// writes). The token goes second, so it is written only for a session
// this call wrote: one put beside a session id that exists already (a
// collision) would otherwise join that session. A session whose token
// was not written is never reached, and TTL removes it. The session
// expires one token life after its token (sessionExpiry).
func (s *Sessions) CreateSession(ctx context.Context, sess users.Session, tokenHash string) error {
	exp := sess.ExpiresAt.Unix()
	k := SessionKey(sess.UserID, sess.ID)
	err := s.t.put(sessionItem{PK: k.PK, SK: k.SK, Type: typeSession, ID: sess.ID, UserID: sess.UserID, CreatedAt: sess.CreatedAt.UTC(),
		ExpiresAt: sessionExpiry(exp, sess.ExpiresAt.Sub(sess.CreatedAt))}).
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

// RotateRefreshToken stores the new token and, at once, checks that the
// session is live (exists, not revoked, not expired): a strongly
// consistent read, followed by a write only when the new token would
// outlive the session, which then extends it (conditional on it being
// live) to one token life beyond the new token (sessionExpiry). Then it
// marks the old token used, keeping the time of its first use,
// conditional on it being unused or first used after reusableSince (the
// reuse interval). Single-item calls, not a transaction (which DynamoDB
// bills at twice the writes), ordered so that every failure leaves what a
// transaction would: the old token is marked last, so a rotation that
// fails before (a session ended, a storage error) leaves it unused, and
// its holder may retry at any time rather than only within the reuse
// interval. A new token written by a rotation that then failed is never
// handed out and TTL removes it; one of an ended session cannot rotate.
// Two rotations of one token at once both pass, as within the reuse
// interval they must. The session's key is known only from the token, so
// its read cannot be saved by reading both at once.
//
// A revocation racing a rotation behaves as before, when the session was
// updated on every rotation conditional on being live: the rotation's
// check (the read, or the conditional extension) is the moment it sees
// the session, and a revocation stored before it ends the rotation
// (ErrSessionEnded), while one stored after it lets this rotation finish
// and hand out a token that cannot rotate again, exactly as a revocation
// landing just after the old conditional update did. Two rotations that
// extend at once each write at least their own token's expiry plus a
// token life, so whichever lands last still covers both tokens.
// Errors: users.ErrTokenReused, users.ErrSessionEnded.
func (s *Sessions) RotateRefreshToken(ctx context.Context, tok users.RefreshToken, newHash string, now, reusableSince time.Time, ttl time.Duration) error {
	exp := now.Add(ttl).Unix()
	var g errgroup.Group
	g.Go(func() error { return s.checkSession(ctx, tok.UserID, tok.SessionID, now, exp, ttl) })
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

// checkSession is a rotation's check that its session is live until at
// least exp: one strongly consistent GetItem, and only when the session
// expires before exp, the UpdateItem that extends it, conditional on it
// being live. Errors: users.ErrSessionEnded.
func (s *Sessions) checkSession(ctx context.Context, userID, sessionID string, now time.Time, exp int64, ttl time.Duration) error {
	k := SessionKey(userID, sessionID)
	var it sessionItem
	err := s.t.get(k).Consistent(true).Project("revoked", AttrTTL).One(ctx, &it)
	switch {
	case errors.Is(err, dynamo.ErrNotFound):
		return users.ErrSessionEnded
	case err != nil:
		return err
	case it.Revoked || it.ExpiresAt <= now.Unix():
		return users.ErrSessionEnded
	case it.ExpiresAt >= exp:
		return nil
	}
	err = s.t.update(k).Set(AttrTTL, sessionExpiry(exp, ttl)).
		If("attribute_exists(PK) AND revoked = ? AND expiresAt > ?", false, now.Unix()).Run(ctx)
	if dynamo.IsCondCheckFailed(err) {
		return users.ErrSessionEnded
	}
	return err
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

// revokeSkipsAfter is how long past its expiry a session must be for
// RevokeAllSessions to leave it unwritten: far longer than a request
// takes, so that a refresh that read its clock before this revocation
// (and judges the session by that earlier time) cannot find a session
// skipped here still live and extend it.
const revokeSkipsAfter = time.Hour

// RevokeAllSessions revokes every session of a user but one (password
// change, guest migration, suspension): one Query of the user's
// partition, then one update per live session, all at once. A session
// past its expiry by revokeSkipsAfter (TTL removes it within days) is
// refused by every rotation and is left alone; one still within the
// token life of headroom after its last token (sessionExpiry) cannot be
// told from one in use without a write per rotation, so it is revoked
// too.
func (s *Sessions) RevokeAllSessions(ctx context.Context, userID, exceptSessionID string, now time.Time) error {
	var items []sessionItem
	err := s.t.table.Get(AttrPK, UserKey(userID).PK).Range(AttrSK, dynamo.BeginsWith, sessionPrefix).
		Consistent(true).Project("id", "revoked", AttrTTL).All(ctx, &items)
	if err != nil {
		return fmt.Errorf("list sessions of %s: %w", userID, err)
	}
	var g errgroup.Group
	for _, it := range items {
		if it.Revoked || it.ID == exceptSessionID || it.ExpiresAt <= now.Add(-revokeSkipsAfter).Unix() {
			continue
		}
		g.Go(func() error { return s.RevokeSession(ctx, userID, it.ID) })
	}
	return g.Wait()
}
