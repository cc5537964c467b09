// Package clubs is the book-club domain: clubs with a host, moderators
// and members, their reading list (club books), who may see a private
// club, and the service behind the clubs endpoint group. It imports no
// AWS and no HTTP package; storage is reached through Storer, stores
// through storehost.Directory. docs/decisions.md ("Clubs") records the
// choices the spec leaves open.
package clubs

import (
	"time"

	"github.com/bookplatform/backend/shared/apperr"
	"github.com/bookplatform/backend/shared/dates"
	"github.com/bookplatform/backend/shared/text"
)

// Limits of what a club holds (the spec shows none).
const (
	MaxNameRunes        = 100
	MaxDescriptionRunes = 2000
	MaxNotesRunes       = 1000
	// MaxBooks is the longest reading list: the single-club view carries
	// the whole list, so it stays one bounded read.
	MaxBooks = 100
)

// Role is a member's place in a club (spec: Club membership role).
type Role string

// Roles.
const (
	RoleHost      Role = "host"
	RoleModerator Role = "moderator"
	RoleMember    Role = "member"
)

// ManagesBooks reports whether the role may add, change and remove club
// books and add members: the host and moderators.
func (r Role) ManagesBooks() bool { return r == RoleHost || r == RoleModerator }

// BookStatus is where a club is with a book (spec: Club book status).
type BookStatus string

// Statuses.
const (
	StatusUpcoming  BookStatus = "upcoming"
	StatusCurrent   BookStatus = "current"
	StatusCompleted BookStatus = "completed"
)

// Valid reports whether s is a known status.
func (s BookStatus) Valid() bool {
	return s == StatusUpcoming || s == StatusCurrent || s == StatusCompleted
}

// Club is a stored club.
type Club struct {
	ID          string
	Name        string
	Description string
	IsPublic    bool
	HostID      string // the creator; a club's host never changes
	StoreID     string // "" when the club is not hosted by a store
	MemberCount int
	BookCount   int
	CreatedAt   time.Time
	UpdatedAt   time.Time
}

// Member is one account's membership of a club.
type Member struct {
	ClubID    string
	UserID    string
	Role      Role
	JoinedAt  time.Time
	UpdatedAt time.Time
}

// Book is a book on a club's reading list. Its id (the club-book id of
// the paths) is its book's id: a book is on a list at most once.
type Book struct {
	ClubID    string
	BookID    string
	Status    BookStatus
	StartDate string // YYYY-MM-DD, "" when not set
	EndDate   string // YYYY-MM-DD, "" when not set
	Notes     string
	AddedAt   time.Time
	UpdatedAt time.Time
}

// Scope selects clubs by who hosts them (GET /clubs?scope=).
type Scope string

// Scopes.
const (
	ScopeAll   Scope = "all"   // every club
	ScopeStore Scope = "store" // clubs hosted by a store (one store's with a store id)
	ScopeUser  Scope = "user"  // clubs hosted by a reader, not a store
)

// Filter is what GET /clubs lists: a scope, optionally one store's
// clubs, optionally only public or only private ones.
type Filter struct {
	Scope   Scope
	StoreID string // with ScopeStore: that store's clubs
	Public  *bool  // nil: both
}

// NewClub is a request to create a club.
type NewClub struct {
	Name        string
	Description string
	IsPublic    bool
	StoreID     string // "" for none
}

// UpdateClub is a change of a club by its host; nil fields stay.
type UpdateClub struct {
	Name        *string
	Description *string
	IsPublic    *bool
}

// NewBook is a request to put a book on a club's reading list.
type NewBook struct {
	BookID    string
	Status    string
	StartDate string // "" for none
	EndDate   string
	Notes     string
}

// UpdateBook is a change of a club book: nil fields stay; a date field set
// (SetStart, SetEnd) to "" clears the date.
type UpdateBook struct {
	Status    *string
	Notes     *string
	SetStart  bool
	StartDate string
	SetEnd    bool
	EndDate   string
}

// Errors of clubs. Storage returns them wrapped with context.
var (
	ErrNotFound       = apperr.NotFound("Club not found")
	ErrMemberNotFound = apperr.NotFound("Member not found")
	ErrBookNotFound   = apperr.NotFound("Club book not found")
	// A private club is seen by its members only: without a token that
	// is 401 (sign in first), with one 403.
	ErrSignInRequired = apperr.Unauthorized("This club is private: sign in as one of its members to see it")
	ErrPrivate        = apperr.Forbidden("This club is private: only its members can see it")
	ErrNotHost        = apperr.Forbidden("Only the club's host can do this")
	ErrNotManager     = apperr.Forbidden("Only the club's host or a moderator can do this")
	ErrTier           = apperr.Forbidden("Your account's tier cannot create clubs: upgrade to premium")
	ErrPrivateJoin    = apperr.Forbidden("This club is private: its host or a moderator adds members")
	// ErrMembersOnly refuses a line posted in a club by a non-member.
	ErrMembersOnly       = apperr.Forbidden("Only members of this club can post in it")
	ErrAlreadyMember     = apperr.Validation("Already a member of this club", nil)
	ErrUserAlreadyMember = apperr.Validation("This user is already a member of the club", nil)
	ErrNotMember         = apperr.Validation("Not a member of this club", nil)
	ErrHostCannotLeave   = apperr.Validation("The host cannot leave the club", nil)
	ErrHostRole          = apperr.Validation("The host's role cannot change", nil)
	ErrBookOnList        = apperr.Validation("This book is already on the club's reading list", nil)
	ErrListFull          = apperr.Validation("The club's reading list is full", map[string]string{"bookId": "a reading list holds at most 100 books"})
	ErrDateOrder         = apperr.Validation("Invalid request", map[string]string{"endDate": "must not be before startDate"})
)

// CanRead is the one visibility rule of a club, its members and its
// lines: a public club is seen by anyone; a private one by its members
// only (m is viewerID's membership, nil when none; viewerID is "" for an
// anonymous caller). Errors: ErrSignInRequired, ErrPrivate.
func CanRead(c *Club, m *Member, viewerID string) error {
	switch {
	case c.IsPublic || m != nil:
		return nil
	case viewerID == "":
		return ErrSignInRequired
	default:
		return ErrPrivate
	}
}

// checkNew validates a new club's text, returning it cleaned and the
// problems by field.
func checkNew(in NewClub) (NewClub, apperr.Fields) {
	var f apperr.Fields
	var msg string
	in.Name, msg = text.Name(in.Name, MaxNameRunes)
	f.Add("name", msg)
	in.Description, msg = text.Prose(in.Description, MaxDescriptionRunes)
	f.Add("description", msg)
	return in, f
}

// checkEdit validates an edit, returning it cleaned.
func checkEdit(e UpdateClub) (UpdateClub, error) {
	var f apperr.Fields
	text.OptionalNameAndDescription(&e.Name, &e.Description, MaxNameRunes, MaxDescriptionRunes, f.Add)
	return e, f.Err()
}

// checkStatus returns a message when s is not a status.
func checkStatus(s string) string {
	if !BookStatus(s).Valid() {
		return "must be one of upcoming, current, completed"
	}
	return ""
}

// checkDate returns a message when s is given and not a date.
func checkDate(s string) string {
	if s != "" && !dates.Valid(s) {
		return dates.Message
	}
	return ""
}
