// Package apperr is the service's one error type. Domain packages declare
// their failures as sentinel values of it (users.ErrNotFound,
// likes.ErrAlreadyLiked, ...), storage returns those sentinels wrapped
// with context, and callers test them with errors.Is: no error text is
// ever matched. A Code classifies an error; which HTTP status a code
// becomes is the HTTP adapter's business (shared/httpapi), not this
// package's, so domains import no transport vocabulary.
package apperr

import (
	"errors"
	"fmt"
	"time"
)

// Code classifies an error. The values are the spec's general-form codes,
// plus the ones the spec's status table needs that the general form omits.
type Code string

// Error codes.
const (
	CodeValidation       Code = "VALIDATION_ERROR"                // invalid body or parameters
	CodeBadRequest       Code = "BAD_REQUEST"                     // catalog query and ISBN errors (the spec's BadRequest)
	CodeUnauthorized     Code = "UNAUTHORIZED"                    // no, bad or expired credentials
	CodePaymentRequired  Code = "PAYMENT_REQUIRED"                // a payment failed
	CodeForbidden        Code = "FORBIDDEN"                       // not allowed for this caller
	CodeNotFound         Code = "NOT_FOUND"                       // no such resource
	CodeMethodNotAllowed Code = "METHOD_NOT_ALLOWED"              // the path has no route for the method
	CodeConflict         Code = "CONFLICT"                        // a unique value is taken, or a retry is still running
	CodeRequestTimeout   Code = "REQUEST_TIMEOUT"                 // the body did not arrive in time (local server)
	CodeTooLarge         Code = "PAYLOAD_TOO_LARGE"               // the body is over its limit
	CodeUnsupportedType  Code = "UNSUPPORTED_MEDIA_TYPE"          // the body is not of a type the route reads
	CodeUnprocessable    Code = "UNPROCESSABLE_ENTITY"            // an idempotency key reused with another request
	CodeRateLimited      Code = "RATE_LIMITED"                    // a rate limit is exceeded
	CodeHeadersTooLarge  Code = "REQUEST_HEADER_FIELDS_TOO_LARGE" // the header block is over its limit (local server)
	CodeUnavailable      Code = "SERVICE_UNAVAILABLE"             // contention or a dependency is down: retry later
	CodeInternal         Code = "SERVER_ERROR"                    // anything else; never shows its cause
)

// Error is an application error: its message is safe to show a client.
type Error struct {
	Code    Code
	Message string
	// Details is extra machine-readable information: field errors for
	// validation, the spec's stated body for 429 and the monthly limit.
	Details map[string]any
	// RetryAfter, when set, tells the client when to try again
	// (Retry-After): rate limits, contention.
	RetryAfter time.Duration
}

func (e *Error) Error() string { return fmt.Sprintf("%s: %s", e.Code, e.Message) }

// New returns an error with a code and a formatted message.
func New(code Code, format string, args ...any) *Error {
	return &Error{Code: code, Message: fmt.Sprintf(format, args...)}
}

// WithDetails returns a copy of e carrying details. The copy is another
// value: errors.Is against e's sentinel no longer matches it, so use it
// only on errors built on the spot.
func (e *Error) WithDetails(d map[string]any) *Error {
	c := *e
	c.Details = d
	return &c
}

// Validation returns a 400 ValidationError naming the offending fields.
func Validation(message string, fields map[string]string) *Error {
	e := &Error{Code: CodeValidation, Message: message}
	if len(fields) > 0 {
		e.Details = map[string]any{"fields": fields}
	}
	return e
}

// Shorthands for the common codes.
func NotFound(format string, args ...any) *Error { return New(CodeNotFound, format, args...) }
func Unauthorized(format string, args ...any) *Error {
	return New(CodeUnauthorized, format, args...)
}
func Forbidden(format string, args ...any) *Error { return New(CodeForbidden, format, args...) }
func Conflict(format string, args ...any) *Error  { return New(CodeConflict, format, args...) }

// ErrContention is what storage returns when a write kept losing to
// concurrent writes of the same items after its retries: nothing was
// written, and the client should try again in a moment.
var ErrContention = &Error{Code: CodeUnavailable, Message: "Too many concurrent changes to the same data; retry shortly", RetryAfter: time.Second}

// As returns the *Error inside err, if any.
func As(err error) (*Error, bool) {
	var e *Error
	if errors.As(err, &e) {
		return e, true
	}
	return nil, false
}

// CodeOf returns the code of err, CodeInternal for anything that is not an *Error.
func CodeOf(err error) Code {
	if e, ok := As(err); ok {
		return e.Code
	}
	return CodeInternal
}

// Fields collects the problems of a request by field, so that one answer
// names every bad field. The zero value is ready to use.
type Fields map[string]string

// Add records msg for field unless the field has a problem already (the
// first one found is the one to fix first). An empty msg adds nothing, so
// a validator's result can be added whether or not it found a problem.
func (f *Fields) Add(field, msg string) {
	if msg == "" {
		return
	}
	if *f == nil {
		*f = Fields{}
	}
	if _, ok := (*f)[field]; !ok {
		(*f)[field] = msg
	}
}

// Err returns the 400 ValidationError naming every field added, or nil.
func (f Fields) Err() error {
	if len(f) == 0 {
		return nil
	}
	return Validation("Invalid request", f)
}
