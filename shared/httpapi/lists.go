package httpapi

import (
	"bytes"
	"encoding/json"
	"net/http"
	"strconv"

	"github.com/bookplatform/backend/shared/apperr"
	"github.com/bookplatform/backend/shared/page"
)

// ArrayPage reads the query of a list the spec shows as a bare array
// ({ wishlists: [...] }): it still pages, so that no request reads an
// unbounded list, but limit defaults to the largest page (100) rather
// than 20, so one call returns the whole list for all but the longest.
// The body carries nextCursor and hasMore beside the array (ArrayCursor).
// Errors: those of CursorPage.
func ArrayPage(r *http.Request) (page.Cursor, error) {
	c, err := CursorPage(r)
	if err != nil {
		return page.Cursor{}, err
	}
	if !r.URL.Query().Has("limit") {
		c.Limit = page.MaxLimit
	}
	return c, nil
}

// ArrayCursor seals a page's next-page token into the cursor a client
// passes back (nil on the last page) and says whether there is more: the
// nextCursor and hasMore of a list whose items are not under "items".
func ArrayCursor(r *http.Request, next string) (*string, bool) {
	if next == "" {
		return nil, false
	}
	c := sealCursor(state(r).cursorKey, next)
	return &c, true
}

// IntField reads an optional integer field read raw from a body
// (json.RawMessage): absent gives present false; null gives present true
// and a nil value; a whole number written as one (12, not 12.0, "12" or
// 1e1) gives its value. Anything else is a 400 naming field with msg;
// the range is the caller's to check.
func IntField(raw json.RawMessage, field, msg string) (n *int, present bool, err error) {
	raw = bytes.TrimSpace(raw)
	switch string(raw) {
	case "":
		return nil, false, nil
	case "null":
		return nil, true, nil
	}
	v, convErr := strconv.Atoi(string(raw))
	if convErr != nil {
		return nil, true, apperr.Validation("Invalid request", map[string]string{field: msg})
	}
	return &v, true, nil
}
