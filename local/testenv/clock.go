package testenv

import (
	"sync"
	"time"
)

// Clock is a settable fake clock for WithClock. It stands still until
// moved, so a test decides exactly when a token expires or a rate-limit
// window rolls over.
//
// Any start time works: DynamoDB Local never deletes expired items (an
// item 48 h past its TTL was still there 40 s later), so code must filter
// on the TTL attribute itself, as it must in AWS, where deletion can lag
// expiry by up to two days.
type Clock struct {
	mu  sync.Mutex
	now time.Time
}

// NewClock returns a clock standing at start.
func NewClock(start time.Time) *Clock { return &Clock{now: start} }

// Now returns the clock's time; pass it where a func() time.Time is wanted.
func (c *Clock) Now() time.Time {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.now
}

// Set moves the clock to t (backwards too).
func (c *Clock) Set(t time.Time) {
	c.mu.Lock()
	c.now = t
	c.mu.Unlock()
}

// Advance moves the clock forward by d and returns the new time.
func (c *Clock) Advance(d time.Duration) time.Time {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.now = c.now.Add(d)
	return c.now
}
