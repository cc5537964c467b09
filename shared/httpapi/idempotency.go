package httpapi

import (
	"bytes"
	"context"
	"fmt"
	"io"
	"net/http"
	"time"

	"github.com/bookplatform/backend/shared/apperr"
	"github.com/bookplatform/backend/shared/callstats"
	"github.com/bookplatform/backend/shared/idempotency"
)

// Idempotency keys (docs/decisions.md, "Idempotency keys"): a client sends
// Idempotency-Key on a POST that creates something; a retry with the
// same key and the same request gets the first answer instead of a second
// resource.

// IdempotencyHeader is the request header, and ReplayedHeader the response
// header that marks a replayed answer.
const (
	IdempotencyHeader = "Idempotency-Key"
	ReplayedHeader    = "Idempotent-Replayed"
)

// Idempotency timings: how long an answer is kept, and how long a request
// holds its key before a retry may take it over (the request is then
// presumed dead: longer than any function's timeout).
const (
	IdempotencyTTL  = 24 * time.Hour
	idempotencyLock = 60 * time.Second
	// maxKeptBody is the largest answer body kept; of a larger one only
	// that it was given is kept (a DynamoDB item holds 400 KB).
	maxKeptBody = 300 << 10
	maxKeyLen   = 255
)

var (
	errKeyReused     = apperr.New(apperr.CodeUnprocessable, "Idempotency-Key was used with another request; use a new key for a new request")
	errKeyInProgress = &apperr.Error{Code: apperr.CodeConflict, Message: "A request with this Idempotency-Key is still being processed; retry shortly", RetryAfter: time.Second}
	errKeyMalformed  = apperr.Validation("Invalid Idempotency-Key", map[string]string{"Idempotency-Key": "must be 1 to 255 printable ASCII characters"})
	// errAnswerTooLarge is a retry of a request that was done but whose
	// answer was over maxKeptBody: it is not run again, and there is
	// nothing to replay.
	errAnswerTooLarge = apperr.Conflict("A request with this Idempotency-Key was already processed; its answer was too large to keep, so it cannot be replayed")
	// errInterrupted is kept for a request whose client went away after
	// it may have changed something: the client got no answer, and a
	// retry must not run it again.
	errInterrupted = apperr.New(apperr.CodeInternal, "The request with this Idempotency-Key was interrupted after it may have taken effect; check whether it did before sending it again with a new key")
)

