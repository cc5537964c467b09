// Package linejson is the wire shape of lines and replies: the spec's
// Line, the Line of club and challenge lists (its book shorter), the
// shorter answer of an edit, and Reply.
package linejson

import (
	"github.com/bookplatform/backend/shared/api/bookjson"
	"github.com/bookplatform/backend/shared/api/userjson"
	"github.com/bookplatform/backend/shared/lines"
)

// Line is the spec's Line. user and book are null only when the account
// or book record is missing.
type Line struct {
	ID          string              `json:"id"`
	UserID      string              `json:"userId"`
	User        *userjson.Brief     `json:"user"`
	BookID      string              `json:"bookId"`
	Book        *bookjson.Brief     `json:"book"`
	Content     string              `json:"content"`
	PageNumber  *int                `json:"pageNumber"`
	LikeCount   int                 `json:"likeCount"`
	ReplyCount  int                 `json:"replyCount"`
	IsLiked     bool                `json:"isLiked"`
	ClubID      *string             `json:"clubId"`
	ChallengeID *string             `json:"challengeId"`
	CreatedAt   string              `json:"createdAt"`
	UpdatedAt   string              `json:"updatedAt"`
	TakenDown   *userjson.TakenDown `json:"takenDown,omitempty"`
}

// CommunityLine is a Line in a club's or a challenge's list: the spec
// shows its book as title, authors and coverUrl only there.
type CommunityLine struct {
	ID          string          `json:"id"`
	UserID      string          `json:"userId"`
	User        *userjson.Brief `json:"user"`
	BookID      string          `json:"bookId"`
	Book        *bookjson.Short `json:"book"`
	Content     string          `json:"content"`
	PageNumber  *int            `json:"pageNumber"`
	LikeCount   int             `json:"likeCount"`
	ReplyCount  int             `json:"replyCount"`
	IsLiked     bool            `json:"isLiked"`
	ClubID      *string         `json:"clubId"`
	ChallengeID *string         `json:"challengeId"`
	CreatedAt   string          `json:"createdAt"`
	UpdatedAt   string          `json:"updatedAt"`
}

// NewCommunityLine converts a line view for a club's or challenge's list.
func NewCommunityLine(v lines.View) CommunityLine {
	l := NewLine(v)
	return CommunityLine{
		ID: l.ID, UserID: l.UserID, User: l.User, BookID: l.BookID, Book: bookjson.ShortOf(v.Book),
		Content: l.Content, PageNumber: l.PageNumber, LikeCount: l.LikeCount, ReplyCount: l.ReplyCount,
		IsLiked: l.IsLiked, ClubID: l.ClubID, ChallengeID: l.ChallengeID, CreatedAt: l.CreatedAt, UpdatedAt: l.UpdatedAt,
	}
}

// Edited is the answer of PUT /lines/{id}: the spec lists the line's own
// fields only.
type Edited struct {
	ID         string `json:"id"`
	UserID     string `json:"userId"`
	BookID     string `json:"bookId"`
	Content    string `json:"content"`
	PageNumber *int   `json:"pageNumber"`
	LikeCount  int    `json:"likeCount"`
	ReplyCount int    `json:"replyCount"`
	CreatedAt  string `json:"createdAt"`
	UpdatedAt  string `json:"updatedAt"`
}

// Reply is the spec's Reply.
type Reply struct {
	ID        string          `json:"id"`
	LineID    string          `json:"lineId"`
	UserID    string          `json:"userId"`
	User      *userjson.Brief `json:"user"`
	Content   string          `json:"content"`
	CreatedAt string          `json:"createdAt"`
}

// NewLine converts a line view.
func NewLine(v lines.View) Line {
	l := v.Post
	out := Line{
		ID: l.ID, UserID: l.UserID, BookID: l.BookID, Content: l.Content, PageNumber: page(l.PageNumber),
		LikeCount: l.LikeCount, ReplyCount: l.ReplyCount, IsLiked: v.IsLiked,
		ClubID: nullable(l.ClubID), ChallengeID: nullable(l.ChallengeID),
		CreatedAt: userjson.Time(l.CreatedAt), UpdatedAt: userjson.Time(l.UpdatedAt),
		TakenDown: userjson.TakenDownOf(v.TakenDown),
	}
	out.User, out.Book = userjson.BriefOf(v.Author, false), bookjson.BriefOf(v.Book)
	return out
}

// NewEdited converts a line to the edit answer.
func NewEdited(l *lines.Line) Edited {
	return Edited{
		ID: l.ID, UserID: l.UserID, BookID: l.BookID, Content: l.Content, PageNumber: page(l.PageNumber),
		LikeCount: l.LikeCount, ReplyCount: l.ReplyCount,
		CreatedAt: userjson.Time(l.CreatedAt), UpdatedAt: userjson.Time(l.UpdatedAt),
	}
}

// NewReply converts a reply view.
func NewReply(v lines.ReplyView) Reply {
	r := v.Reply
	out := Reply{ID: r.ID, LineID: r.LineID, UserID: r.UserID, Content: r.Content, CreatedAt: userjson.Time(r.CreatedAt)}
	out.User = userjson.BriefOf(v.Author, false)
	return out
}

func page(n int) *int {
	if n == 0 {
		return nil
	}
	return &n
}

func nullable(s string) *string {
	if s == "" {
		return nil
	}
	return &s
}
