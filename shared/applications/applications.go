// Package applications is how a reader becomes a bookstore: the reader
// applies (the would-be store's name, address, website and a note), an
// operator approves or declines the application from the back office's
// queue with a reason, approval gives the account the bookstore tier
// (which POST /v1/stores requires), and the applicant is told by email.
//
// An account has at most one open (pending) application: the storage
// keeps one item per account beside the applications, the account's
// latest application, and a new one is put only if that item is absent
// or decided, in the same transaction as the application itself, so two
// concurrent applications cannot both be open. A decision is one
// transaction too: the application and the account's latest copy
// change from pending (so it is decided once), an approval sets the
// tier, the decision's event goes to the outbox (DecidedEvent: the
// applicant's email), and the operator's audit entry rides it
// (shared/audit).
//
// The package imports no AWS and no HTTP package; storage is Storer.
package applications

import (
	"context"
	"time"

	"github.com/bookplatform/backend/shared/apperr"
	"github.com/bookplatform/backend/shared/events"
	"github.com/bookplatform/backend/shared/page"
	"github.com/bookplatform/backend/shared/stores"
	"github.com/bookplatform/backend/shared/users"
)

// Status is where an application stands.
type Status string

// Statuses: pending until an operator approves or declines it; a decided
// application never changes again.
const (
	Pending  Status = "pending"
	Approved Status = "approved"
	Declined Status = "declined"
)

// Valid reports whether s is one of the statuses.
func (s Status) Valid() bool { return s == Pending || s == Approved || s == Declined }

// Application is one bookstore application.
type Application struct {
	ID     string
	UserID string
	// Username and Email are the applicant's when they applied: what the
	// operators' queue shows without reading every account.
	Username, Email string
	StoreName       string
	Address         stores.Address
	Website         string // "" when none
	Note            string // "" when none
	Status          Status
	// Reason is the operator's reason for the decision ("" when an
	// approval gave none); DecidedBy the operator; DecidedAt when (nil
	// while pending).
	Reason    string
	DecidedBy string
	DecidedAt *time.Time
	CreatedAt time.Time
}

// Limits of an application's free text.
const (
	MaxNoteLen   = 2000
	MaxReasonLen = 1000
)

// Storer is the applications' storage. Implementations return the
// errors named on each method wrapped with context.
type Storer interface {
	// Create stores a new application as the account's latest, unless
	// the account's latest is still pending. Errors: ErrOpen.
	Create(ctx context.Context, a *Application) error
	// Get reads an application by id. Errors: ErrNotFound.
	Get(ctx context.Context, id string) (*Application, error)
	// Latest reads the account's latest application. Errors: ErrNone.
	Latest(ctx context.Context, userID string) (*Application, error)
	// List pages the applications of a status: pending ones oldest first
	// (the queue is worked from its head), decided ones newest decision
	// first.
	List(ctx context.Context, status Status, c page.Cursor) (page.Page[*Application], error)
	// Decide records d's decision (its Status, Reason, DecidedBy,
	// DecidedAt) if the application is still pending, in one
	// transaction with ev in the outbox and, for an approval, the
	// account's tier set to bookstore if it is still from, the tier its
	// caller read. Errors: ErrDecided (decided meanwhile),
	// users.ErrChanged (an approval of an account whose tier changed
	// since the read, or that no longer exists).
	Decide(ctx context.Context, d *Application, from users.Tier, ev events.Event) error
}

// Errors of applications.
var (
	ErrNotFound = apperr.NotFound("Bookstore application not found")
	// ErrNone: the account never applied.
	ErrNone = apperr.NotFound("The account has no bookstore application")
	// ErrOpen: the account's latest application is still pending.
	ErrOpen = apperr.Conflict("The account already has a pending bookstore application; wait for its decision")
	// ErrAlreadyBookstore: the account has the bookstore tier already.
	ErrAlreadyBookstore = apperr.Conflict("The account already has the bookstore tier: create the store with POST /v1/stores")
	// ErrGuest: a guest account (no email to answer to) applied.
	ErrGuest = apperr.Validation("Guest accounts cannot apply; sign up with POST /v1/auth/migrate-guest first", nil)
	// ErrDecided: the application was approved or declined already.
	ErrDecided = apperr.Conflict("The bookstore application has been decided already")
	// ErrApplicantGone: the applicant's account no longer exists.
	ErrApplicantGone = apperr.NotFound("The applicant's account no longer exists")
)
