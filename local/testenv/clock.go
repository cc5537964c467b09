package testenv

import (
	"sync"
	"time"
)

// Clock is a settable fake clock for WithClock. It stands still until
// moved, so a test decides exactly when a token expires or a rate-limit
// window rolls over.
//
// Start it near the real time (NewClock(time.Now())): DynamoDB Local runs
// on the wall clock, and items whose TTL attribute lies in the real past
// may be deleted behind the test's back.
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
