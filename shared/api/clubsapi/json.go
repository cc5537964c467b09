package clubsapi

import (
	"encoding/json"
	"strings"

	"github.com/bookplatform/backend/shared/api/bookjson"
	"github.com/bookplatform/backend/shared/api/storejson"
	"github.com/bookplatform/backend/shared/api/userjson"
	"github.com/bookplatform/backend/shared/apperr"
	"github.com/bookplatform/backend/shared/clubs"
	"github.com/bookplatform/backend/shared/dates"
	"github.com/bookplatform/backend/shared/httpapi"
)

// Requests.

// createRequest is the body of POST /v1/clubs. isPublic left out makes a
// public club.
type createRequest struct {
	Name        string  `json:"name"`
	Description string  `json:"description,omitempty"`
	IsPublic    *bool   `json:"isPublic,omitempty"`
	StoreID     *string `json:"storeId,omitempty"`
}

// updateRequest is the body of PUT /v1/clubs/{id}: a field left out (or
// null) stays.
type updateRequest struct {
	Name        *string `json:"name,omitempty"`
	Description *string `json:"description,omitempty"`
	IsPublic    *bool   `json:"isPublic,omitempty"`
}

// addBookRequest is the body of POST /v1/clubs/{id}/books.
type addBookRequest struct {
	BookID    string  `json:"bookId"`
	Status    string  `json:"status"`
	StartDate *string `json:"startDate,omitempty"`
	EndDate   *string `json:"endDate,omitempty"`
	Notes     string  `json:"notes,omitempty"`
}

// updateBookRequest is the body of PUT /v1/clubs/{id}/books/{bookId}: a
// field left out stays; a date set to null is cleared (read raw to tell
// the two apart).
type updateBookRequest struct {
	Status    *string         `json:"status,omitempty"`
	Notes     *string         `json:"notes,omitempty"`
	StartDate json.RawMessage `json:"startDate,omitempty" openapi:"string,null"`
	EndDate   json.RawMessage `json:"endDate,omitempty" openapi:"string,null"`
}

// addMemberRequest is the body of POST /v1/clubs/{id}/members.
type addMemberRequest struct {
	UserID string `json:"userId"`
}

// roleRequest is the body of PUT /v1/clubs/{id}/members/{memberId}/role.
type roleRequest struct {
	Role string `json:"role"`
}

// optionalDate reads a date field of a partial update: absent (set
// false), null (set, ""), or a date string (a malformed one is the
// service's to refuse).
func optionalDate(field string, raw json.RawMessage) (bool, string, error) {
	s := strings.TrimSpace(string(raw))
	switch s {
	case "":
		return false, "", nil
	case "null":
		return true, "", nil
	}
	var v string
	if err := json.Unmarshal(raw, &v); err != nil || v == "" {
		return false, "", apperr.Validation("Invalid request", map[string]string{field: dates.Message + " or null"})
	}
	return true, v, nil
}

func deref(s *string) string {
	if s == nil {
		return ""
	}
	return *s
}

// Answers.

// club is the spec's Club as lists and the single view show it.
type club struct {
	ID          string           `json:"id"`
	Name        string           `json:"name"`
	Description string           `json:"description"`
	IsPublic    bool             `json:"isPublic"`
	HostID      string           `json:"hostId"`
	Host        *userjson.Brief  `json:"host"`
	StoreID     *string          `json:"storeId"`
	Store       *storejson.Brief `json:"store"`
	MemberCount int              `json:"memberCount"`
	BookCount   int              `json:"bookCount"`
	CreatedAt   string           `json:"createdAt"`
	UpdatedAt   string           `json:"updatedAt"`
}

// clubView is the single-club view: the Club with the host's tier, the
// store's logo, the reading list and the caller's membership.
type clubView struct {
	club
	Books      []clubBook          `json:"books"`
	IsMember   bool                `json:"isMember"`
	MemberRole *string             `json:"memberRole"`
	TakenDown  *userjson.TakenDown `json:"takenDown,omitempty"`
}

