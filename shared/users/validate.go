package users

import (
	"net/mail"
	"strings"
	"unicode/utf8"

	"github.com/bookplatform/backend/shared/text"
)

// Field limits. The spec sets the password minimum and the display-name
// range (Form B); the rest are ours (docs/decisions.md, "Usernames").
const (
	MinPasswordLen    = 8
	MaxPasswordBytes  = 72 // bcrypt ignores anything longer
	MaxDisplayNameLen = 100
	MaxBioLen         = 500
	MaxEmailLen       = 254
	MinUsernameLen    = 3
	MaxUsernameLen    = 30
	GuestPrefix       = "guest_"
	GuestDisplayName  = "Guest"
)

var usernameRE = text.NewPattern(`^[A-Za-z][A-Za-z0-9_]*$`)

// reserved usernames collide with literal path segments (/users/me/...,
// /users/username/...) or would mislead other readers.
var reserved = map[string]bool{
	"me": true, "username": true, "admin": true, "administrator": true,
	"support": true, "system": true, "root": true, "moderator": true, "staff": true,
}

// ValidateUsername checks a chosen (non-guest) username: 3-30 characters,
// letters, digits and underscores, starting with a letter, not reserved and
// not in the guest_ namespace.
func ValidateUsername(u string) string {
	switch {
	case u == "":
		return "is required"
	case len(u) < MinUsernameLen || len(u) > MaxUsernameLen:
		return "must be 3 to 30 characters"
	case !usernameRE.MatchString(u):
		return "may contain only letters, digits and underscores, and must start with a letter"
	case reserved[strings.ToLower(u)]:
		return "is reserved"
	case strings.HasPrefix(strings.ToLower(u), GuestPrefix):
		return "may not start with guest_"
	}
	return ""
}

// NormalizeEmail trims and lower-cases an email; uniqueness is
// case-insensitive and the stored form is the lower-cased one.
func NormalizeEmail(e string) string { return strings.ToLower(strings.TrimSpace(e)) }

// ValidateEmail checks a normalized email: a bare address, no display name.
func ValidateEmail(e string) string {
	if e == "" {
		return "is required"
	}
	if len(e) > MaxEmailLen {
		return "must be at most 254 characters"
	}
	a, err := mail.ParseAddress(e)
	if err != nil || a.Address != e || !strings.Contains(e[strings.LastIndex(e, "@")+1:], ".") {
		return "must be a valid email address"
	}
	return ""
}

// ValidatePassword checks a new password.
func ValidatePassword(p string) string {
	switch {
	case p == "":
		return "is required"
	case utf8.RuneCountInString(p) < MinPasswordLen:
		return "must be at least 8 characters"
	case len(p) > MaxPasswordBytes:
		return "must be at most 72 bytes"
	}
	return ""
}

// ValidateDisplayName checks a trimmed display name: 1-100 characters,
// something visible among them (text.Blank), no control characters and
// no bidi controls, which would let "\u202enimda" display as "admin".
// Right-to-left letters are welcome.
func ValidateDisplayName(n string) string {
	switch {
	case text.Blank(n):
		return "must not be empty"
	case utf8.RuneCountInString(n) > MaxDisplayNameLen:
		return "must be at most 100 characters"
	case strings.ContainsFunc(n, text.IsControl):
		return "must not contain control characters"
	case text.HasBidiControl(n):
		return "must not contain bidi control characters"
	}
	return ""
}

// ValidateBio checks a bio: at most 500 characters.
func ValidateBio(b string) string {
	if utf8.RuneCountInString(b) > MaxBioLen {
		return "must be at most 500 characters"
	}
	return ""
}
