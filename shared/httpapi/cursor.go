package httpapi

import (
	"crypto/aes"
	"crypto/cipher"
	"crypto/rand"
	"encoding/base64"
	"net/http"
	"strconv"

	"github.com/bookplatform/backend/shared/apperr"
	"github.com/bookplatform/backend/shared/page"
)

// CursorPage reads a cursor list's query: limit (an integer 1-100,
// default 20) and cursor, opened back into the storage's token. Errors:
// ValidationError for a bad limit, page.ErrInvalidCursor for a cursor
// this service did not issue or that was altered. Storage checks that the
// token belongs to the list it is used with.
func CursorPage(r *http.Request) (page.Cursor, error) { return cursorPage(r, page.DefaultLimit) }

// ArrayPage reads the query of a list the spec shows as a bare array
// ({clubs: [...]}, {members: [...], total}): such a list pages all the
// same, so that no request reads an unbounded number of items. limit is
// 1-100 as on cursor lists, but defaults to 100, so a client that never
// pages sees as much as one page gives; the answer carries More beside
// its array.
func ArrayPage(r *http.Request) (page.Cursor, error) { return cursorPage(r, page.MaxLimit) }

func cursorPage(r *http.Request, def int) (page.Cursor, error) {
	q := r.URL.Query()
	c := page.Cursor{Limit: def}
	if q.Has("limit") {
		n, err := strconv.Atoi(q.Get("limit"))
		if err != nil || n < 1 || n > page.MaxLimit {
			return page.Cursor{}, apperr.Validation("limit must be an integer from 1 to 100", map[string]string{"limit": "must be an integer from 1 to 100"})
		}
		c.Limit = n
	}
	if v := q.Get("cursor"); v != "" {
		token, ok := openCursor(cursorKeys(r), v)
		if !ok {
			return page.Cursor{}, page.ErrInvalidCursor
		}
		c.After = token
	}
	return c, nil
}

// CursorBody is the JSON of every cursor list: the items, the cursor of
// the next page (null on the last) and hasMore (nextCursor is not null).
// The spec shows hasMore on replies; every list carries it, so one client
// loop serves them all.
type CursorBody[T any] struct {
	Items      []T     `json:"items"`
	NextCursor *string `json:"nextCursor"`
	HasMore    bool    `json:"hasMore"`
}

// NewCursorBody converts a page into its body, converting each item with
// f and sealing the next page's token into an opaque cursor.
func NewCursorBody[T, U any](r *http.Request, p page.Page[T], f func(T) U) CursorBody[U] {
	b := CursorBody[U]{Items: page.Map(p, f).Items}
	if p.Next != "" {
		c := sealCursor(cursorKeys(r)[0], p.Next)
		b.NextCursor, b.HasMore = &c, true
	}
	return b
}

// More is what a bare-array list (ArrayPage) answers beside its array:
// the cursor of the next page (null on the last) and whether there is
// one. Embed it in the list's body.
type More struct {
	NextCursor *string `json:"nextCursor"`
	HasMore    bool    `json:"hasMore"`
}

// NewMore seals a page's next token into More.
func NewMore(r *http.Request, next string) More {
	if next == "" {
		return More{}
	}
	c := sealCursor(cursorKeys(r)[0], next)
	return More{NextCursor: &c, HasMore: true}
}

// Cursors are the storage's next-page tokens (the list they belong to and
// a position in it), encrypted and authenticated with AES-256-GCM under a
// key derived from the JWT signing key: a client can neither read the
// table keys in them nor alter one without the cursor becoming invalid.
// A cursor opens under any key the router holds (the keys derived from
// the previous and next signing keys too), so paging through a list
// survives a key rotation.

// cursorKeys are the cursor keys the request's router holds, at least
// one (a zero key when it has none).
func cursorKeys(r *http.Request) [][]byte {
	var keys [][]byte
	if f := state(r).cursorKeys; f != nil {
		keys = f()
	}
	if len(keys) == 0 {
		keys = [][]byte{nil}
	}
	return keys
}

func sealCursor(key []byte, token string) string {
	aead := cursorAEAD(key)
	nonce := make([]byte, aead.NonceSize())
	_, _ = rand.Read(nonce)
	return base64.RawURLEncoding.EncodeToString(aead.Seal(nonce, nonce, []byte(token), nil))
}

// openCursor opens a cursor sealed under any of keys.
func openCursor(keys [][]byte, cursor string) (string, bool) {
	raw, err := base64.RawURLEncoding.DecodeString(cursor)
	if err != nil {
		return "", false
	}
	for _, key := range keys {
		aead := cursorAEAD(key)
		if len(raw) < aead.NonceSize()+aead.Overhead() {
			return "", false
		}
		token, err := aead.Open(nil, raw[:aead.NonceSize()], raw[aead.NonceSize():], nil)
		if err == nil && len(token) > 0 {
			return string(token), true
		}
	}
	return "", false
}

// cursorAEAD is AES-256-GCM under key, which is 32 bytes (app derives it
// from a JWT key); a router without a key seals with a zero key,
// which only tests of the router itself use.
func cursorAEAD(key []byte) cipher.AEAD {
	k := make([]byte, 32)
	copy(k, key)
	block, err := aes.NewCipher(k)
	if err != nil {
		panic("httpapi: cursor key: " + err.Error())
	}
	aead, err := cipher.NewGCM(block)
	if err != nil {
		panic("httpapi: cursor cipher: " + err.Error())
	}
	return aead
}

// OffsetLimits are an offset list's bounds: its default and largest
// limit, and the code of a bad value (ValidationError when zero; the
// catalog's search answers BadRequest, as the spec names it there).
type OffsetLimits struct {
	Default, Max int
	Code         apperr.Code
}

// OffsetPage reads an offset list's query: limit (1 to Max, default
// Default) and offset (0 or more, default 0).
func OffsetPage(r *http.Request, l OffsetLimits) (page.Offset, error) {
	code := l.Code
	if code == "" {
		code = apperr.CodeValidation
	}
	q := r.URL.Query()
	o := page.Offset{Limit: l.Default}
	if q.Has("limit") {
		n, err := strconv.Atoi(q.Get("limit"))
		if err != nil || n < 1 || n > l.Max {
			msg := "must be an integer from 1 to " + strconv.Itoa(l.Max)
			return page.Offset{}, &apperr.Error{Code: code, Message: "limit " + msg, Details: map[string]any{"fields": map[string]string{"limit": msg}}}
		}
		o.Limit = n
	}
	if q.Has("offset") {
		n, err := strconv.Atoi(q.Get("offset"))
		if err != nil || n < 0 || n > page.MaxOffset {
			msg := "must be an integer from 0 to " + strconv.Itoa(page.MaxOffset)
			return page.Offset{}, &apperr.Error{Code: code, Message: "offset " + msg, Details: map[string]any{"fields": map[string]string{"offset": msg}}}
		}
		o.Offset = n
	}
	return o, nil
}

// OffsetMeta is what an offset list answers beside its items (embed it
// in the list's body).
type OffsetMeta struct {
	Total  int `json:"total"`
	Limit  int `json:"limit"`
	Offset int `json:"offset"`
}

// NewOffsetMeta is the meta of a page read with o that has total items in all.
func NewOffsetMeta(o page.Offset, total int) OffsetMeta {
	return OffsetMeta{Total: total, Limit: o.Limit, Offset: o.Offset}
}
