package auth

import (
	"testing"

	"github.com/stretchr/testify/assert"
)

func TestBearerToken(t *testing.T) {
	for h, want := range map[string]string{
		"Bearer abc.def-ghi_jkl": "abc.def-ghi_jkl",
		"bearer abc":             "abc",
		"  Bearer   abc  ":       "abc",
		"Bearer a+b/c~d==":       "a+b/c~d==",
		"Bearer eyJ.eyJ.sig":     "eyJ.eyJ.sig",
	} {
		got, ok := BearerToken(h)
		assert.True(t, ok, "%q", h)
		assert.Equal(t, want, got, "%q", h)
	}
	for _, h := range []string{"", "Bearer", "Bearer ", "Basic abc", "Bearer a b", "Bearer a,b", "Bearer ==", "Bearer =abc", "Bearer abç", "Token abc", "Bearerabc"} {
		_, ok := BearerToken(h)
		assert.False(t, ok, "%q is malformed", h)
	}
}
