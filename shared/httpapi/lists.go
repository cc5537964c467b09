package httpapi

import (
	"bytes"
	"encoding/json"
	"strconv"

	"github.com/bookplatform/backend/shared/apperr"
)

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
