// Package reports is the reports domain: a signed-in reader reporting a
// line, a reply, a review or a club with a reason, once per target,
// stored for moderation; and the service behind the reports endpoint
// group. It imports no AWS and no HTTP package; storage is reached
// through Storer. docs/decisions.md ("Reports") records the design.
package reports

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"time"

	"github.com/bookplatform/backend/shared/apperr"
	"github.com/bookplatform/backend/shared/clubs"
	"github.com/bookplatform/backend/shared/ids"
	"github.com/bookplatform/backend/shared/lines"
	"github.com/bookplatform/backend/shared/page"
	"github.com/bookplatform/backend/shared/text"
	"golang.org/x/sync/errgroup"
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
	// ListTakenDown reads a page of authorID's content that operators
	// took down, most recent first. Errors: page.ErrInvalidCursor.
	ListTakenDown(ctx context.Context, authorID string, c page.Cursor) (page.Page[TakenDown], error)
}

// TakenDown is content of its author's that an operator took down from
// a report: what it was, why and when. Its author reads their own.
type TakenDown struct {
	Target  Target
	BookID  string // a line's or a review's book
	Content string // the text (a club: its name)
	Reason  string
	At      time.Time
}

// Lines applies the lines domain's own visibility rule to a line
// (lines.Service.Readable). Errors: lines.ErrNotFound, clubs.ErrPrivate.
type Lines interface {
	Readable(ctx context.Context, viewerID, id string) error
}

// Clubs reads a club and a reader's membership of it, for clubs.CanRead.
// Errors: clubs.ErrNotFound, clubs.ErrMemberNotFound.
type Clubs interface {
	GetClub(ctx context.Context, id string) (*clubs.Club, error)
	GetMember(ctx context.Context, clubID, userID string) (*clubs.Member, error)
}

// Deps are the service's collaborators: the store, and the owners of the
// targets that some readers may not see (a private club and its lines).
type Deps struct {
	Store Storer
	Lines Lines
	Clubs Clubs
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

// TakenDown reads a page of callerID's own content that operators took
// down, most recent first. Errors: page.ErrInvalidCursor.
func (s *Service) TakenDown(ctx context.Context, callerID string, c page.Cursor) (page.Page[TakenDown], error) {
	return s.d.Store.ListTakenDown(ctx, callerID, c)
}

// Create stores callerID's report of a target. A target the caller may
// not see is answered as missing (visible). Errors: ValidationError
// (fields, ErrOwnContent), the target's NotFound, ErrAlreadyReported.
func (s *Service) Create(ctx context.Context, callerID string, in NewReport) (*Report, error) {
	var f apperr.Fields
	t := targetOf(&f, in)
	reason, msg := text.Body(in.Reason, MaxReasonRunes)
	f.Add("reason", msg)
	if err := f.Err(); err != nil {
		return nil, err
	}
	if err := s.visible(ctx, callerID, t); err != nil {
		return nil, fmt.Errorf("report %s %s: %w", t.Type, t.ID, err)
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

// visible checks that readerID may see the target, by the rule of the
// domain that owns it: a line (and a reply, through its line) by the
// lines domain's (a private club's line is its members'), a club by
// clubs.CanRead. A review is public. A target the reader may not see is
// the target's not-found error, the 404 of an unknown id, and nothing is
// stored: a 201 (or a 400 "your own", a 409) would confirm that a
// private club's line exists to someone its every other endpoint refuses
// (docs/decisions.md, "Reports"). The check reads before the report's
// transaction, so a membership ended between the two still lets the
// report through; it confirms nothing the reader could not see a moment
// before. Errors: lines.ErrNotFound, lines.ErrReplyNotFound,
// clubs.ErrNotFound.
func (s *Service) visible(ctx context.Context, readerID string, t Target) error {
	switch t.Type {
	case TargetLine, TargetReply:
		lineID, notFound := t.ID, lines.ErrNotFound
		if t.Type == TargetReply {
			lineID, notFound = t.LineID, lines.ErrReplyNotFound
		}
		err := s.d.Lines.Readable(ctx, readerID, lineID)
		if errors.Is(err, lines.ErrNotFound) || errors.Is(err, clubs.ErrPrivate) || errors.Is(err, clubs.ErrSignInRequired) {
			return notFound
		}
		return err
	case TargetClub:
		var (
			c *clubs.Club
			m *clubs.Member
			g errgroup.Group
		)
		g.Go(func() (err error) { c, err = s.d.Clubs.GetClub(ctx, t.ID); return err })
		g.Go(func() (err error) {
			m, err = s.d.Clubs.GetMember(ctx, t.ID, readerID)
			if errors.Is(err, clubs.ErrMemberNotFound) {
				m, err = nil, nil
			}
			return err
		})
		if err := g.Wait(); err != nil {
			return err
		}
		if clubs.CanRead(c, m, readerID) != nil {
			return clubs.ErrNotFound
		}
	}
	return nil
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
