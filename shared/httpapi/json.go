package httpapi

import (
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"net/http"
	"strings"

	"github.com/bookplatform/backend/shared/apperr"
)

// JSON writes v with the given status.
func JSON(w http.ResponseWriter, status int, v any) error {
	w.Header().Set("Content-Type", "application/json; charset=utf-8")
	w.WriteHeader(status)
	return json.NewEncoder(w).Encode(v)
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
// Lambda authorizer, the local media server).
func WriteError(w http.ResponseWriter, r *http.Request, logger *slog.Logger, err error) {
	e, ok := apperr.As(err)
	if !ok {
		logger.Error("internal error", "requestId", RequestID(r), "error", err.Error())
		e = apperr.New(apperr.CodeInternal, "Internal server error")
	}
	_ = JSON(w, e.Code.Status(), ErrorBody{Error: ErrorObject{
		Code: e.Code, Name: e.Code.Name(), Message: e.Message, Details: e.Details, RequestID: RequestID(r),
	}})
}

// Decode reads a JSON object body into dst, within the body size limit. An
// empty body decodes as {}. Malformed JSON, a wrong type or trailing data
// is a 400 ValidationError naming the problem; an oversized body is 413.
func Decode(w http.ResponseWriter, r *http.Request, dst any) error {
	limit := state(r).maxBody
	body := http.MaxBytesReader(w, r.Body, limit)
	data, err := io.ReadAll(body)
	if err != nil {
		var mbe *http.MaxBytesError
		if errors.As(err, &mbe) {
			return apperr.New(apperr.CodeTooLarge, "Request body exceeds %d bytes", limit)
		}
		return apperr.Validation("Could not read request body", nil)
	}
	if len(strings.TrimSpace(string(data))) == 0 {
		data = []byte("{}")
	}
	dec := json.NewDecoder(strings.NewReader(string(data)))
	dec.UseNumber()
	if err := dec.Decode(dst); err != nil {
		return decodeError(err)
	}
	if dec.More() {
		return apperr.Validation("Request body must be a single JSON object", nil)
	}
	return nil
}

func decodeError(err error) error {
	var typeErr *json.UnmarshalTypeError
	var syntaxErr *json.SyntaxError
	switch {
	case errors.As(err, &typeErr):
		field := typeErr.Field
		if field == "" {
			return apperr.Validation(fmt.Sprintf("Request body must be a JSON object, not %s", typeErr.Value), nil)
		}
		return apperr.Validation(fmt.Sprintf("Field '%s' must be %s, not %s", field, jsonKind(typeErr.Type.Kind().String()), typeErr.Value),
			map[string]string{field: "must be " + jsonKind(typeErr.Type.Kind().String())})
	case errors.As(err, &syntaxErr), errors.Is(err, io.ErrUnexpectedEOF):
		return apperr.Validation("Malformed JSON body", nil)
	default:
		return apperr.Validation("Malformed JSON body: "+err.Error(), nil)
	}
}

func jsonKind(goKind string) string {
	switch goKind {
	case "string":
		return "a string"
	case "bool":
		return "a boolean"
	case "int", "int8", "int16", "int32", "int64", "uint", "uint8", "uint16", "uint32", "uint64", "float32", "float64":
		return "a number"
	case "slice", "array":
		return "an array"
	case "map", "struct":
		return "an object"
	default:
		return "of another type"
	}
}

// Success is the { success, message } body of the spec.
type Success struct {
	Success bool   `json:"success"`
	Message string `json:"message,omitempty"`
}
