package books

import (
	"testing"
	"unicode/utf8"

	"github.com/bookplatform/backend/shared/apperr"
)

// NormalizeISBN takes any text: it never panics; what it accepts is a
// 13-digit ISBN with a right check digit, which it accepts again as is
// (and its ISBN-10 form, when there is one, gives it back); what it
// refuses is a 400 whose message quotes a short prefix of the input.
func FuzzNormalizeISBN(f *testing.F) {
	for _, s := range []string{"978-0-306-40615-7", "0306406152", "0-306-40615-2", "080442957X", "979-10-90636-07-1",
		"978030640615", "97803064O6157", "", "ISBN 978 0 306 40615 7", "９７８０３０６４０６１５７", "\xff\xfe"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, in string) {
		isbn13, isbn10, err := NormalizeISBN(in)
		if err != nil {
			if apperr.CodeOf(err) != apperr.CodeBadRequest {
				t.Fatalf("%q: error %v is not a BadRequest", in, err)
			}
			if e, _ := apperr.As(err); len(e.Message) > 400 || !utf8.ValidString(e.Message) {
				t.Fatalf("%q: message of %d bytes (valid UTF-8: %v)", in, len(e.Message), utf8.ValidString(e.Message))
			}
			return
		}
		if len(isbn13) != 13 {
			t.Fatalf("%q: isbn13 %q", in, isbn13)
		}
		again, _, err := NormalizeISBN(isbn13)
		if err != nil || again != isbn13 {
			t.Fatalf("%q: %q normalizes to %q, %v", in, isbn13, again, err)
		}
		if isbn10 != "" {
			from10, _, err := NormalizeISBN(isbn10)
			if err != nil || from10 != isbn13 {
				t.Fatalf("%q: ISBN-10 %q gives %q, %v; want %q", in, isbn10, from10, err, isbn13)
			}
		}
	})
}
