package text

import (
	"fmt"
	"strings"
	"unicode/utf8"
)

// Name trims s and checks it as a short name others see (a club's, a
// challenge's): 1 to max characters once trimmed, something visible
// among them, no control characters and no bidi controls (which would
// make it display as another name). It returns the trimmed name, or a
// message for the field.
func Name(s string, max int) (string, string) {
	s = Clean(s)
	switch n := utf8.RuneCountInString(s); {
	case !utf8.ValidString(s):
		return "", "must be valid UTF-8 text"
	case Blank(s):
		return "", "is required"
	case n > max:
		return "", fmt.Sprintf("must be at most %d characters (got %d)", max, n)
	case strings.ContainsFunc(s, IsControl):
		return "", "must not contain control characters"
	case HasBidiControl(s):
		return "", "must not contain bidirectional control characters"
	}
	return s, ""
}

// Prose trims s and checks it as free text (a description, notes): at
// most max characters once trimmed, line breaks and tabs allowed, other
// control characters not. Text that shows nothing is stored as none ("").
func Prose(s string, max int) (string, string) {
	if s = Clean(s); Blank(s) {
		return "", ""
	}
	return freeText(s, max)
}

// Body trims white space around s and checks it as the text a post must
// have (a line's or a note's content, a report's reason): 1 to max
// characters, something visible among them (Blank: only zero-width
// spaces is empty), line breaks and tabs allowed, other control
// characters not. It returns the trimmed text, or a message for the
// field.
func Body(s string, max int) (string, string) {
	if s = strings.TrimSpace(s); Blank(s) {
		return "", "is required"
	}
	return freeText(s, max)
}

// freeText checks trimmed text that shows something (text that is not
// valid UTF-8 never is Blank: it holds U+FFFD) for Prose and Body.
func freeText(s string, max int) (string, string) {
	switch n := utf8.RuneCountInString(s); {
	case !utf8.ValidString(s):
		return "", "must be valid UTF-8 text"
	case n > max:
		return "", fmt.Sprintf("must be at most %d characters (got %d)", max, n)
	}
	for _, r := range s {
		if IsControl(r) && r != '\n' && r != '\r' && r != '\t' {
			return "", "must not contain control characters"
		}
	}
	return s, ""
}

// OptionalNameAndDescription checks the name and description of a
// partial update (clubs, challenges, wishlists; nil is left out and
// stays so) as Name and Prose do: each given one is replaced by a
// cleaned copy, and a problem is reported to add under "name" or
// "description" (apperr.Fields.Add).
func OptionalNameAndDescription(name, description **string, maxName, maxDescription int, add func(field, msg string)) {
	if *name != nil {
		v, msg := Name(**name, maxName)
		add("name", msg)
		*name = &v
	}
	if *description != nil {
		v, msg := Prose(**description, maxDescription)
		add("description", msg)
		*description = &v
	}
}
