package csvimport

import (
	"errors"
	"fmt"
	"strings"

	"github.com/bookplatform/backend/shared/inventory"
)

// MaxCents bounds a price or a cost, as the inventory bounds them
// (1,000,000.00 in currency units).
const MaxCents = inventory.MaxPriceCents

// maxUnitDigits is how many digits the whole-units part may have before
// the amount is certainly over MaxCents (and still far from overflowing).
const maxUnitDigits = 9

// ParseCents reads an amount in decimal currency units, as the import
// file gives price and cost ("12.99", "12.9", "12", "0.5"), and returns it
// in cents exactly: the digits are read as digits, never through a float,
// so 12.99 is 1299 and never 1298. Surrounding spaces are ignored.
// Refused, each with a reason a person can act on: an empty value, a
// sign (a negative amount is no price), more than two decimals (no
// rounding is guessed), anything but digits and one point (currency
// symbols, thousands separators, exponents), and amounts over MaxCents.
func ParseCents(s string) (int, error) {
	s = strings.TrimSpace(s)
	if s == "" {
		return 0, errors.New("is empty")
	}
	if s[0] == '-' {
		return 0, errors.New("is negative")
	}
	units, frac, hasPoint := strings.Cut(s, ".")
	switch {
	case units == "" && frac == "":
		return 0, errors.New("is not a decimal amount such as 12.99")
	case !allDigits(units) || !allDigits(frac):
		return 0, errors.New("is not a decimal amount such as 12.99 (digits and one decimal point only, no currency symbol or separators)")
	case hasPoint && frac == "":
		return 0, errors.New("has a decimal point without decimals")
	case len(frac) > 2:
		return 0, errors.New("has more than two decimals")
	}
	units = strings.TrimLeft(units, "0")
	if len(units) > maxUnitDigits {
		return 0, errors.New("is too large")
	}
	cents := 0
	for _, c := range units {
		cents = cents*10 + int(c-'0')
	}
	cents *= 100
	switch len(frac) {
	case 1:
		cents += int(frac[0]-'0') * 10
	case 2:
		cents += int(frac[0]-'0')*10 + int(frac[1]-'0')
	}
	if cents > MaxCents {
		return 0, fmt.Errorf("is more than %d.%02d", MaxCents/100, MaxCents%100)
	}
	return cents, nil
}

// allDigits reports whether s holds ASCII digits only ("" does).
func allDigits(s string) bool {
	for i := 0; i < len(s); i++ {
		if s[i] < '0' || s[i] > '9' {
			return false
		}
	}
	return true
}