// clubBook is the spec's Club book.
type clubBook struct {
	ID        string          `json:"id"`
	ClubID    string          `json:"clubId"`
	BookID    string          `json:"bookId"`
	Book      *bookjson.Brief `json:"book"`
	Status    string          `json:"status"`
	StartDate *string         `json:"startDate"`
	EndDate   *string         `json:"endDate"`
	Notes     string          `json:"notes"`
	AddedAt   string          `json:"addedAt"`
	UpdatedAt string          `json:"updatedAt"`
}

// editedClubBook is the answer of PUT /clubs/{id}/books/{bookId}.
type editedClubBook struct {
	ID        string  `json:"id"`
	ClubID    string  `json:"clubId"`
	BookID    string  `json:"bookId"`
	Status    string  `json:"status"`
	StartDate *string `json:"startDate"`
	EndDate   *string `json:"endDate"`
	Notes     string  `json:"notes"`
	UpdatedAt string  `json:"updatedAt"`
}

// editedClub is the answer of PUT /clubs/{id}.
type editedClub struct {
	ID          string `json:"id"`
	Name        string `json:"name"`
	Description string `json:"description"`
	IsPublic    bool   `json:"isPublic"`
	HostID      string `json:"hostId"`
	MemberCount int    `json:"memberCount"`
	UpdatedAt   string `json:"updatedAt"`
}

// clubsPage is the answer of GET /clubs.
type clubsPage struct {
	Clubs []club `json:"clubs"`
	httpapi.OffsetMeta
}

// membership is a membership as join and add answer it.
type membership struct {
	ClubID   string `json:"clubId"`
	UserID   string `json:"userId"`
	Role     string `json:"role"`
	JoinedAt string `json:"joinedAt"`
}

// joined is the answer of POST /clubs/{id}/join and /members.
type joined struct {
	Success    bool       `json:"success"`
	Membership membership `json:"membership"`
}

// roleChange is the answer of PUT /clubs/{id}/members/{memberId}/role.
type roleChange struct {
	Success    bool `json:"success"`
	Membership struct {
		UserID    string `json:"userId"`
		Role      string `json:"role"`
		UpdatedAt string `json:"updatedAt"`
	} `json:"membership"`
}

// member is the spec's Club member.
type member struct {
	UserID   string          `json:"userId"`
	User     *userjson.Brief `json:"user"`
	Role     string          `json:"role"`
	JoinedAt string          `json:"joinedAt"`
}

// membersPage is the answer of GET /clubs/{id}/members: a page of
// members (httpapi.ArrayPage), the club's member count and the next
// page's cursor.
type membersPage struct {
	Members []member `json:"members"`
	Total   int      `json:"total"`
	httpapi.More
}

// joinedClub is a club of GET /clubs/me/joined.
type joinedClub struct {
	ID          string `json:"id"`
	Name        string `json:"name"`
	Description string `json:"description"`
	IsPublic    bool   `json:"isPublic"`
	MemberCount int    `json:"memberCount"`
	MemberRole  string `json:"memberRole"`
	CreatedAt   string `json:"createdAt"`
}

// myClub is a club of GET /users/me/clubs.
type myClub struct {
	ID          string `json:"id"`
	Name        string `json:"name"`
	Description string `json:"description"`
	IsPublic    bool   `json:"isPublic"`
	MemberCount int    `json:"memberCount"`
	HostID      string `json:"hostId"`
	CreatedAt   string `json:"createdAt"`
}

// userClub is a club of GET /users/{username}/clubs.
type userClub struct {
	ID          string `json:"id"`
	Name        string `json:"name"`
	Description string `json:"description"`
	IsPublic    bool   `json:"isPublic"`
	MemberCount int    `json:"memberCount"`
	CreatedAt   string `json:"createdAt"`
}

// The reader's lists answer a page of clubs (httpapi.ArrayPage) and the
// next page's cursor.
type (
	joinedClubList struct {
		Clubs []joinedClub `json:"clubs"`
		httpapi.More
	}
	myClubList struct {
		Clubs []myClub `json:"clubs"`
		httpapi.More
	}
	userClubList struct {
		Clubs []userClub `json:"clubs"`
		httpapi.More
	}
	// storeClubList is GET /stores/{slug}/clubs: the listing shape of
	// GET /clubs, a superset of the spec's fields.
	storeClubList struct {
		Clubs []club `json:"clubs"`
		httpapi.More
	}
)

