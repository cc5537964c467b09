// Package lines is the lines domain: short posts about a book, their
// likes and replies, the rules for writing them (lengths, author-only
// changes, the monthly post quota) and the service behind the lines
// endpoint group. It imports no AWS and no HTTP package; storage is
// reached through Storer. docs/decisions.md ("Lines") records the choices
// the spec leaves open.
package lines

import (
	"crypto/rand"
	"encoding/hex"
	"fmt"
	"time"

	"github.com/bookplatform/backend/shared/apperr"
	"github.com/bookplatform/backend/shared/posts"
	"github.com/bookplatform/backend/shared/text"
	"github.com/bookplatform/backend/shared/users"
)

// Limits of what a line or reply may hold (the spec shows none).
const (
	MaxContentRunes = 500    // lines and replies, after trimming
	MaxPageNumber   = 100000 // longer than any printed book
)

// Line is a stored line: a short post about one book.
type Line struct {
	ID          string
	UserID      string // the author
	BookID      string
	Content     string
	PageNumber  int // 0 when not given
	LikeCount   int
	ReplyCount  int
	ClubID      string // "" when not posted in a club
	ChallengeID string // "" when not posted in a challenge
	CreatedAt   time.Time
	UpdatedAt   time.Time
}

// Reply is a stored reply to a line.
type Reply struct {
	// ID is opaque to clients; it starts with the creation time so that
	// replies sort oldest first by id (NewReplyID).
	ID        string
	LineID    string
	UserID    string
	Content   string
	CreatedAt time.Time
}

// View is a line as a caller sees it: with its author, its book and
// whether the caller likes it (posts.View).
type View = posts.View[*Line]

// Ref names the line's author and book for a page's context.
func (l *Line) Ref() posts.Ref {
	return posts.Ref{ID: l.ID, UserID: l.UserID, BookID: l.BookID, Unliked: l.LikeCount == 0}
}

// ReplyView is a reply with its author (nil when the account is gone).
type ReplyView struct {
	*Reply
	Author *users.User
}

// NewLine is a request to post a line.
type NewLine struct {
	BookID      string
	Content     string
	PageNumber  *int   // nil when not given
	ClubID      string // "" for none
	ChallengeID string // "" for none
}

// UpdateLine is a change of a line by its author: the content, and the page
// number when SetPage is true (PageNumber nil clears it).
type UpdateLine struct {
	Content    string
	SetPage    bool
	PageNumber *int
}

// Errors of lines and replies. Storage returns them wrapped with context.
var (
	ErrNotFound       = apperr.NotFound("Line not found")
	ErrReplyNotFound  = apperr.NotFound("Reply not found")
	ErrNotAuthor      = apperr.Forbidden("Only the author can change or delete this line")
	ErrNotReplyAuthor = apperr.Forbidden("Only the author can delete this reply")
)

// checkPage returns a message when p is not a page number.
func checkPage(p *int) string {
	if p != nil && (*p < 1 || *p > MaxPageNumber) {
		return fmt.Sprintf("must be an integer from 1 to %d", MaxPageNumber)
	}
	return ""
}

// replyIDPattern is the form NewReplyID makes.
var replyIDPattern = text.NewPattern(`^[0-9a-f]{24}$`)

// NewReplyID returns a reply id: the creation time in milliseconds as 12
// hex digits (fixed width, so ids sort as times do until the year 10889)
// and 12 random hex digits, so two replies in one millisecond differ.
func NewReplyID(t time.Time) string {
	var b [6]byte
	_, _ = rand.Read(b[:])
	return fmt.Sprintf("%012x%s", t.UnixMilli(), hex.EncodeToString(b[:]))
}

// ValidReplyID reports whether id has the form of a reply id (reports
// name replies by it).
func ValidReplyID(id string) bool { return replyIDPattern.MatchString(id) }
