package httpapi

import (
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"strings"

	"github.com/bookplatform/backend/shared/apperr"
	"github.com/bookplatform/backend/shared/likes"
)

// JSON writes v with the given status.
func JSON(w http.ResponseWriter, status int, v any) error {
	w.Header().Set("Content-Type", "application/json; charset=utf-8")
	w.WriteHeader(status)
	return json.NewEncoder(w).Encode(v)
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

// Liked is the body of every like and unlike (spec: { success,
// likeCount, isLiked }).
type Liked struct {
	Success   bool `json:"success"`
	LikeCount int  `json:"likeCount"`
	IsLiked   bool `json:"isLiked"`
}

// NewLiked is the body of a like or unlike's result.
func NewLiked(r likes.Result) Liked {
	return Liked{Success: true, LikeCount: r.LikeCount, IsLiked: r.IsLiked}
}
