// Package idempotency is what a retried request needs to get its first
// answer instead of running twice: the record kept of one key and the
// store that keeps it. The HTTP adapter applies it to every route marked
// Idempotent (shared/httpapi); orders and sales reuse the same records.
package idempotency

import (
	"context"
	"time"
)

// Record is what is kept of one key.
type Record struct {
	// Fingerprint identifies the request that took the key: method, path
	// and a hash of the body.
	Fingerprint string
	// Owner identifies the attempt that holds the key (a random token per
	// attempt): only it may complete or release the record, so an attempt
	// whose lock lapsed and was taken over cannot undo its successor's.
	Owner string
	// Done is false while the first request is under way.
	Done        bool
	LockedUntil time.Time
	// The answer, once Done.
	Status int
	Header map[string]string
	Body   []byte
}

// Store keeps the records. Keys are opaque strings: the caller's scope
// and the client's key.
type Store interface {
	// Begin takes key for rec (not Done) unless another request holds it
	// or completed it, and then returns that request's record instead. A
	// record locked until before now is taken over (its request is dead).
	Begin(ctx context.Context, key string, rec Record, now, expires time.Time) (*Record, error)
	// Complete stores the answer of the attempt rec.Owner, if it still
	// holds key.
	Complete(ctx context.Context, key string, rec Record, expires time.Time) error
	// Release gives key up if owner still holds it: the request changed
	// nothing, and a retry may run it again.
	Release(ctx context.Context, key, owner string) error
}
