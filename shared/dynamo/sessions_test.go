package dynamo_test

import (
	"testing"
	"time"

	"github.com/bookplatform/backend/local/testenv"
	"github.com/bookplatform/backend/shared/dynamo"
	"github.com/bookplatform/backend/shared/users"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// A rotation is three single-item writes, not a transaction: one that
// fails (here, its session revoked) must leave the old token unused, as a
// transaction would, so that its holder is not later taken for a replay;
// one that succeeds marks it used once, and a token used before the reuse
// interval is refused.
func TestSessions_RotationLeavesTheOldTokenAsItWasWhenItFails(t *testing.T) {
	env := testenv.New(t)
	store := dynamo.NewSessions(env.App.Table)
	ctx := t.Context()
	now := time.Now().Truncate(time.Millisecond)
	userID := env.Signup(t, "rory").ID
	sess := users.Session{ID: "11111111-2222-4333-8444-555555555555", UserID: userID, CreatedAt: now, ExpiresAt: now.Add(time.Hour)}
	require.NoError(t, store.CreateSession(ctx, sess, "hash-1"))
	assert.Error(t, store.CreateSession(ctx, sess, "hash-9"), "a session id is written once")
	_, err := store.GetRefreshToken(ctx, "hash-9")
	assert.ErrorIs(t, err, users.ErrRefreshInvalid, "and its token with it: it would join the session there")

	tok, err := store.GetRefreshToken(ctx, "hash-1")
	require.NoError(t, err)
	require.False(t, tok.Used)
	require.NoError(t, store.RotateRefreshToken(ctx, tok, "hash-2", now, now.Add(-time.Minute), time.Hour))
	used, err := store.GetRefreshToken(ctx, "hash-1")
	require.NoError(t, err)
	assert.True(t, used.Used)
	assert.Equal(t, now, used.UsedAt)
	_, err = store.GetRefreshToken(ctx, "hash-2")
	require.NoError(t, err, "the new token is stored")

	later := now.Add(2 * time.Minute)
	err = store.RotateRefreshToken(ctx, used, "hash-3", later, later.Add(-time.Minute), time.Hour)
	assert.ErrorIs(t, err, users.ErrTokenReused, "used before the reuse interval")

	next, err := store.GetRefreshToken(ctx, "hash-2")
	require.NoError(t, err)
	require.NoError(t, store.RevokeSession(ctx, userID, sess.ID))
	err = store.RotateRefreshToken(ctx, next, "hash-4", later, later.Add(-time.Minute), time.Hour)
	assert.ErrorIs(t, err, users.ErrSessionEnded)
	after, err := store.GetRefreshToken(ctx, "hash-2")
	require.NoError(t, err)
	assert.False(t, after.Used, "a failed rotation leaves the old token unused")

	gone := users.RefreshToken{Hash: "hash-gone", UserID: userID, SessionID: sess.ID}
	sess2 := users.Session{ID: "11111111-2222-4333-8444-666666666666", UserID: userID, CreatedAt: now, ExpiresAt: now.Add(time.Hour)}
	require.NoError(t, store.CreateSession(ctx, sess2, "hash-5"))
	gone.SessionID = sess2.ID
	err = store.RotateRefreshToken(ctx, gone, "hash-6", later, later.Add(-time.Minute), time.Hour)
	assert.ErrorIs(t, err, users.ErrRefreshInvalid, "a token TTL removed since it was read is invalid, not reused")
}

// A session is written with one token life of headroom beyond its token,
// and a rotation whose new token expires within it only reads the
// session: it is extended (again by one token life beyond the new token)
// only when the new token would outlive it. A revoked session cannot
// rotate on either path.
func TestSessions_RotationExtendsTheSessionOnlyWhenNeeded(t *testing.T) {
	env := testenv.New(t)
	store := dynamo.NewSessions(env.App.Table)
	ctx := t.Context()
	now := time.Now().Truncate(time.Second)
	userID := env.Signup(t, "sasha").ID
	sess := users.Session{ID: "11111111-2222-4333-8444-777777777777", UserID: userID, CreatedAt: now, ExpiresAt: now.Add(time.Hour)}
	require.NoError(t, store.CreateSession(ctx, sess, "ext-1"))
	expiry := func() float64 {
		t.Helper()
		it := env.Item(t, dynamo.SessionKey(userID, sess.ID))
		require.NotNil(t, it)
		return it["expiresAt"].(float64)
	}
	rotate := func(from, to string, at time.Time) error {
		t.Helper()
		tok, err := store.GetRefreshToken(ctx, from)
		require.NoError(t, err)
		return store.RotateRefreshToken(ctx, tok, to, at, at.Add(-time.Minute), time.Hour)
	}
	assert.Equal(t, float64(now.Add(2*time.Hour).Unix()), expiry(), "one token life beyond the first token")

	require.NoError(t, rotate("ext-1", "ext-2", now.Add(50*time.Minute)))
	assert.Equal(t, float64(now.Add(2*time.Hour).Unix()), expiry(), "a new token within the session's life leaves it unwritten")

	at := now.Add(90 * time.Minute)
	require.NoError(t, rotate("ext-2", "ext-3", at))
	assert.Equal(t, float64(at.Add(2*time.Hour).Unix()), expiry(), "a new token outliving the session extends it")

	require.NoError(t, store.RevokeSession(ctx, userID, sess.ID))
	assert.ErrorIs(t, rotate("ext-3", "ext-4", at.Add(time.Minute)), users.ErrSessionEnded, "revoked, with no extension to write")
	assert.ErrorIs(t, rotate("ext-3", "ext-5", at.Add(100*time.Minute)), users.ErrSessionEnded, "revoked, with an extension to write")
	old, err := store.GetRefreshToken(ctx, "ext-3")
	require.NoError(t, err)
	assert.False(t, old.Used, "a refused rotation leaves the old token unused")
}

// Revoking all of a user's sessions spares the one named and leaves
// those long past their expiry (refused anyway, waiting for TTL)
// unwritten.
func TestSessions_RevokeAllSkipsEndedSessions(t *testing.T) {
	env := testenv.New(t)
	store := dynamo.NewSessions(env.App.Table)
	ctx := t.Context()
	now := time.Now().Truncate(time.Second)
	userID := env.Signup(t, "tamsin").ID
	const live, kept, ended = "11111111-2222-4333-8444-888888888881", "11111111-2222-4333-8444-888888888882", "11111111-2222-4333-8444-888888888883"
	for i, id := range []string{live, kept} {
		require.NoError(t, store.CreateSession(ctx, users.Session{ID: id, UserID: userID, CreatedAt: now, ExpiresAt: now.Add(time.Hour)}, "all-"+string(rune('a'+i))))
	}
	// Its token expired three hours ago, its headroom two hours ago.
	require.NoError(t, store.CreateSession(ctx, users.Session{ID: ended, UserID: userID, CreatedAt: now.Add(-4 * time.Hour), ExpiresAt: now.Add(-3 * time.Hour)}, "all-c"))

	require.NoError(t, store.RevokeAllSessions(ctx, userID, kept, now))
	revoked := func(id string) any { return env.Item(t, dynamo.SessionKey(userID, id))["revoked"] }
	assert.Equal(t, true, revoked(live))
	assert.Equal(t, false, revoked(kept), "the one spared")
	assert.Equal(t, false, revoked(ended), "two hours past its expiry: left unwritten")
}

// A password change must end every other session: a rotation whose check
// of its session reads it after the revocation must fail, however its
// own clock reads. A refresh takes its now before reading its token
// (users.Refresh), so one still in flight, with a token live at its now,
// would see a session the revocation skipped as expired by the
// revocation's later now unrevoked and live, extend it, and hand out a
// token that rotates on after the password change (the review's
// finding): only sessions long past their expiry are skipped.
func TestSessions_RevokeAllEndsARotationInFlight(t *testing.T) {
	env := testenv.New(t)
	store := dynamo.NewSessions(env.App.Table)
	ctx := t.Context()
	const ttl = time.Hour
	base := time.Now().Truncate(time.Second)
	userID := env.Signup(t, "umair").ID
	const sid = "11111111-2222-4333-8444-999999999991"
	require.NoError(t, store.CreateSession(ctx, users.Session{ID: sid, UserID: userID, CreatedAt: base, ExpiresAt: base.Add(ttl)}, "r16-0"))
	rotate := func(from, to string, at time.Time) error {
		t.Helper()
		tok, err := store.GetRefreshToken(ctx, from)
		require.NoError(t, err)
		require.True(t, tok.ExpiresAt.After(at), "the service would refuse an expired token")
		return store.RotateRefreshToken(ctx, tok, to, at, at.Add(-30*time.Second), ttl)
	}
	// The first token rotated in its last second: the new one expires a
	// second before the session (base+2h), which is not extended.
	require.NoError(t, rotate("r16-0", "r16-1", base.Add(ttl-500*time.Millisecond)))

	// A refresh with r16-1 takes now 1.5 s before the session's expiry
	// (its token read slow), the password change's now is at the expiry.
	refreshNow := base.Add(2*ttl - 1500*time.Millisecond)
	require.NoError(t, store.RevokeAllSessions(ctx, userID, "", base.Add(2*ttl)))
	err := rotate("r16-1", "r16-2", refreshNow)
	assert.ErrorIs(t, err, users.ErrSessionEnded, "revoked before the rotation read the session")
	if err == nil {
		assert.NoError(t, rotate("r16-2", "r16-3", refreshNow.Add(50*time.Minute)), "and it lives on")
	}
}
