package ids

import (
	"testing"

	"github.com/stretchr/testify/assert"
)

func TestParse(t *testing.T) {
	cases := []struct {
		in, want string
		ok       bool
	}{
		{"0b1e6a8e-5d3c-4f7a-9a43-2f9c1b0d7e11", "0b1e6a8e-5d3c-4f7a-9a43-2f9c1b0d7e11", true},
		{"0B1E6A8E-5D3C-4F7A-9A43-2F9C1B0D7E11", "0b1e6a8e-5d3c-4f7a-9a43-2f9c1b0d7e11", true},
		{"0b1e6a8e5d3c4f7a9a432f9c1b0d7e11", "", false},       // no hyphens: another spelling of an id
		{"{0b1e6a8e-5d3c-4f7a-9a43-2f9c1b0d7e11}", "", false}, // braces
		{"urn:uuid:0b1e6a8e-5d3c-4f7a-9a43-2f9c1b0d7e11", "", false},
		{"0b1e6a8e-5d3c-4f7a-9a43-2f9c1b0d7e1g", "", false},
		{"", "", false},
		{"me", "", false},
	}
	for _, c := range cases {
		got, ok := Parse(c.in)
		assert.Equal(t, c.ok, ok, c.in)
		assert.Equal(t, c.want, got, c.in)
	}
}

func TestOptional(t *testing.T) {
	got, ok := Optional("")
	assert.True(t, ok)
	assert.Empty(t, got)
	_, ok = Optional("nope")
	assert.False(t, ok)
	got, ok = Optional("0B1E6A8E-5D3C-4F7A-9A43-2F9C1B0D7E11")
	assert.True(t, ok)
	assert.Equal(t, "0b1e6a8e-5d3c-4f7a-9a43-2f9c1b0d7e11", got)
}

func TestNewParses(t *testing.T) {
	id := New()
	got, ok := Parse(id)
	assert.True(t, ok)
	assert.Equal(t, id, got)
	assert.NotEqual(t, id, New())
}

func TestRequired(t *testing.T) {
	got, msg := Required("")
	assert.Equal(t, "is required", msg)
	assert.Empty(t, got)
	got, msg = Required("nope")
	assert.Equal(t, "must be a UUID", msg)
	assert.Empty(t, got)
	got, msg = Required("0B1E6A8E-5D3C-4F7A-9A43-2F9C1B0D7E11")
	assert.Empty(t, msg)
	assert.Equal(t, "0b1e6a8e-5d3c-4f7a-9a43-2f9c1b0d7e11", got)
}
