package linesapi

import (
	"encoding/json"
	"strconv"
	"strings"
	"testing"

	"github.com/bookplatform/backend/shared/apperr"
)

// A page number is read from any JSON value without a panic: absent,
// null, or a whole number written as one; anything else is a 400.
func FuzzParsePage(f *testing.F) {
	for _, s := range []string{"", "null", "12", "0", "-4", "2.5", `"12"`, "1e2", " 7 ", "100001", "99999999999999999999"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, raw string) {
		n, set, err := parsePage(json.RawMessage(raw))
		if err != nil {
			if apperr.CodeOf(err) != apperr.CodeValidation {
				t.Fatalf("%q: %v is not a ValidationError", raw, err)
			}
			return
		}
		s := strings.TrimSpace(raw)
		switch {
		case s == "":
			if set || n != nil {
				t.Fatalf("absent %q read as set", raw)
			}
		case s == "null":
			if !set || n != nil {
				t.Fatalf("null %q read as %v, %v", raw, n, set)
			}
		default:
			if v, err := strconv.Atoi(s); !set || n == nil || err != nil || v != *n {
				t.Fatalf("%q read as %v", raw, n)
			}
		}
	})
}
