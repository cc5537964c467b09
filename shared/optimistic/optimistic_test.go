package optimistic

import (
	"context"
	"errors"
	"testing"

	"github.com/bookplatform/backend/shared/apperr"
	"github.com/stretchr/testify/assert"
)

var (
	errLost  = errors.New("lost")
	errOther = errors.New("other")
)

// Retry tries again only on a lost race, at most limit times, and
// answers contention when every attempt lost; RetryLast answers the
// last lost attempt's own error.
func TestRetry(t *testing.T) {
	var calls int
	lose := func(times int, then error) func(int) error {
		calls = 0
		return func(n int) error {
			calls++
			if n <= times {
				return errLost
			}
			return then
		}
	}
	assert.NoError(t, Retry(3, lose(2, nil), errLost))
	assert.Equal(t, 3, calls)
	assert.ErrorIs(t, Retry(3, lose(1, errOther), errLost), errOther)
	assert.Equal(t, 2, calls)
	assert.ErrorIs(t, Retry(3, lose(5, nil), errLost), apperr.ErrContention)
	assert.Equal(t, 3, calls, "never more than the limit")
	assert.ErrorIs(t, RetryLast(4, lose(5, nil), errLost), errLost)
	assert.Equal(t, 4, calls)
	assert.ErrorIs(t, Retry(3, lose(0, errLost), errOther), errLost, "an error not named lost is not retried")
	assert.Equal(t, 1, calls)
}

// Delete removes the parent then its children; on a parent already gone
// it removes the children and answers NotFound; a lost race reads again.
func TestDelete(t *testing.T) {
	errNotFound, errChanged, errNotOwner := errors.New("not found"), errors.New("changed"), errors.New("not owner")
	var parent *string
	var purged, removes int
	changes := 0
	d := Delete[string]{
		What: "thing", Children: "parts",
		Get: func(context.Context, string) (string, error) {
			if parent == nil {
				return "", errNotFound
			}
			return *parent, nil
		},
		NotFound: errNotFound,
		Allow: func(owner string) error {
			if owner != "me" {
				return errNotOwner
			}
			return nil
		},
		Remove: func(context.Context, string) error {
			removes++
			if changes > 0 {
				changes--
				return errChanged
			}
			parent = nil
			return nil
		},
		Changed: errChanged, Attempts: 3,
		Purge: func(context.Context, string) error { purged++; return nil },
	}
	ctx := context.Background()
	me, other := "me", "other"

	parent, changes = &me, 2
	assert.NoError(t, d.Run(ctx, "t1"))
	assert.Equal(t, 3, removes)
	assert.Equal(t, 1, purged)

	assert.ErrorIs(t, d.Run(ctx, "t1"), errNotFound, "half done or done: the children go, then 404")
	assert.Equal(t, 2, purged)

	parent = &other
	assert.ErrorIs(t, d.Run(ctx, "t1"), errNotOwner)
	assert.Equal(t, 2, purged)

	parent, changes, removes = &me, 5, 0
	assert.ErrorIs(t, d.Run(ctx, "t1"), apperr.ErrContention)
	assert.Equal(t, 3, removes)
	assert.Equal(t, 2, purged, "nothing removed, nothing purged")
}
