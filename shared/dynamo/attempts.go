package dynamo

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/bookplatform/backend/shared/users"
	"github.com/guregu/dynamo/v2"
)

// Attempts counts attempts with a password per account, in fixed windows
// (AttemptKey), each an item that goes by TTL after its window.
type Attempts struct{ t *table }

var _ users.Attempts = (*Attempts)(nil)

// Take adds one to the window's count if it is under limit and returns
// the count with it: one conditional UpdateItem returning the new count,
// so concurrent attempts cannot pass the limit and only one of them is
// a window's first.
func (s *Attempts) Take(ctx context.Context, key string, now time.Time, window time.Duration, limit int) (int, time.Time, error) {
	start := now.Truncate(window)
	end := start.Add(window)
	var it struct {
		Count int `dynamo:"count"`
	}
	err := s.t.update(AttemptKey(key, start)).
		Add("count", 1).
		SetIfNotExists("type", typeAttempts).
		SetIfNotExists(AttrTTL, end.Add(time.Minute).Unix()).
		If("attribute_not_exists($) OR $ < ?", "count", "count", limit).
		OnlyUpdatedValue(ctx, &it)
	if dynamo.IsCondCheckFailed(err) {
		return 0, end, nil
	}
	if err != nil {
		return 0, time.Time{}, fmt.Errorf("count attempt %s: %w", key, err)
	}
	return it.Count, end, nil
}

// Refund takes one back from the window's count, if there is one above
// zero: one conditional UpdateItem; a count that is gone (its window
// ended, or it was cleared) is left alone.
func (s *Attempts) Refund(ctx context.Context, key string, now time.Time, window time.Duration) error {
	err := s.t.update(AttemptKey(key, now.Truncate(window))).
		Add("count", -1).
		If("$ > ?", "count", 0).
		Run(ctx)
	if err != nil && !dynamo.IsCondCheckFailed(err) {
		return fmt.Errorf("refund attempt %s: %w", key, err)
	}
	return nil
}

// Clear deletes the window's count.
func (s *Attempts) Clear(ctx context.Context, key string, now time.Time, window time.Duration) error {
	err := s.t.del(AttemptKey(key, now.Truncate(window))).Run(ctx)
	if err != nil && !errors.Is(err, dynamo.ErrNotFound) {
		return fmt.Errorf("clear attempts %s: %w", key, err)
	}
	return nil
}
