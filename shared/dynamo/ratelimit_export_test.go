package dynamo

import (
	"context"
	"time"
)

// ResetUserBetween is ResetUser with between run after its read and
// before its transaction, for the external tests to remove the bucket
// there.
func (s *Counters) ResetUserBetween(ctx context.Context, userID, action string, now time.Time, between func()) (int, error) {
	return s.resetUser(ctx, userID, action, now, between)
}
