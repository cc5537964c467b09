// Package apperr is the service's one error type. Domain and storage code
// return *Error values with a fixed Code; the HTTP layer maps each code to a
// status and a spec name through the single table in this package.
package apperr

import (
	"errors"
	"fmt"
	"net/http"
)

// Code classifies an error. The values are the spec's general-form codes,
// plus the ones the spec's status table needs that the general form omits.
type Code string

// Error codes.
const (
	CodeValidation       Code = "VALIDATION_ERROR"   // 400 ValidationError
	CodeBadRequest       Code = "BAD_REQUEST"        // 400 BadRequest (catalog query and ISBN errors)
	CodeUnauthorized     Code = "UNAUTHORIZED"       // 401 Unauthorized
	CodePaymentRequired  Code = "PAYMENT_REQUIRED"   // 402 PaymentRequired
	CodeForbidden        Code = "FORBIDDEN"          // 403 Forbidden
	CodeNotFound         Code = "NOT_FOUND"          // 404 NotFound
	CodeMethodNotAllowed Code = "METHOD_NOT_ALLOWED" // 405 MethodNotAllowed
	CodeConflict         Code = "CONFLICT"           // 409 Conflict
	CodeTooLarge         Code = "PAYLOAD_TOO_LARGE"  // 413 PayloadTooLarge
	CodeRateLimited      Code = "RATE_LIMITED"       // 429 TooManyRequests
	CodeInternal         Code = "SERVER_ERROR"       // 500 InternalServerError
)

type statusName struct {
	status int
	name   string
}

// table is the one place that maps codes to HTTP statuses and spec names.
var table = map[Code]statusName{
	CodeValidation:       {http.StatusBadRequest, "ValidationError"},
	CodeBadRequest:       {http.StatusBadRequest, "BadRequest"},
	CodeUnauthorized:     {http.StatusUnauthorized, "Unauthorized"},
	CodePaymentRequired:  {http.StatusPaymentRequired, "PaymentRequired"},
	CodeForbidden:        {http.StatusForbidden, "Forbidden"},
	CodeNotFound:         {http.StatusNotFound, "NotFound"},
	CodeMethodNotAllowed: {http.StatusMethodNotAllowed, "MethodNotAllowed"},
	CodeConflict:         {http.StatusConflict, "Conflict"},
	CodeTooLarge:         {http.StatusRequestEntityTooLarge, "PayloadTooLarge"},
	CodeRateLimited:      {http.StatusTooManyRequests, "TooManyRequests"},
	CodeInternal:         {http.StatusInternalServerError, "InternalServerError"},
}

// Status returns the HTTP status for a code (500 for an unknown one).
func (c Code) Status() int {
	if sn, ok := table[c]; ok {
		return sn.status
	}
	return http.StatusInternalServerError
}

// Name returns the spec's error name for a code.
func (c Code) Name() string {
	if sn, ok := table[c]; ok {
		return sn.name
	}
	return "InternalServerError"
}

// Error is an application error: safe to show to the client.
type Error struct {
	Code    Code
	Message string
	// Details is extra machine-readable information: field errors for
	// validation, the spec's stated body for 429 and the monthly limit.
	Details map[string]any
}

func (e *Error) Error() string { return fmt.Sprintf("%s: %s", e.Code, e.Message) }

// New returns an error with a code and a formatted message.
func New(code Code, format string, args ...any) *Error {
	return &Error{Code: code, Message: fmt.Sprintf(format, args...)}
}

// WithDetails returns a copy of e carrying details.
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

// Is reports whether err carries the given code.
func Is(err error, code Code) bool { return err != nil && CodeOf(err) == code }
