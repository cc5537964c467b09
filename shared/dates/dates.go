// Package dates reads the date-only strings of the API: club-book and
// challenge start and end dates are calendar days written YYYY-MM-DD
// (spec: Conventions, Timestamps). Such strings compare as the days they
// name, so storage can order them and conditions can compare them as
// text.
package dates

import "time"

// Layout is the one form a date-only string takes.
const Layout = "2006-01-02"

// Valid reports whether s is a real calendar day written YYYY-MM-DD:
// "2026-02-30", "2026-2-3" and "2026-02-03T00:00:00Z" are not.
func Valid(s string) bool {
	t, err := time.Parse(Layout, s)
	return err == nil && t.Format(Layout) == s
}

// Message is what a field error says of a value that is not Valid.
const Message = "must be a date written YYYY-MM-DD"

// CheckOrder returns a message for the end field when both days are
// given and end comes before start, "" otherwise. A one-day period
// (start equal to end) is allowed.
func CheckOrder(start, end string) string {
	if start != "" && end != "" && end < start {
		return "must not be before startDate"
	}
	return ""
}
