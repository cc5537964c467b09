package httpapi

import (
	"crypto/hmac"
	"crypto/sha256"
	"encoding/base64"
	"net/http"
	"strconv"
	"strings"

	"github.com/bookplatform/backend/shared/apperr"
)

// Cursor-list limits (spec: Limits, "Cursor lists limit").
const (
	DefaultCursorLimit = 20
	MaxCursorLimit     = 100
)

var errInvalidCursor = apperr.Validation("Invalid cursor", map[string]string{"cursor": "is malformed, altered or from another list"})

// CursorPage reads a cursor list's query: limit (an integer 1-100, default
// 20) and cursor. The cursor must have been issued by NextCursor for the
// same scope (the list and its owner, e.g. "book-lines:"+bookID): it is
// sealed with the router's key, so an altered cursor, or one from another
// list, is a 400 rather than a page of something else. after is the
// storage's opaque token, "" for the first page.
func CursorPage(r *http.Request, scope string) (limit int, after string, err error) {
	q := r.URL.Query()
	limit = DefaultCursorLimit
	if v := q.Get("limit"); v != "" {
		n, err := strconv.Atoi(v)
		if err != nil || n < 1 || n > MaxCursorLimit {
			return 0, "", apperr.Validation("limit must be an integer from 1 to 100", map[string]string{"limit": "must be an integer from 1 to 100"})
		}
		limit = n
	}
	c := q.Get("cursor")
	if c == "" {
		return limit, "", nil
	}
	payload, mac, ok := strings.Cut(c, ".")
	if !ok {
		return 0, "", errInvalidCursor
	}
	token, err := base64.RawURLEncoding.DecodeString(payload)
	if err != nil || token == nil {
		return 0, "", errInvalidCursor
	}
	got, err := base64.RawURLEncoding.DecodeString(mac)
	if err != nil || !hmac.Equal(got, cursorMAC(state(r).cursorKey, scope, token)) {
		return 0, "", errInvalidCursor
	}
	return limit, string(token), nil
}

// NextCursor seals the storage's next-page token for scope; nil (JSON
// null) when there is no next page.
func NextCursor(r *http.Request, scope, token string) *string {
	if token == "" {
		return nil
	}
	c := base64.RawURLEncoding.EncodeToString([]byte(token)) + "." +
		base64.RawURLEncoding.EncodeToString(cursorMAC(state(r).cursorKey, scope, []byte(token)))
	return &c
}

func cursorMAC(key []byte, scope string, token []byte) []byte {
	m := hmac.New(sha256.New, key)
	m.Write([]byte(scope))
	m.Write([]byte{0})
	m.Write(token)
	return m.Sum(nil)[:16]
}