// serveIdempotent runs an Idempotent route's handler under its
// Idempotency-Key, when the request has one.
//
// The key is scoped to the caller and the route: the user id, or for an
// anonymous request the client's address (addressScope, as the anonymous
// rate limit), so two clients that pick the same key never get each
// other's answer. The request's fingerprint is a keyed hash of its
// method, path and body (idempotency.Sealer), so the same key with
// another body is refused (422) rather than answered with another
// request's result. The first request takes the key before its handler
// runs; a concurrent retry gets 409 with Retry-After.
//
// When the handler is done, its answer is kept, sealed, for
// IdempotencyTTL if the request changed anything or may have: a write
// or outbound call that succeeded, or that failed without proof that it
// changed nothing (a timeout, a 5xx, a reset connection: callstats
// records which failures are refusals). That answer is the one the client
// got, whatever its status, so a retry after an ambiguous failure gets
// the same 500 instead of a second run that might post twice. Only a
// request that changed nothing for certain (a 400, a 404, a refused
// condition, a failure before any write) releases the key, so a retry
// runs it again.
func (rt *Router) serveIdempotent(buf *bufferedWriter, r *http.Request, route *Route, st *reqState) error {
	key := r.Header.Get(IdempotencyHeader)
	if key == "" {
		return rt.runHandler(route, buf, r)
	}
	if !validIdempotencyKey(key) {
		return errKeyMalformed
	}
	body, err := readBody(nil, r)
	if err != nil {
		return err
	}
	r.Body = io.NopCloser(bytes.NewReader(body))
	sealer := idempotency.NewSealer(rt.opts.IdempotencySecrets()...)
	fp := sealer.Fingerprint(r.Method, r.URL.Path, body)
	scope := addressScope(r)
	if st.caller.ID != "" {
		scope = "user:" + st.caller.ID
	}
	recKey := scope + ":" + st.route + "#" + key

	ctx := r.Context()
	store := rt.opts.Idempotency
	now := st.now
	owner := randomID() // this attempt's token
	prev, err := store.Begin(ctx, recKey, idempotency.Record{Fingerprint: fp, Owner: owner, LockedUntil: now.Add(idempotencyLock)}, now, now.Add(IdempotencyTTL))
	switch {
	case err != nil:
		return err
	case prev != nil && !sealer.Matches(prev.Fingerprint, r.Method, r.URL.Path, body):
		return errKeyReused
	case prev != nil && !prev.Done:
		return errKeyInProgress
	case prev != nil:
		return rt.replay(buf, sealer, recKey, prev)
	}

	mark := time.Now() // wall time: call records carry wall times
	herr := rt.runHandler(route, buf, r)
	if herr != nil {
		// Render the error as the client will see it, so a replay shows
		// the same answer.
		rt.writeError(buf, r, herr)
	}
	// The key's own record is kept or released even if the client has
	// gone: a retry depends on it.
	ctx = context.WithoutCancel(ctx)
	if !callstats.From(ctx).ChangedSince(mark, callstats.IsRead) {
		if err := store.Release(ctx, recKey, owner); err != nil {
			rt.opts.Logger.Warn("idempotency: release failed", "requestId", st.requestID, "error", err.Error())
		}
		return nil
	}
	sealed, err := sealer.Seal(recKey, rt.keptAnswer(buf, r))
	if err == nil {
		err = store.Complete(ctx, recKey, idempotency.Record{Fingerprint: fp, Owner: owner, Done: true, Answer: sealed}, now.Add(IdempotencyTTL))
	}
	if err != nil {
		// The request's own work is done: answer it, and let a retry
		// meet the lock (409) until it expires.
		rt.opts.Logger.Warn("idempotency: keeping the answer failed", "requestId", st.requestID, "error", err.Error())
	}
	return nil
}

// keptAnswer is what a retry will be given: the answer in buf, as the
// client got it. A client that went away got none (499): errInterrupted
// is kept instead. An answer whose body is over maxKeptBody is kept as
// TooLarge only, without headers or body: a retry is refused
// (errAnswerTooLarge) rather than run again.
func (rt *Router) keptAnswer(buf *bufferedWriter, r *http.Request) idempotency.Answer {
	if buf.status == StatusClientClosedRequest {
		buf = newBufferedWriter()
		rt.writeError(buf, r, errInterrupted)
	}
	a := idempotency.Answer{Status: buf.status}
	if a.Status == 0 {
		a.Status = http.StatusOK
	}
	if len(buf.body) > maxKeptBody {
		a.TooLarge = true
		return a
	}
	a.Header, a.Body = make(map[string]string, len(buf.header)), buf.body
	for k := range buf.header {
		a.Header[k] = buf.header.Get(k)
	}
	return a
}

// replay answers a retry with the kept answer of prev, marked
// ReplayedHeader.
func (rt *Router) replay(buf *bufferedWriter, sealer *idempotency.Sealer, recKey string, prev *idempotency.Record) error {
	a, err := sealer.Open(recKey, prev.Answer)
	if err != nil {
		return fmt.Errorf("replay idempotency key: %w", err)
	}
	if a.TooLarge {
		return errAnswerTooLarge
	}
	for k, v := range a.Header {
		buf.Header().Set(k, v)
	}
	buf.Header().Set(ReplayedHeader, "true")
	buf.WriteHeader(a.Status)
	_, _ = buf.Write(a.Body)
	return nil
}

// validIdempotencyKey: 1-255 printable ASCII characters (a UUID, or any
// client-generated token).
func validIdempotencyKey(k string) bool {
	if len(k) == 0 || len(k) > maxKeyLen {
		return false
	}
	for i := 0; i < len(k); i++ {
		if k[i] < 0x21 || k[i] > 0x7e {
			return false
		}
	}
	return true
}
