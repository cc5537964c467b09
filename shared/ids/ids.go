// Package ids makes and reads the ids of the API. Users, books, lines,
// reviews, wishlists, clubs, challenges and stores carry UUIDs; Parse is
// the one place that decides what counts as one.
package ids

import (
	"strings"

	"github.com/google/uuid"
)

// New returns a new random id (a version 4 UUID in canonical form).
func New() string { return uuid.NewString() }

// Parse returns id in canonical form (lower case) when it is a UUID
// written the canonical way (36 characters, hyphens in place), and false
// otherwise. An id that is not a UUID cannot name anything, so callers
// answer it as they answer an unknown id (404 in a path, 400 in a body),
// without a read.
func Parse(id string) (string, bool) {
	if len(id) != 36 {
		return "", false
	}
	id = strings.ToLower(id)
	if _, err := uuid.Parse(id); err != nil {
		return "", false
	}
	return id, true
}

// Optional reads an optional id field of a body: "" stays "" (not given),
// anything else must be a UUID. ok is false for a value that is not one.
func Optional(id string) (string, bool) {
	if id == "" {
		return "", true
	}
	return Parse(id)
}

// Required reads a required id field of a body: the id in canonical
// form, or "" and the field's message ("is required" when empty, "must be
// a UUID" otherwise).
func Required(id string) (string, string) {
	if id == "" {
		return "", "is required"
	}
	if id, ok := Parse(id); ok {
		return id, ""
	}
	return "", "must be a UUID"
}
