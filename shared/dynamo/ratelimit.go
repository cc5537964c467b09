package dynamo

import (
	"context"
	"fmt"
	"time"

	"github.com/bookplatform/backend/shared/ratelimit"
)

// Counters counts requests in rate-limit windows.
type Counters struct{ t *table }

var _ ratelimit.Counter = (*Counters)(nil)

// Incr adds one to a rate-limit window counter with one atomic UpdateItem
// (ADD), creating it with its expiry on first use. Access pattern: "count
// requests of a scope and action in a window".
func (s *Counters) Incr(ctx context.Context, scope, action string, windowStart, expires time.Time) (int64, error) {
	var out struct {
		Count int64 `dynamo:"count"`
	}
	err := s.t.update(RateWindowKey(scope, action, windowStart)).
		Add("count", 1).
		SetIfNotExists("type", typeRateWindow).
		SetIfNotExists(AttrTTL, expires.Add(time.Minute).Unix()).
		Value(ctx, &out)
	if err != nil {
		return 0, fmt.Errorf("incr rate counter %s/%s: %w", scope, action, err)
	}
	return out.Count, nil
}
