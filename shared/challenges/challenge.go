// Package challenges is the reading-challenge domain: a challenge is a
// goal (a number of books to finish) over a period (start and end
// dates), hosted by a reader or a store; readers join it, record how many
// books they finished and are ranked by it. It imports no AWS and no
// HTTP package; storage is reached through Storer, stores through
// storehost.Directory. The spec names only the base path and the listing
// fields: docs/decisions.md ("Challenges") records the design.
package challenges

import (
	"errors"
	"time"

	"github.com/bookplatform/backend/shared/apperr"
	"github.com/bookplatform/backend/shared/dates"
	"github.com/bookplatform/backend/shared/text"
)

// Limits of a challenge (the spec shows none).
const (
	MaxNameRunes        = 100
	MaxDescriptionRunes = 2000
	MaxGoal             = 10000  // books
	MaxProgress         = 100000 // books finished; more than the goal is allowed
)

// Challenge is a stored challenge.
type Challenge struct {
	ID               string
	Name             string
	Description      string
	Goal             int    // books to finish
	StartDate        string // YYYY-MM-DD
	EndDate          string // YYYY-MM-DD, not before StartDate
	ParticipantCount int
	HostID           string // the creator; it never changes
	StoreID          string // "" when not hosted by a store
	CreatedAt        time.Time
	UpdatedAt        time.Time
}

// Participant is one reader's part in a challenge.
type Participant struct {
	ChallengeID string
	UserID      string
	Progress    int // books finished
	JoinedAt    time.Time
	UpdatedAt   time.Time // the last change of Progress (JoinedAt before any)
}

// Completed reports whether p has reached the goal.
func (p *Participant) Completed(goal int) bool { return p.Progress >= goal }

// NewChallenge is a request to create a challenge.
type NewChallenge struct {
	Name        string
	Description string
	Goal        *int // required
	StartDate   string
	EndDate     string
	StoreID     string // "" for none
}

// UpdateChallenge is a change of a challenge by its host; nil fields stay. The
// period stays in order: a date changed alone is checked against the
// stored other one.
type UpdateChallenge struct {
	Name        *string
	Description *string
	Goal        *int
	StartDate   *string
	EndDate     *string
}

// Errors of challenges. Storage returns them wrapped with context.
var (
	ErrNotFound            = apperr.NotFound("Challenge not found")
	ErrParticipantNotFound = apperr.NotFound("Participant not found")
	ErrNotHost             = apperr.Forbidden("Only the challenge's host can do this")
	ErrTier                = apperr.Forbidden("Your account's tier cannot create challenges: upgrade to premium")
	// ErrParticipantsOnly refuses a line posted in a challenge by a
	// reader who has not joined it.
	ErrParticipantsOnly   = apperr.Forbidden("Only participants of this challenge can post in it")
	ErrJoinFirst          = apperr.Forbidden("Join the challenge to record progress in it")
	ErrAlreadyParticipant = apperr.Validation("Already taking part in this challenge", nil)
	ErrNotParticipant     = apperr.Validation("Not taking part in this challenge", nil)
	ErrHostCannotLeave    = apperr.Validation("The host cannot leave the challenge", nil)
	ErrDateOrder          = apperr.Validation("Invalid request", map[string]string{"endDate": "must not be before startDate"})
)

// ErrChanged is a challenge that changed between its read and a write
// conditional on what was read (deleted, or let go by its store's
// deletion); the service reads again.
var ErrChanged = errors.New("challenge changed since it was read")

// checkNew validates a new challenge's fields, returning it cleaned and
// the problems by field.
func checkNew(in NewChallenge) (NewChallenge, apperr.Fields) {
	var f apperr.Fields
	var msg string
	in.Name, msg = text.Name(in.Name, MaxNameRunes)
	f.Add("name", msg)
	in.Description, msg = text.Prose(in.Description, MaxDescriptionRunes)
	f.Add("description", msg)
	if in.Goal == nil {
		f.Add("goal", "is required")
	} else {
		f.Add("goal", checkGoal(*in.Goal))
	}
	f.Add("startDate", requiredDate(in.StartDate))
	f.Add("endDate", requiredDate(in.EndDate))
	if f["startDate"] == "" && f["endDate"] == "" {
		f.Add("endDate", dates.CheckOrder(in.StartDate, in.EndDate))
	}
	return in, f
}

// checkEdit validates an edit, returning it cleaned.
func checkEdit(e UpdateChallenge) (UpdateChallenge, error) {
	var f apperr.Fields
	text.OptionalNameAndDescription(&e.Name, &e.Description, MaxNameRunes, MaxDescriptionRunes, f.Add)
	if e.Goal != nil {
		f.Add("goal", checkGoal(*e.Goal))
	}
	if e.StartDate != nil {
		f.Add("startDate", requiredDate(*e.StartDate))
	}
	if e.EndDate != nil {
		f.Add("endDate", requiredDate(*e.EndDate))
	}
	if e.StartDate != nil && e.EndDate != nil && f["startDate"] == "" && f["endDate"] == "" {
		f.Add("endDate", dates.CheckOrder(*e.StartDate, *e.EndDate))
	}
	return e, f.Err()
}

func checkGoal(n int) string {
	if n < 1 || n > MaxGoal {
		return "must be an integer from 1 to 10000"
	}
	return ""
}

func requiredDate(s string) string {
	switch {
	case s == "":
		return "is required"
	case !dates.Valid(s):
		return dates.Message
	}
	return ""
}

// CheckProgress returns a message when n is not a number of books
// finished.
func CheckProgress(n int) string {
	if n < 0 || n > MaxProgress {
		return "must be an integer from 0 to 100000"
	}
	return ""
}
