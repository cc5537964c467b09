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

// The working operators (the role, not suspended) are counted in the
// transactions that change them, and none of them leaves the count
// below one: a revoke or a suspension of the last is refused.
func TestUsers_OperatorCount(t *testing.T) {
	env := testenv.New(t)
	store := dynamo.NewUsers(env.App.Table)
	ctx := t.Context()
	now := time.Now()
	read := func(id string) *users.User {
		t.Helper()
		u, err := store.GetUser(ctx, id)
		require.NoError(t, err)
		return u
	}
	count := func() int {
		t.Helper()
		n, err := store.OperatorCount(ctx)
		require.NoError(t, err)
		return n
	}
	a, b := env.Signup(t, "ann").ID, env.Signup(t, "bob").ID

	require.NoError(t, store.SetOperator(ctx, read(a), true, now))
	assert.Equal(t, 1, count())
	require.NoError(t, store.SetOperator(ctx, read(a), true, now), "granted again: no change")
	assert.Equal(t, 1, count())
	assert.ErrorIs(t, store.SetOperator(ctx, read(a), false, now), users.ErrLastOperator)
	assert.True(t, read(a).Operator)

	require.NoError(t, store.SetOperator(ctx, read(b), true, now))
	assert.Equal(t, 2, count())
	// A suspended operator is no working operator.
	require.NoError(t, store.SetSuspension(ctx, read(b), &now, "Spam.", now))
	assert.Equal(t, 1, count())
	assert.ErrorIs(t, store.SetSuspension(ctx, read(a), &now, "Spam.", now), users.ErrLastOperatorSuspended)
	assert.False(t, read(a).Suspended())
	// Revoking a suspended operator's role leaves the working count.
	require.NoError(t, store.SetOperator(ctx, read(b), false, now))
	assert.Equal(t, 1, count())
	require.NoError(t, store.SetSuspension(ctx, read(b), nil, "", now))
	assert.Equal(t, 1, count(), "restored, but no operator any more")
	require.NoError(t, store.SetOperator(ctx, read(b), true, now))
	require.NoError(t, store.SetSuspension(ctx, read(b), &now, "Spam.", now))
	require.NoError(t, store.SetSuspension(ctx, read(b), nil, "", now))
	assert.Equal(t, 2, count(), "a restored operator works again")

	// A state read before it moved is refused, the count untouched.
	stale := read(b)
	require.NoError(t, store.SetOperator(ctx, read(b), false, now))
	assert.ErrorIs(t, store.SetOperator(ctx, stale, false, now), users.ErrChanged)
	assert.ErrorIs(t, store.SetSuspension(ctx, stale, &now, "Spam.", now), users.ErrChanged)
	assert.Equal(t, 1, count())

	// A table from before the count counts its accounts at the first
	// change of the count, which then applies (a grant does not start it
	// at one); a recount leaves a count that exists.
	env.DeleteItem(t, dynamo.OperatorCountKey())
	require.NoError(t, store.SetOperator(ctx, read(b), true, now))
	assert.Equal(t, 2, count(), "a, and b granted")
	env.DeleteItem(t, dynamo.OperatorCountKey())
	require.NoError(t, store.SetOperator(ctx, read(b), false, now), "no count: counted, then revoked")
	assert.Equal(t, 1, count())
	env.DeleteItem(t, dynamo.OperatorCountKey())
	assert.ErrorIs(t, store.SetOperator(ctx, read(a), false, now), users.ErrLastOperator, "no count: counted, and a is the last")
	assert.Equal(t, 1, count())
	assert.True(t, read(a).Operator)
	require.NoError(t, store.SetSuspension(ctx, read(b), &now, "Spam.", now))
	env.DeleteItem(t, dynamo.OperatorCountKey())
	require.NoError(t, store.SetSuspension(ctx, read(b), nil, "", now), "a restore of a non-operator moves no count")
	assert.Equal(t, 0, count(), "and writes none")
	n, err := store.RecountOperators(ctx)
	require.NoError(t, err)
	assert.Equal(t, 1, n)
	n, err = store.RecountOperators(ctx)
	require.NoError(t, err)
	assert.Equal(t, -1, n)
}

// A suspension and a restore both end the sessions issued before them:
// sessionsValidAfter is the second they happened in.
func TestUsers_SuspensionSetsSessionsValidAfter(t *testing.T) {
	env := testenv.New(t)
	store := dynamo.NewUsers(env.App.Table)
	ctx := t.Context()
	id := env.Signup(t, "mia").ID
	u, err := store.GetUser(ctx, id)
	require.NoError(t, err)
	assert.True(t, u.SessionsValidAfter.IsZero())
	at := time.Date(2026, 11, 28, 9, 0, 5, 600_000_000, time.UTC)
	require.NoError(t, store.SetSuspension(ctx, u, &at, "Spam.", at))
	u, err = store.GetUser(ctx, id)
	require.NoError(t, err)
	assert.Equal(t, time.Date(2026, 11, 28, 9, 0, 5, 0, time.UTC), u.SessionsValidAfter)
	later := at.Add(3 * time.Second)
	require.NoError(t, store.SetSuspension(ctx, u, nil, "", later))
	u, err = store.GetUser(ctx, id)
	require.NoError(t, err)
	assert.Equal(t, time.Date(2026, 11, 28, 9, 0, 8, 0, time.UTC), u.SessionsValidAfter)
	assert.False(t, u.SessionValid(time.Date(2026, 11, 28, 9, 0, 7, 0, time.UTC)))
	assert.True(t, u.SessionValid(time.Date(2026, 11, 28, 9, 0, 8, 0, time.UTC)), "the restore's own second")
}
