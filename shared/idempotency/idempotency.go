// Package idempotency is what a retried request needs to get its first
// answer instead of running twice: the record kept of one key, the store
// that keeps it, and the server keys that protect it (Sealer). The HTTP
// adapter applies it to every route marked Idempotent (shared/httpapi);
// orders and sales reuse the same records.
package idempotency

import (
	"context"
	"time"
)

// Record is what is kept of one key. Nothing in it is a client secret in
// clear: the fingerprint is a keyed hash and the answer is encrypted
// (Sealer), so reading the table gives neither a way to test guesses at
// a sign-up's password nor the tokens a sign-up answered.
type Record struct {
	// Fingerprint identifies the request that took the key
	// (Sealer.Fingerprint of its method, path and body).
	Fingerprint string
	// Owner identifies the attempt that holds the key (a random token per
	// attempt): only it may complete or release the record, so an attempt
	// whose lock lapsed and was taken over cannot undo its successor's.
	Owner string
	// Done is false while the first request is under way.
	Done        bool
	LockedUntil time.Time
	// Answer is the sealed answer once Done (Sealer.Seal), opaque to the
	// store.
	Answer []byte
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
