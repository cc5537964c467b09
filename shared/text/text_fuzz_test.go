package text

import (
	"strings"
	"testing"
	"unicode/utf8"
)

// Quote takes any bytes and gives a short, valid UTF-8 quotation in which
// nothing invisible or direction-changing is left raw.
func FuzzQuote(f *testing.F) {
	for _, s := range []string{"", "978-0", strings.Repeat("9", 100), "\u202enimda", "a\x00b\xff", "\U000e0001", "\"\\", "👩\u200d💻"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		q := Quote(s)
		if !utf8.ValidString(q) {
			t.Fatalf("%q quotes as invalid UTF-8 %q", s, q)
		}
		if utf8.RuneCountInString(q) > MaxQuoted*10+3 {
			t.Fatalf("%q quotes as %d characters", s, utf8.RuneCountInString(q))
		}
		for _, r := range q {
			if IsControl(r) || IsBidiControl(r) {
				t.Fatalf("%q quotes with %U raw: %q", s, r, q)
			}
		}
		if Blank(s) != (strings.TrimFunc(s, invisible) == "") {
			t.Fatalf("%q: Blank and Clean disagree", s)
		}
	})
}
