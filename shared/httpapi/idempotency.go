package httpapi

import (
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/hex"
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
	// maxKeptBody is the largest answer kept; a larger one is not kept (a
	// DynamoDB item holds 400 KB).
	maxKeptBody = 300 << 10
	maxKeyLen   = 255
)

var (
	errKeyReused     = apperr.New(apperr.CodeUnprocessable, "Idempotency-Key was used with another request; use a new key for a new request")
	errKeyInProgress = &apperr.Error{Code: apperr.CodeConflict, Message: "A request with this Idempotency-Key is still being processed; retry shortly", RetryAfter: time.Second}
	errKeyMalformed  = apperr.Validation("Invalid Idempotency-Key", map[string]string{"Idempotency-Key": "must be 1 to 255 printable ASCII characters"})
)

// serveIdempotent runs an Idempotent route's handler under its
// Idempotency-Key, when the request has one. The key is scoped to the
// caller (user id; for an anonymous request, none) and the route; the
// request's fingerprint is its method, path and body, so the same key
// with another body is refused (422) rather than answered with another
// request's result. The first request takes the key before its handler
// runs; a concurrent retry gets 409 with Retry-After. When the handler is
// done, its answer is kept for IdempotencyTTL if the request changed
// anything (any successful AWS write or outbound call, as callstats
// recorded them), whatever its status; if it changed nothing (a 400, a
// 404, a failure before any write), the key is released so a retry runs
// the request again.
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
	sum := sha256.Sum256(body)
	fp := r.Method + " " + r.URL.Path + " " + hex.EncodeToString(sum[:])
	scope := "anon"
	if st.caller.ID != "" {
		scope = "user:" + st.caller.ID
	}
	scope += ":" + st.route

	ctx := r.Context()
	store := rt.opts.Idempotency
	now := st.now
	owner := randomID() // this attempt's token
	prev, err := store.Begin(ctx, scope+"#"+key, idempotency.Record{Fingerprint: fp, Owner: owner, LockedUntil: now.Add(idempotencyLock)}, now, now.Add(IdempotencyTTL))
	switch {
	case err != nil:
		return err
	case prev != nil && prev.Fingerprint != fp:
		return errKeyReused
	case prev != nil && !prev.Done:
		return errKeyInProgress
	case prev != nil:
		for k, v := range prev.Header {
			buf.Header().Set(k, v)
		}
		buf.Header().Set(ReplayedHeader, "true")
		buf.WriteHeader(prev.Status)
		_, _ = buf.Write(prev.Body)
		return nil
	}

	mark := time.Now() // wall time: call records carry wall times
	herr := rt.runHandler(route, buf, r)
	if herr != nil {
		// Render the error as the client will see it, so a replay shows
		// the same answer.
		rt.writeError(buf, r, herr)
		herr = nil
	}
	// The key's own record is kept or released even if the client has
	// gone: a retry depends on it.
	ctx = context.WithoutCancel(ctx)
	if !callstats.From(ctx).ChangedSince(mark, callstats.IsRead) || len(buf.body) > maxKeptBody {
		if err := store.Release(ctx, scope+"#"+key, owner); err != nil {
			rt.opts.Logger.Warn("idempotency: release failed", "requestId", st.requestID, "error", err.Error())
		}
		return nil
	}
	rec := idempotency.Record{Fingerprint: fp, Owner: owner, Done: true, Status: buf.status, Header: map[string]string{}, Body: buf.body}
	if rec.Status == 0 {
		rec.Status = http.StatusOK
	}
	for k := range buf.header {
		rec.Header[k] = buf.header.Get(k)
	}
	if err := store.Complete(ctx, scope+"#"+key, rec, now.Add(IdempotencyTTL)); err != nil {
		// The request's own work is done: answer it, and let a retry
		// meet the lock (409) until it expires.
		rt.opts.Logger.Warn("idempotency: keeping the answer failed", "requestId", st.requestID, "error", err.Error())
	}
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
