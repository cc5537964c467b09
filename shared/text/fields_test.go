package text

import (
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
)

func TestName(t *testing.T) {
	got, msg := Name("  Tuesday Readers \u200b", 30)
	assert.Equal(t, "Tuesday Readers", got)
	assert.Empty(t, msg)
	for in, want := range map[string]string{
		"":                      "is required",
		" \u200b\u3164 ":        "is required",
		strings.Repeat("a", 31): "must be at most 30 characters (got 31)",
		"tab\there":             "must not contain control characters",
		"club \u202enimda":      "must not contain bidirectional control characters",
	} {
		_, msg := Name(in, 30)
		assert.Equal(t, want, msg, "%q", in)
	}
	got, msg = Name("Лекторий ✨ 读书会", 30)
	assert.Equal(t, "Лекторий ✨ 读书会", got, "letters of every script, emoji")
	assert.Empty(t, msg)
}

func TestProse(t *testing.T) {
	got, msg := Prose("  Two lines\nand a\ttab.  ", 100)
	assert.Equal(t, "Two lines\nand a\ttab.", got)
	assert.Empty(t, msg)
	got, msg = Prose("\u200b \n", 100)
	assert.Empty(t, got, "blank is none")
	assert.Empty(t, msg)
	_, msg = Prose(strings.Repeat("é", 101), 100)
	assert.Equal(t, "must be at most 100 characters (got 101)", msg)
	_, msg = Prose("bell\a", 100)
	assert.Equal(t, "must not contain control characters", msg)
	_, msg = Prose(" \xff ", 100)
	assert.Equal(t, "must be valid UTF-8 text", msg, "not blank: shows U+FFFD")
}

func TestBody(t *testing.T) {
	cases := []struct {
		name, in, want, msg string
	}{
		{"trimmed", "  a line \n", "a line", ""},
		{"line breaks and tabs kept", "one\n\ttwo", "one\n\ttwo", ""},
		{"empty", "   ", "", "is required"},
		{"only zero-width spaces", "\u200b\u200b", "", "is required"},
		{"exactly max characters", strings.Repeat("é", 500), strings.Repeat("é", 500), ""},
		{"one over max", strings.Repeat("a", 501), "", "must be at most 500 characters (got 501)"},
		{"control character", "bell\a", "", "must not contain control characters"},
		{"delete character", "del\x7f", "", "must not contain control characters"},
		{"invalid UTF-8", "ab\xff", "", "must be valid UTF-8 text"},
		{"only invalid UTF-8", " \xff ", "", "must be valid UTF-8 text"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			got, msg := Body(c.in, 500)
			assert.Equal(t, c.msg, msg)
			assert.Equal(t, c.want, got)
		})
	}
}

// A partial update's name and description: left out stays left out,
// given ones are cleaned copies (the caller's strings untouched), and
// problems are reported by field.
func TestOptionalNameAndDescription(t *testing.T) {
	got := map[string]string{}
	add := func(field, msg string) {
		if msg != "" {
			got[field] = msg
		}
	}
	var name, desc *string
	OptionalNameAndDescription(&name, &desc, 10, 20, add)
	assert.Nil(t, name)
	assert.Nil(t, desc)
	assert.Empty(t, got)

	n, d := "  Club  ", "  about  "
	name, desc = &n, &d
	OptionalNameAndDescription(&name, &desc, 10, 20, add)
	assert.Equal(t, "Club", *name)
	assert.Equal(t, "  Club  ", n, "the caller's string is not changed")
	assert.Empty(t, got)
	_, wantDesc := Prose(d, 20)
	assert.Empty(t, wantDesc)

	long, blank := "a name far too long", "   "
	name, desc = &blank, &long
	OptionalNameAndDescription(&name, &desc, 10, 5, add)
	assert.Contains(t, got, "name")
	assert.Contains(t, got, "description")
}
