package clubs

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/bookplatform/backend/shared/apperr"
	"github.com/bookplatform/backend/shared/ids"
	"github.com/bookplatform/backend/shared/page"
	"github.com/bookplatform/backend/shared/posts"
	"github.com/bookplatform/backend/shared/users"
	"golang.org/x/sync/errgroup"
)

// MemberStorer is the storage of memberships (part of Storer).
type MemberStorer interface {
	// GetMember reads userID's membership of a club, strongly
	// consistent. Errors: ErrMemberNotFound.
	GetMember(ctx context.Context, clubID, userID string) (*Member, error)
	// Join adds m to a public club. Errors: ErrNotFound, ErrPrivateJoin,
	// ErrAlreadyMember.
	Join(ctx context.Context, m *Member) error
	// AddMember adds m to a club on behalf of byUserID, its host or a
	// moderator. Errors: ErrNotFound, ErrNotManager, users.ErrNotFound,
	// ErrUserAlreadyMember.
	AddMember(ctx context.Context, byUserID string, m *Member) error
	// Leave removes userID's membership. Errors: ErrNotFound,
	// ErrNotMember, ErrHostCannotLeave.
	Leave(ctx context.Context, clubID, userID string) error
	// SetRole changes userID's role on behalf of byUserID, the host, and
	// returns the membership after. Errors: ErrNotFound, ErrNotHost,
	// ErrMemberNotFound, ErrHostRole.
	SetRole(ctx context.Context, clubID, byUserID, userID string, role Role, now time.Time) (*Member, error)
	// ListMembers reads a page of a club's members, oldest first (the
	// host first). Errors: page.ErrInvalidCursor.
	ListMembers(ctx context.Context, clubID string, c page.Cursor) (page.Page[*Member], error)
	// ListUserClubs reads a page of userID's memberships, the most
	// recently joined first. Errors: page.ErrInvalidCursor.
	ListUserClubs(ctx context.Context, userID string, c page.Cursor) (page.Page[*Member], error)
}

// MemberView is a membership with its account (nil when gone).
type MemberView struct {
	*Member
	User *users.User
}

// Membership is a club of a reader's list, with the reader's membership.
type Membership struct {
	Club   *Club
	Member *Member
}

// member reads viewerID's membership of a club: nil for an anonymous
// viewer or a non-member.
func (s *Service) member(ctx context.Context, clubID, viewerID string) (*Member, error) {
	if viewerID == "" {
		return nil, nil
	}
	m, err := s.d.Store.GetMember(ctx, clubID, viewerID)
	if errors.Is(err, ErrMemberNotFound) {
		return nil, nil
	}
	return m, err
}

// Join makes callerID a member of a public club. Errors: ErrNotFound,
// ErrPrivateJoin, ErrAlreadyMember.
func (s *Service) Join(ctx context.Context, callerID, clubID string) (*Member, error) {
	clubID, ok := ids.Parse(clubID)
	if !ok {
		return nil, ErrNotFound
	}
	now := s.d.Now().UTC()
	m := &Member{ClubID: clubID, UserID: callerID, Role: RoleMember, JoinedAt: now, UpdatedAt: now}
	if err := s.d.Store.Join(ctx, m); err != nil {
		return nil, fmt.Errorf("join club %s: %w", clubID, err)
	}
	return m, nil
}

// CreateMember makes userID a member of a club on behalf of callerID, its
// host or a moderator: how a private club gains members. Errors:
// ValidationError, ErrNotFound, ErrNotManager, users.ErrNotFound,
// ErrUserAlreadyMember.
func (s *Service) CreateMember(ctx context.Context, callerID, clubID, userID string) (*Member, error) {
	clubID, ok := ids.Parse(clubID)
	if !ok {
		return nil, ErrNotFound
	}
	id, msg := ids.Required(userID)
	if msg != "" {
		return nil, apperr.Validation("Invalid request", map[string]string{"userId": msg})
	}
	now := s.d.Now().UTC()
	m := &Member{ClubID: clubID, UserID: id, Role: RoleMember, JoinedAt: now, UpdatedAt: now}
	if err := s.d.Store.AddMember(ctx, callerID, m); err != nil {
		return nil, fmt.Errorf("add %s to club %s: %w", id, clubID, err)
	}
	return m, nil
}

// Leave ends callerID's membership. Errors: ErrNotFound, ErrNotMember,
// ErrHostCannotLeave.
func (s *Service) Leave(ctx context.Context, callerID, clubID string) error {
	clubID, ok := ids.Parse(clubID)
	if !ok {
		return ErrNotFound
	}
	if err := s.d.Store.Leave(ctx, clubID, callerID); err != nil {
		return fmt.Errorf("leave club %s: %w", clubID, err)
	}
	return nil
}

