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
}
