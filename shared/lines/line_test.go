package lines

import (
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
)

func TestCheckPage(t *testing.T) {
	n := func(v int) *int { return &v }
	assert.Empty(t, checkPage(nil))
	assert.Empty(t, checkPage(n(1)))
	assert.Empty(t, checkPage(n(MaxPageNumber)))
	assert.NotEmpty(t, checkPage(n(0)))
	assert.NotEmpty(t, checkPage(n(MaxPageNumber+1)))
}

// Reply ids sort as their times do, differ within one millisecond, and
// are recognised by their form.
func TestReplyIDs(t *testing.T) {
	t0 := time.Date(2026, 3, 2, 9, 0, 0, 0, time.UTC)
	a, b := NewReplyID(t0), NewReplyID(t0)
	later := NewReplyID(t0.Add(time.Millisecond))
	assert.NotEqual(t, a, b)
	assert.Less(t, a[:12], later[:12])
	assert.Less(t, b, later)
	for _, id := range []string{a, b, later} {
		assert.True(t, ValidReplyID(id), id)
	}
	for _, id := range []string{"", "zz" + a[2:], a + "0", strings.ToUpper(a)} {
		assert.False(t, ValidReplyID(id), id)
	}
}
