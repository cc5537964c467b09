// Package text holds the rules every piece of user-written text follows:
// what counts as empty, which characters may not appear in a name, and
// how much of a client's input an error message may quote.
package text

import (
	"fmt"
	"strings"
	"unicode"
	"unicode/utf8"
)

// Blank reports whether s shows nothing: every character is white space,
// an invisible format character (zero-width spaces and joiners, bidi
// controls, the byte-order mark, soft hyphens: Unicode category Cf) or
// one of the fillers that render as blank (Hangul fillers, the blank
// Braille pattern). Such text counts as empty wherever text is required.
func Blank(s string) bool {
	for _, r := range s {
		if !invisible(r) {
			return false
		}
	}
	return true
}

// Clean trims white space and invisible characters from both ends of s,
// and gives "" for text that is blank. Characters inside the text stay:
// a zero-width joiner inside an emoji sequence is part of it.
func Clean(s string) string {
	return strings.TrimFunc(s, invisible)
}

func invisible(r rune) bool {
	switch r {
	case '\u115f', '\u1160', '\u3164', '\uffa0', '\u2800':
		return true
	}
	return unicode.IsSpace(r) || unicode.Is(unicode.Cf, r)
}

// IsBidiControl reports whether r changes the direction of the text
// around it (embeddings, overrides, isolates and the directional marks):
// in a name they make "\u202enimda" display as "admin".
func IsBidiControl(r rune) bool {
	switch {
	case r == '\u061c', r == '\u200e', r == '\u200f':
		return true
	case r >= '\u202a' && r <= '\u202e':
		return true
	case r >= '\u2066' && r <= '\u2069':
		return true
	}
	return false
}

// HasBidiControl reports whether s contains a bidi control character.
func HasBidiControl(s string) bool {
	return strings.ContainsFunc(s, IsBidiControl)
}

// IsControl reports whether r is a C0 or C1 control character or DEL.
func IsControl(r rune) bool {
	return r < 0x20 || (r >= 0x7f && r <= 0x9f)
}

// MaxQuoted is how many characters of a client's input an error message
// quotes.
const MaxQuoted = 40

// Quote gives s in double quotes for an error message, cut to its first
// MaxQuoted characters with an ellipsis when longer, and with invalid
// UTF-8, controls and bidi controls escaped, so that a 10,000-character
// path segment gives a short message that displays as it reads.
func Quote(s string) string {
	return `"` + Prefix(s) + `"`
}

// Prefix is Quote without the quotes, for a value that is short and
// plain in every sane request (an HTTP method).
func Prefix(s string) string {
	var b strings.Builder
	for n := 0; len(s) > 0; n++ {
		if n == MaxQuoted {
			b.WriteString("…")
			break
		}
		r, size := utf8.DecodeRuneInString(s)
		s = s[size:]
		switch {
		case r == utf8.RuneError && size == 1: // not UTF-8
			b.WriteString(`\ufffd`)
		case r == '"' || r == '\\':
			b.WriteByte('\\')
			b.WriteRune(r)
		case IsControl(r) || unicode.Is(unicode.Cf, r):
			b.WriteString(escapeRune(r))
		default:
			b.WriteRune(r)
		}
	}
	return b.String()
}

func escapeRune(r rune) string {
	if r > 0xffff {
		return fmt.Sprintf(`\U%08x`, r)
	}
	return fmt.Sprintf(`\u%04x`, r)
}
