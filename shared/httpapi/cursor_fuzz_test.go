package httpapi

import (
	"bytes"
	"testing"
)

var fuzzCursorKey = bytes.Repeat([]byte{7}, 32)

// A cursor opens only if this service sealed it: any other text, however
// close to a real cursor, is refused without a panic. And every token
// sealed opens back to itself.
func FuzzOpenCursor(f *testing.F) {
	const sealedToken = `{"l":"GSI1|BOOK#1|LINE#|desc","k":{"PK":"LINE#1"}}`
	real := sealCursor(fuzzCursorKey, sealedToken)
	f.Add(real, "")
	f.Add(real[:len(real)-1], "x")
	f.Add("x"+real[1:], `{"l":"a"}`)
	f.Add("", "token")
	f.Add("%%%", "\x00")
	f.Add("abc.def", "LINE#2")
	f.Fuzz(func(t *testing.T, cursor, token string) {
		// (Each fuzzing process seals the seed with its own nonce: what
		// opens must be a sealing of the seed's token.)
		if got, ok := openCursor([][]byte{fuzzCursorKey}, cursor); ok && got != sealedToken {
			t.Fatalf("a cursor this service did not seal opened: %q -> %q", cursor, got)
		}
		if token == "" {
			return
		}
		sealed := sealCursor(fuzzCursorKey, token)
		got, ok := openCursor([][]byte{fuzzCursorKey}, sealed)
		if !ok || got != token {
			t.Fatalf("sealed %q opened as %q, %v", token, got, ok)
		}
		if _, ok := openCursor([][]byte{bytes.Repeat([]byte{8}, 32)}, sealed); ok {
			t.Fatal("a cursor opened under another key")
		}
	})
}
