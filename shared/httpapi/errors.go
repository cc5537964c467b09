package httpapi

import (
	"context"
	"errors"
	"log/slog"
	"net/http"
	"strconv"
	"time"

	"github.com/bookplatform/backend/shared/apperr"
)

// status is what one error code becomes on the wire.
type status struct {
	code int
	name string // the spec's error name
}

// statuses is the one place that maps error codes to HTTP statuses and
// the spec's names (docs/decisions.md, "Error envelope").
var statuses = map[apperr.Code]status{
	apperr.CodeValidation:       {http.StatusBadRequest, "ValidationError"},
	apperr.CodeBadRequest:       {http.StatusBadRequest, "BadRequest"},
	apperr.CodeUnauthorized:     {http.StatusUnauthorized, "Unauthorized"},
	apperr.CodePaymentRequired:  {http.StatusPaymentRequired, "PaymentRequired"},
	apperr.CodeForbidden:        {http.StatusForbidden, "Forbidden"},
	apperr.CodeNotFound:         {http.StatusNotFound, "NotFound"},
	apperr.CodeMethodNotAllowed: {http.StatusMethodNotAllowed, "MethodNotAllowed"},
	apperr.CodeConflict:         {http.StatusConflict, "Conflict"},
	apperr.CodeRequestTimeout:   {http.StatusRequestTimeout, "RequestTimeout"},
	apperr.CodeTooLarge:         {http.StatusRequestEntityTooLarge, "PayloadTooLarge"},
	apperr.CodeUnsupportedType:  {http.StatusUnsupportedMediaType, "UnsupportedMediaType"},
	apperr.CodeUnprocessable:    {http.StatusUnprocessableEntity, "UnprocessableEntity"},
	apperr.CodeRateLimited:      {http.StatusTooManyRequests, "TooManyRequests"},
	apperr.CodeHeadersTooLarge:  {http.StatusRequestHeaderFieldsTooLarge, "RequestHeaderFieldsTooLarge"},
	apperr.CodeUnavailable:      {http.StatusServiceUnavailable, "ServiceUnavailable"},
	apperr.CodeInternal:         {http.StatusInternalServerError, "InternalServerError"},
}

// StatusOf returns the HTTP status and the spec's name of an error code
// (500 InternalServerError for an unknown one).
func StatusOf(code apperr.Code) (int, string) {
	if s, ok := statuses[code]; ok {
		return s.code, s.name
	}
	return http.StatusInternalServerError, "InternalServerError"
}

// Codes lists every error code the API answers, for the API reference.
func Codes() map[apperr.Code]int {
	out := make(map[apperr.Code]int, len(statuses))
	for c, s := range statuses {
		out[c] = s.code
	}
	return out
}

// ErrorBody is the one error envelope (docs/decisions.md, "Error envelope").
type ErrorBody struct {
	Error ErrorObject `json:"error"`
}

// ErrorObject is the inside of the envelope.
type ErrorObject struct {
	Code      apperr.Code    `json:"code"`
	Name      string         `json:"name"`
	Message   string         `json:"message"`
	Details   map[string]any `json:"details,omitempty"`
	RequestID string         `json:"requestId"`
}

// writeError writes err in the envelope. Anything that is not an
// *apperr.Error is logged with the request id and shown as a generic 500.
func (rt *Router) writeError(w http.ResponseWriter, r *http.Request, err error) {
	WriteError(w, r, rt.opts.Logger, err)
}

// WriteError writes err in the envelope; for use outside the router (the
// Lambda authorizer, the local media server). An error that carries a
// RetryAfter sets Retry-After (whole seconds, rounded up).
//
// Two failures are the request's, not the service's: a client that went
// away (its request's context canceled) gets status 499 in the access
// log, without a body nobody reads and without an error log line; a
// request past its deadline is a 503 with Retry-After.
func WriteError(w http.ResponseWriter, r *http.Request, logger *slog.Logger, err error) {
	if ClientGone(r, err) {
		w.WriteHeader(StatusClientClosedRequest)
		return
	}
	e, ok := apperr.As(err)
	switch {
	case !ok && errors.Is(err, context.DeadlineExceeded):
		logger.Warn("request timed out", "requestId", RequestID(r), "error", err.Error())
		e = &apperr.Error{Code: apperr.CodeUnavailable, Message: "The request did not finish in time; retry shortly", RetryAfter: time.Second}
	case !ok:
		logger.Error("internal error", "requestId", RequestID(r), "error", err.Error())
		e = apperr.New(apperr.CodeInternal, "Internal server error")
	case (e.Code == apperr.CodeInternal || e.Code == apperr.CodeUnavailable) && err != error(e):
		// A failure of the service, with its cause; an answer built as
		// itself (the local server's start-up 503) has nothing to add.
		logger.Warn("request failed", "requestId", RequestID(r), "code", string(e.Code), "error", err.Error())
	}
	if e.RetryAfter > 0 {
		w.Header().Set("Retry-After", strconv.FormatInt(int64((e.RetryAfter+time.Second-1)/time.Second), 10))
	}
	code, name := StatusOf(e.Code)
	_ = JSON(w, code, ErrorBody{Error: ErrorObject{
		Code: e.Code, Name: name, Message: e.Message, Details: e.Details, RequestID: RequestID(r),
	}})
}

// StatusClientClosedRequest is the status the access log gives a request
// whose client went away before its answer (nginx's 499); no client ever
// receives it.
const StatusClientClosedRequest = 499

// ClientGone reports whether err comes of the client having gone away:
// the request's context was canceled (net/http cancels it when the
// connection closes) and err is that cancellation.
func ClientGone(r *http.Request, err error) bool {
	return errors.Is(r.Context().Err(), context.Canceled) && errors.Is(err, context.Canceled)
}