func newClub(l clubs.Listed, withDetail bool) club {
	c := l.Club
	return club{
		ID: c.ID, Name: c.Name, Description: c.Description, IsPublic: c.IsPublic, HostID: c.HostID,
		Host: userjson.BriefOf(l.Host, withDetail), StoreID: nullable(c.StoreID), Store: storejson.BriefOf(l.Store, withDetail),
		MemberCount: c.MemberCount, BookCount: c.BookCount,
		CreatedAt: userjson.Time(c.CreatedAt), UpdatedAt: userjson.Time(c.UpdatedAt),
	}
}

func newClubView(v *clubs.View) clubView {
	out := clubView{
		club:      newClub(clubs.Listed{Club: v.Club, Host: v.Host, Store: v.Store}, true),
		Books:     make([]clubBook, len(v.Books)),
		IsMember:  v.Member != nil,
		TakenDown: userjson.TakenDownOf(v.TakenDown),
	}
	if v.Member != nil {
		role := string(v.Member.Role)
		out.MemberRole = &role
	}
	for i, b := range v.Books {
		out.Books[i] = newClubBook(b)
	}
	return out
}

func newClubBook(v clubs.BookView) clubBook {
	b := v.Entry
	return clubBook{
		ID: b.BookID, ClubID: b.ClubID, BookID: b.BookID, Book: bookjson.BriefOf(v.Book), Status: string(b.Status),
		StartDate: nullable(b.StartDate), EndDate: nullable(b.EndDate), Notes: b.Notes,
		AddedAt: userjson.Time(b.AddedAt), UpdatedAt: userjson.Time(b.UpdatedAt),
	}
}

func newEditedClubBook(b *clubs.Book) editedClubBook {
	return editedClubBook{
		ID: b.BookID, ClubID: b.ClubID, BookID: b.BookID, Status: string(b.Status),
		StartDate: nullable(b.StartDate), EndDate: nullable(b.EndDate), Notes: b.Notes, UpdatedAt: userjson.Time(b.UpdatedAt),
	}
}

func newEditedClub(c *clubs.Club) editedClub {
	return editedClub{
		ID: c.ID, Name: c.Name, Description: c.Description, IsPublic: c.IsPublic, HostID: c.HostID,
		MemberCount: c.MemberCount, UpdatedAt: userjson.Time(c.UpdatedAt),
	}
}

func newJoined(m *clubs.Member) joined {
	return joined{Success: true, Membership: membership{
		ClubID: m.ClubID, UserID: m.UserID, Role: string(m.Role), JoinedAt: userjson.Time(m.JoinedAt),
	}}
}

func newMember(v clubs.MemberView) member {
	return member{UserID: v.UserID, User: userjson.BriefOf(v.User, true), Role: string(v.Role), JoinedAt: userjson.Time(v.JoinedAt)}
}

func newJoinedClub(m clubs.Membership) joinedClub {
	c := m.Club
	return joinedClub{
		ID: c.ID, Name: c.Name, Description: c.Description, IsPublic: c.IsPublic, MemberCount: c.MemberCount,
		MemberRole: string(m.Member.Role), CreatedAt: userjson.Time(c.CreatedAt),
	}
}

func newMyClub(m clubs.Membership) myClub {
	c := m.Club
	return myClub{
		ID: c.ID, Name: c.Name, Description: c.Description, IsPublic: c.IsPublic, MemberCount: c.MemberCount,
		HostID: c.HostID, CreatedAt: userjson.Time(c.CreatedAt),
	}
}

func newUserClub(m clubs.Membership) userClub {
	c := m.Club
	return userClub{
		ID: c.ID, Name: c.Name, Description: c.Description, IsPublic: c.IsPublic, MemberCount: c.MemberCount,
		CreatedAt: userjson.Time(c.CreatedAt),
	}
}

func nullable(s string) *string {
	if s == "" {
		return nil
	}
	return &s
}
