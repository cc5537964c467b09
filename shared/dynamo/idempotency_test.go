package dynamo_test

import (
	"github.com/bookplatform/backend/shared/dynamo"
	"testing"
	"time"

	"github.com/bookplatform/backend/local/testenv"
	"github.com/bookplatform/backend/shared/idempotency"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// The record's life: taken, held (others get it back), taken over once
// the holder's lock lapses, completed or released only by its holder,
// absent once expired.
func TestIdempotency_Record(t *testing.T) {
	env := testenv.New(t)
	s := dynamo.NewIdempotency(env.App.Table)
	ctx := t.Context()
	now := time.Date(2026, 3, 2, 9, 0, 0, 0, time.UTC)
	expires := now.Add(24 * time.Hour)
	first := idempotency.Record{Fingerprint: "POST /v1/lines abc", Owner: "attempt-1", LockedUntil: now.Add(time.Minute)}

	held, err := s.Begin(ctx, "k", first, now, expires)
	require.NoError(t, err)
	assert.Nil(t, held, "taken")

	second := first
	second.Owner = "attempt-2"
	held, err = s.Begin(ctx, "k", second, now.Add(time.Second), expires)
	require.NoError(t, err)
	require.NotNil(t, held, "held by the first attempt")
	assert.Equal(t, "attempt-1", held.Owner)
	assert.False(t, held.Done)

	// The first attempt dies; after its lock, the second takes over.
	second.LockedUntil = now.Add(3 * time.Minute)
	held, err = s.Begin(ctx, "k", second, now.Add(2*time.Minute), expires)
	require.NoError(t, err)
	assert.Nil(t, held, "taken over")

	// The first attempt, back from the dead, can neither release nor
	// complete what the second holds.
	require.NoError(t, s.Release(ctx, "k", "attempt-1"))
	done := first
	done.Done, done.Answer = true, []byte("sealed late answer")
	assert.Error(t, s.Complete(ctx, "k", done, expires))
	held, err = s.Begin(ctx, "k", first, now.Add(2*time.Minute), expires)
	require.NoError(t, err)
	require.NotNil(t, held)
	assert.Equal(t, "attempt-2", held.Owner, "still the second attempt's")

	done = second
	done.Done, done.Answer = true, []byte("sealed answer")
	require.NoError(t, s.Complete(ctx, "k", done, expires))
	held, err = s.Begin(ctx, "k", first, now.Add(time.Hour), expires)
	require.NoError(t, err)
	require.NotNil(t, held)
	assert.True(t, held.Done)
	assert.Equal(t, "sealed answer", string(held.Answer), "kept as given: the store does not read it")
	require.NoError(t, s.Release(ctx, "k", "attempt-2"), "a done record is not released")
	held, err = s.Begin(ctx, "k", first, now.Add(time.Hour), expires)
	require.NoError(t, err)
	assert.True(t, held.Done)

	// Past its expiry the record counts as absent, even before TTL deletes it.
	held, err = s.Begin(ctx, "k", first, expires.Add(time.Second), expires.Add(25*time.Hour))
	require.NoError(t, err)
	assert.Nil(t, held)
}
