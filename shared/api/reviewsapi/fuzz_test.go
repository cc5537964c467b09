package reviewsapi

import (
	"encoding/json"
	"strconv"
	"strings"
	"testing"

	"github.com/bookplatform/backend/shared/apperr"
)

// A rating is read from any JSON value without a panic: only a JSON
// integer from 1 to 5 is one; anything else is a 400 naming the field.
func FuzzParseRating(f *testing.F) {
	for _, s := range []string{"5", "1", "0", "6", "2.5", "5.0", `"5"`, "null", "", "-1", "1e0", " 3 ", "99999999999999999999"} {
		f.Add(s, true)
		f.Add(s, false)
	}
	f.Fuzz(func(t *testing.T, raw string, required bool) {
		n, err := parseRating(json.RawMessage(raw), required)
		if err != nil {
			if apperr.CodeOf(err) != apperr.CodeValidation {
				t.Fatalf("%q: %v is not a ValidationError", raw, err)
			}
			return
		}
		if n == nil {
			if required || strings.TrimSpace(raw) != "" {
				t.Fatalf("%q (required %v): no rating and no error", raw, required)
			}
			return
		}
		if *n < 1 || *n > 5 {
			t.Fatalf("%q: rating %d", raw, *n)
		}
		if v, err := strconv.Atoi(strings.TrimSpace(raw)); err != nil || v != *n {
			t.Fatalf("%q read as %d", raw, *n)
		}
	})
}
