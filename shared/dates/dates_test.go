package dates

import (
	"testing"

	"github.com/stretchr/testify/assert"
)

func TestValid(t *testing.T) {
	for s, want := range map[string]bool{
		"2026-03-02": true, "2024-02-29": true, "0001-01-01": true,
		"2026-02-30": false, "2025-02-29": false, "2026-2-3": false, "2026-02-03T00:00:00Z": false,
		"": false, "20260302": false, "2026/03/02": false, " 2026-03-02": false, "2026-13-01": false,
	} {
		assert.Equal(t, want, Valid(s), s)
	}
}

func TestCheckOrder(t *testing.T) {
	assert.Empty(t, CheckOrder("2026-03-02", "2026-03-02"), "one day")
	assert.Empty(t, CheckOrder("2026-03-02", "2026-04-01"))
	assert.NotEmpty(t, CheckOrder("2026-03-02", "2026-03-01"))
	assert.Empty(t, CheckOrder("2026-12-31", "2027-01-01"), "across a year")
	assert.Empty(t, CheckOrder("", "2026-03-01"), "one side unknown")
}
