package text

import (
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
)

func TestBlank(t *testing.T) {
	for _, s := range []string{"", " \t\n", "\u200b", "\u200b\u200c\u200d\ufeff", "\u202e\u2066", "\u00ad", "\u3164", "\u2800 "} {
		assert.True(t, Blank(s), "%q shows nothing", s)
		assert.Equal(t, "", Clean(s), "%q cleans to nothing", s)
	}
	for _, s := range []string{"a", "\u200ba", "👍", "\u0301", "—"} {
		assert.False(t, Blank(s), "%q shows something", s)
	}
	assert.Equal(t, "a\u200db", Clean("\u200b a\u200db \u2066"), "only the ends are trimmed")
	assert.Equal(t, "👩\u200d💻", Clean(" 👩\u200d💻 "), "a joiner inside an emoji stays")
}

func TestHasBidiControl(t *testing.T) {
	for _, s := range []string{"\u202eadmin", "a\u2066b", "x\u200f", "\u061c"} {
		assert.True(t, HasBidiControl(s), "%q", s)
	}
	for _, s := range []string{"admin", "שלום", "مرحبا", "a\u200db"} {
		assert.False(t, HasBidiControl(s), "%q: right-to-left letters are no controls", s)
	}
}

func TestQuote(t *testing.T) {
	assert.Equal(t, `"978-0"`, Quote("978-0"))
	long := strings.Repeat("9", 10000)
	q := Quote(long)
	assert.Equal(t, `"`+strings.Repeat("9", MaxQuoted)+`…"`, q)
	assert.Equal(t, `"a\"b\\c"`, Quote(`a"b\c`))
	assert.Equal(t, `"\u202enimda"`, Quote("\u202enimda"), "a bidi override cannot turn the message around")
	assert.Equal(t, `"a\u0000b\ufffd"`, Quote("a\x00b\xff"), "controls and bytes that are not UTF-8 are escaped")
	assert.Equal(t, `"\U000e0001"`, Quote("\U000e0001"))
	assert.Equal(t, `"ünïcödé"`, Quote("ünïcödé"))
}
