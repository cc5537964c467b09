// Package userjson is the wire shape of users, shared by the auth and
// users groups (and later every group that embeds a UserBrief).
package userjson

import (
	"github.com/bookplatform/backend/shared/posts"
	"time"

	"github.com/bookplatform/backend/shared/users"
)

// Own is the caller's own profile (spec: User (own profile)); also the
// user object of auth responses.
type Own struct {
	ID          string  `json:"id"`
	Username    string  `json:"username"`
	Email       *string `json:"email"`
	DisplayName string  `json:"displayName"`
	Bio         string  `json:"bio"`
	AvatarURL   *string `json:"avatarUrl"`
	Tier        string  `json:"tier"`
	IsGuest     bool    `json:"isGuest"`
	HomeStoreID *string `json:"homeStoreId"`
	CreatedAt   string  `json:"createdAt"`
	UpdatedAt   string  `json:"updatedAt"`
}

// Public is a profile anyone may read: never email, password or tokens.
type Public struct {
	ID             string  `json:"id"`
	Username       string  `json:"username"`
	DisplayName    string  `json:"displayName"`
	Bio            string  `json:"bio"`
	AvatarURL      *string `json:"avatarUrl"`
	Tier           string  `json:"tier"`
	CreatedAt      string  `json:"createdAt"`
	FollowerCount  *int    `json:"followerCount,omitempty"`
	FollowingCount *int    `json:"followingCount,omitempty"`
}

// Brief is the spec's UserBrief.
type Brief struct {
	ID          string  `json:"id"`
	Username    string  `json:"username"`
	DisplayName string  `json:"displayName"`
	AvatarURL   *string `json:"avatarUrl"`
	Tier        string  `json:"tier,omitempty"`
}

// NewOwn converts a user to its own-profile shape.
func NewOwn(u *users.User) Own {
	return Own{
		ID: u.ID, Username: u.Username, Email: nullable(u.Email), DisplayName: u.DisplayName, Bio: u.Bio,
		AvatarURL: nullable(u.AvatarURL), Tier: string(u.Tier), IsGuest: u.IsGuest,
		HomeStoreID: nullable(u.HomeStoreID), CreatedAt: Time(u.CreatedAt), UpdatedAt: Time(u.UpdatedAt),
	}
}

// NewPublic converts a user to its public shape; withCounts adds
// followerCount and followingCount (the by-username form).
func NewPublic(u *users.User, withCounts bool) Public {
	p := Public{
		ID: u.ID, Username: u.Username, DisplayName: u.DisplayName, Bio: u.Bio,
		AvatarURL: nullable(u.AvatarURL), Tier: string(u.Tier), CreatedAt: Time(u.CreatedAt),
	}
	if withCounts {
		followers, following := u.FollowerCount, u.FollowingCount
		p.FollowerCount, p.FollowingCount = &followers, &following
	}
	return p
}

// NewBrief converts a user to a UserBrief.
func NewBrief(u *users.User, withTier bool) Brief {
	b := Brief{ID: u.ID, Username: u.Username, DisplayName: u.DisplayName, AvatarURL: nullable(u.AvatarURL)}
	if withTier {
		b.Tier = string(u.Tier)
	}
	return b
}

// BriefOf is u's UserBrief, nil (JSON null) when the record is missing
// (an account deleted since it posted).
func BriefOf(u *users.User, withTier bool) *Brief {
	if u == nil {
		return nil
	}
	b := NewBrief(u, withTier)
	return &b
}

// Time formats a timestamp as the API does everywhere: RFC 3339 in UTC
// with milliseconds.
func Time(t time.Time) string { return t.UTC().Format("2006-01-02T15:04:05.000Z07:00") }

func nullable(s string) *string {
	if s == "" {
		return nil
	}
	return &s
}

// TakenDown is the takenDown object of a line, review or club an
// operator took down, as its author alone still reads it. Everywhere
// else the field is left out.
type TakenDown struct {
	Reason string `json:"reason" doc:"Why an operator took it down."`
	At     string `json:"at" doc:"When it was taken down."`
}

// TakenDownOf converts a takedown; nil (the field left out) for content
// that was not taken down.
func TakenDownOf(td *posts.TakenDown) *TakenDown {
	if td == nil {
		return nil
	}
	return &TakenDown{Reason: td.Reason, At: Time(td.At)}
}