// SetRole makes a member a moderator or a plain member on behalf of
// callerID, the host. Errors: ValidationError (a role other than
// moderator or member), ErrNotFound, ErrNotHost, ErrMemberNotFound,
// ErrHostRole.
func (s *Service) SetRole(ctx context.Context, callerID, clubID, userID, role string) (*Member, error) {
	clubID, ok := ids.Parse(clubID)
	if !ok {
		return nil, ErrNotFound
	}
	r := Role(role)
	if r != RoleModerator && r != RoleMember {
		return nil, apperr.Validation("Invalid role", map[string]string{"role": "must be moderator or member"})
	}
	if userID, ok = ids.Parse(userID); !ok {
		return nil, ErrMemberNotFound
	}
	m, err := s.d.Store.SetRole(ctx, clubID, callerID, userID, r, s.d.Now().UTC())
	if err != nil {
		return nil, fmt.Errorf("set role of %s in club %s: %w", userID, clubID, err)
	}
	return m, nil
}

// ListMembers returns a page of a club's members, oldest first, with their
// accounts, and the club's member count; the club, the viewer's
// membership and the page are read side by side. Errors: ErrNotFound,
// ErrSignInRequired, ErrPrivate, page.ErrInvalidCursor.
func (s *Service) ListMembers(ctx context.Context, viewerID, clubID string, c page.Cursor) (page.Page[MemberView], int, error) {
	clubID, ok := ids.Parse(clubID)
	if !ok {
		return page.Page[MemberView]{}, 0, ErrNotFound
	}
	var (
		club *Club
		m    *Member
		p    page.Page[*Member]
		g    errgroup.Group
	)
	g.Go(func() (err error) { club, err = s.d.Store.GetClub(ctx, clubID); return err })
	g.Go(func() (err error) { m, err = s.member(ctx, clubID, viewerID); return err })
	g.Go(func() (err error) { p, err = s.d.Store.ListMembers(ctx, clubID, c); return err })
	if err := g.Wait(); err != nil {
		return page.Page[MemberView]{}, 0, fmt.Errorf("members of club %s: %w", clubID, err)
	}
	if err := CanRead(club, m, viewerID); err != nil {
		return page.Page[MemberView]{}, 0, err
	}
	us, err := posts.Accounts(ctx, s.d.Briefs, p.Items, func(m *Member) string { return m.UserID })
	if err != nil {
		return page.Page[MemberView]{}, 0, fmt.Errorf("members of club %s: %w", clubID, err)
	}
	return page.Map(p, func(m *Member) MemberView { return MemberView{Member: m, User: us[m.UserID]} }), club.MemberCount, nil
}

// ListJoined returns a page of the clubs callerID belongs to, private ones
// included, the most recently joined first.
func (s *Service) ListJoined(ctx context.Context, callerID string, c page.Cursor) (page.Page[Membership], error) {
	return s.memberships(ctx, callerID, c, false)
}

// ListByUser returns a page of the public clubs the account named username
// belongs to. A page may hold fewer than the limit (private clubs are
// left out) and still have a next page. Errors: users.ErrNotFound,
// page.ErrInvalidCursor.
func (s *Service) ListByUser(ctx context.Context, username string, c page.Cursor) (page.Page[Membership], error) {
	userID, err := posts.OwnerID(ctx, s.d.Users, username)
	if err != nil {
		return page.Page[Membership]{}, err
	}
	return s.memberships(ctx, userID, c, true)
}

// memberships reads a page of userID's memberships and their clubs.
// Memberships whose club is gone (a delete that stopped half way) are
// left out, and so are private clubs when publicOnly.
func (s *Service) memberships(ctx context.Context, userID string, c page.Cursor, publicOnly bool) (page.Page[Membership], error) {
	p, err := s.d.Store.ListUserClubs(ctx, userID, c)
	if err != nil {
		return page.Page[Membership]{}, fmt.Errorf("clubs of user %s: %w", userID, err)
	}
	clubIDs := make([]string, len(p.Items))
	for i, m := range p.Items {
		clubIDs[i] = m.ClubID
	}
	cs, err := s.d.Store.GetClubs(ctx, clubIDs)
	if err != nil {
		return page.Page[Membership]{}, fmt.Errorf("clubs of user %s: %w", userID, err)
	}
	out := page.Page[Membership]{Items: []Membership{}, Next: p.Next}
	for _, m := range p.Items {
		club := cs[m.ClubID]
		if club == nil || publicOnly && !club.IsPublic {
			continue
		}
		out.Items = append(out.Items, Membership{Club: club, Member: m})
	}
	return out, nil
}
