// Package reports is the reports domain: a signed-in reader reporting a
// line, a reply, a review or a club with a reason, once per target,
// stored for moderation; and the service behind the reports endpoint
// group. It imports no AWS and no HTTP package; storage is reached
// through Storer. docs/decisions.md ("Reports") records the design.
package reports

import (
	"context"
	"fmt"
	"slices"
	"time"

	"github.com/bookplatform/backend/shared/apperr"
	"github.com/bookplatform/backend/shared/ids"
	"github.com/bookplatform/backend/shared/lines"
	"github.com/bookplatform/backend/shared/text"
)

// TargetType is the kind of thing reported.
type TargetType string

// Target types.
const (
	TargetLine   TargetType = "line"
	TargetReply  TargetType = "reply"
	TargetReview TargetType = "review"
	TargetClub   TargetType = "club"
)

// TargetTypes lists the target types, in the order messages name them.
var TargetTypes = []TargetType{TargetLine, TargetReply, TargetReview, TargetClub}

// Target is what a report is about. A reply is found through its line,
// so LineID is set for a reply and only for one.
type Target struct {
	Type   TargetType
	ID     string
	LineID string
}

// StatusOpen is a report's status until moderation acts on it.
const StatusOpen = "open"

// MaxReasonRunes bounds a report's reason.
const MaxReasonRunes = 1000

// Report is a stored report.
type Report struct {
	ID         string
	ReporterID string
	Target     Target
	Reason     string
	Status     string
	CreatedAt  time.Time
}

// NewReport is a request to report something.
type NewReport struct {
	TargetType string
	TargetID   string
	LineID     string
	Reason     string
}

// Errors of reports.
var (
	// ErrAlreadyReported: one report per reader and target; a second is
	// a 409 (the report exists, nothing in the request is wrong).
	ErrAlreadyReported = apperr.Conflict("You have already reported this")
	// ErrOwnContent: a reader cannot report what they wrote.
	ErrOwnContent = apperr.Validation("You cannot report your own content", map[string]string{"targetId": "is your own"})
)

// Storer is the storage of reports. Implementations return the errors
// named on each method wrapped with context, never (nil, nil).
type Storer interface {
	// CreateReport stores r, once per reporter and target, in one
	// transaction with a check that the target exists and was not written
	// (a club: is not hosted) by the reporter. Errors: the target's
	// not-found error (lines.ErrNotFound, lines.ErrReplyNotFound,
	// reviews.ErrNotFound, clubs.ErrNotFound), ErrOwnContent,
	// ErrAlreadyReported.
	CreateReport(ctx context.Context, r *Report) error
}

// Deps are the service's collaborators.
type Deps struct {
	Store Storer
	Now   func() time.Time
}

// Service implements reports.
type Service struct {
	d Deps
}

// NewService returns the reports service.
func NewService(d Deps) *Service {
	if d.Now == nil {
		d.Now = time.Now
	}
	return &Service{d: d}
}

// Create stores callerID's report of a target. Errors: ValidationError
// (fields, ErrOwnContent), the target's NotFound, ErrAlreadyReported.
func (s *Service) Create(ctx context.Context, callerID string, in NewReport) (*Report, error) {
	var f apperr.Fields
	t := targetOf(&f, in)
	reason, msg := text.Body(in.Reason, MaxReasonRunes)
	f.Add("reason", msg)
	if err := f.Err(); err != nil {
		return nil, err
	}
	r := &Report{
		ID: ids.New(), ReporterID: callerID, Target: t, Reason: reason,
		Status: StatusOpen, CreatedAt: s.d.Now().UTC(),
	}
	if err := s.d.Store.CreateReport(ctx, r); err != nil {
		return nil, fmt.Errorf("report %s %s: %w", t.Type, t.ID, err)
	}
	return r, nil
}

// targetOf reads the target of a request, adding its problems to f. A
// target id of the wrong form is a 400 (a bad field), as a bookId is; a
// well-formed one that names nothing is the target's 404.
func targetOf(f *apperr.Fields, in NewReport) Target {
	t := Target{Type: TargetType(in.TargetType)}
	switch {
	case in.TargetType == "":
		f.Add("targetType", "is required")
	case !slices.Contains(TargetTypes, t.Type):
		f.Add("targetType", "must be one of line, reply, review, club")
	}
	switch {
	case in.TargetID == "":
		f.Add("targetId", "is required")
	case t.Type == TargetReply:
		if lines.ValidReplyID(in.TargetID) {
			t.ID = in.TargetID
		} else {
			f.Add("targetId", "must be a reply id")
		}
	default:
		id, ok := ids.Parse(in.TargetID)
		if !ok {
			f.Add("targetId", "must be a UUID")
		}
		t.ID = id
	}
	if t.Type == TargetReply {
		id, ok := ids.Parse(in.LineID)
		switch {
		case in.LineID == "":
			f.Add("lineId", "is required to report a reply: the id of the reply's line")
		case !ok:
			f.Add("lineId", "must be a UUID")
		}
		t.LineID = id
	}
	return t
}
