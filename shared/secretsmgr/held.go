package secretsmgr

import (
	"context"
	"log/slog"
	"sync/atomic"
	"time"
)

// holder keeps what was last read from a secret and reads it again once
// it is older than the refresh interval: the read runs in the
// background, at most one at a time, and callers go on with what is held
// meanwhile. A read that fails keeps what is held (logged) and is tried
// again an interval later. The Keyring and Versions are its two uses.
type holder[T any] struct {
	what    string // what is held, for the log: "signing keys", "origin secret"
	arn     string
	refresh time.Duration
	read    func(context.Context) (T, error)
	logger  *slog.Logger
	now     func() time.Time

	held    atomic.Pointer[heldAt[T]]
	reading atomic.Bool
}

type heldAt[T any] struct {
	value T
	at    time.Time // when it was read (or a read last failed)
}

// newHolder reads the secret once, and fails if it cannot. logger and
// now may be nil for the default logger and the wall clock.
func newHolder[T any](ctx context.Context, what, arn string, refresh time.Duration, read func(context.Context) (T, error), logger *slog.Logger, now func() time.Time) (*holder[T], error) {
	if now == nil {
		now = time.Now
	}
	if logger == nil {
		logger = slog.Default()
	}
	h := &holder[T]{what: what, arn: arn, refresh: refresh, read: read, logger: logger, now: now}
	v, err := read(ctx)
	if err != nil {
		return nil, err
	}
	h.held.Store(&heldAt[T]{value: v, at: now()})
	return h, nil
}

// get returns what is held, starting a background read when it is due.
func (h *holder[T]) get() T {
	cur := h.held.Load()
	if h.now().Sub(cur.at) >= h.refresh && h.reading.CompareAndSwap(false, true) {
		go func() {
			defer h.reading.Store(false)
			ctx, cancel := context.WithTimeout(context.Background(), refreshTimeout)
			defer cancel()
			_ = h.Refresh(ctx)
		}()
	}
	return cur.value
}

// Refresh reads the secret now. On failure what is held stays, and the
// next read is an interval away.
func (h *holder[T]) Refresh(ctx context.Context) error {
	v, err := h.read(ctx)
	if err != nil {
		h.logger.Warn(h.what+": reading the secret failed; keeping what is held", "secret", h.arn, "error", err.Error())
		h.held.Store(&heldAt[T]{value: h.held.Load().value, at: h.now()})
		return err
	}
	h.held.Store(&heldAt[T]{value: v, at: h.now()})
	return nil
}
