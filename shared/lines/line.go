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
	"regexp"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/bookplatform/backend/shared/apperr"
	"github.com/bookplatform/backend/shared/books"
	"github.com/bookplatform/backend/shared/users"
	"github.com/google/uuid"
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
// whether the caller likes it. Author or Book is nil when the record is
// missing (an account deleted later); the wire layer decides what to show.
type View struct {
	*Line
	Author  *users.User
	Book    *books.Book
	IsLiked bool
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

// Edit is a change of a line by its author: the content, and the page
// number when SetPage is true (PageNumber nil clears it).
type Edit struct {
	Content    string
	SetPage    bool
	PageNumber *int
}

// Page asks for one page of a cursor list: at most Limit items after the
// storage token After ("" for the first page).
type Page struct {
	Limit int
	After string
}

// LinePage is one page of lines, newest first; Next is the storage token
// of the next page, "" on the last.
type LinePage struct {
	Items []View
	Next  string
}

// ReplyPage is one page of a line's replies, oldest first.
type ReplyPage struct {
	Items []ReplyView
	Next  string
}

// Errors shared by the service and its storage.
var (
	ErrLineNotFound  = apperr.NotFound("Line not found")
	ErrReplyNotFound = apperr.NotFound("Reply not found")
	ErrBookNotFound  = apperr.NotFound("Book not found")
	ErrUserNotFound  = apperr.NotFound("User not found")
	ErrNotAuthor     = apperr.Forbidden("Only the author can change or delete this line")
	ErrNotReplyOwner = apperr.Forbidden("Only the author can delete this reply")
)

// fieldErrors collects validation problems by field.
type fieldErrors map[string]string

func (f fieldErrors) err() error {
	if len(f) == 0 {
		return nil
	}
	return apperr.Validation("Invalid request", f)
}

// CleanContent trims content and checks its length: 1 to MaxContentRunes
// characters, no control characters other than line breaks and tabs. It
// returns the trimmed text, or a message for the field.
func CleanContent(s string) (string, string) {
	s = strings.TrimSpace(s)
	switch n := utf8.RuneCountInString(s); {
	case !utf8.ValidString(s):
		return "", "must be valid UTF-8 text"
	case n == 0:
		return "", "is required"
	case n > MaxContentRunes:
		return "", fmt.Sprintf("must be at most %d characters (got %d)", MaxContentRunes, n)
	}
	for _, r := range s {
		if (r < 0x20 && r != '\n' && r != '\r' && r != '\t') || r == 0x7f {
			return "", "must not contain control characters"
		}
	}
	return s, ""
}

// checkPage returns a message when p is not a page number.
func checkPage(p *int) string {
	if p != nil && (*p < 1 || *p > MaxPageNumber) {
		return fmt.Sprintf("must be an integer from 1 to %d", MaxPageNumber)
	}
	return ""
}

// ParseID normalizes an id of the API (a UUID in canonical form, any
// case) and reports whether it is one. An id that is not a UUID cannot
// name a line, so callers answer it with 404 rather than 400.
func ParseID(id string) (string, bool) {
	id = strings.ToLower(id)
	if len(id) != 36 {
		return "", false
	}
	if _, err := uuid.Parse(id); err != nil {
		return "", false
	}
	return id, true
}

// replyIDPattern is the form NewReplyID makes.
var replyIDPattern = regexp.MustCompile(`^[0-9a-f]{24}$`)

// NewReplyID returns a reply id: the creation time in milliseconds as 12
// hex digits (fixed width, so ids sort as times do until the year 10889)
// and 12 random hex digits, so two replies in one millisecond differ.
func NewReplyID(t time.Time) string {
	var b [6]byte
	_, _ = rand.Read(b[:])
	return fmt.Sprintf("%012x%s", t.UnixMilli(), hex.EncodeToString(b[:]))
}

// validReplyID reports whether id has the form of a reply id.
func validReplyID(id string) bool { return replyIDPattern.MatchString(id) }
