package payments_test

import (
	"strings"
	"testing"

	"github.com/bookplatform/backend/shared/payments"
	"github.com/stretchr/testify/assert"
)

// The forms of the provider's ids the routes accept before any call.
func TestValidIDs(t *testing.T) {
	for id, want := range map[string]bool{
		"pi_3Nabc123XYZ":                true,
		"pi_" + strings.Repeat("a", 8):  true,
		"pi_" + strings.Repeat("a", 64): true,
		"pi_" + strings.Repeat("a", 7):  false,
		"pi_" + strings.Repeat("a", 65): false,
		"pi_abc_defgh":                  false,
		"cs_abcdefgh":                   false,
		"pi_abcdefgh\n":                 false,
		"":                              false,
	} {
		assert.Equal(t, want, payments.ValidSessionID(id), "%q", id)
	}
	for id, want := range map[string]bool{
		"cs_test_a1B2c3D4e5":            true,
		"cs_" + strings.Repeat("z", 96): true,
		"cs_" + strings.Repeat("z", 97): false,
		"cs_abcdefgh":                   true,
		"cs_abcdefg":                    false,
		"cs_test-a1B2c3D4":              false,
		"pi_test_a1B2c3D4":              false,
	} {
		assert.Equal(t, want, payments.ValidCheckoutID(id), "%q", id)
	}
}
