package dynamo

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/bookplatform/backend/shared/clubs"
	"github.com/bookplatform/backend/shared/page"
	"github.com/bookplatform/backend/shared/users"
)

// memberItem is a membership (ClubMemberKey), listed on GSI1 under its
// club (clubMembers) and on GSI2 under its user (userClubs).
type memberItem struct {
	PK        string    `dynamo:"PK"`
	SK        string    `dynamo:"SK"`
	GSI1PK    string    `dynamo:"GSI1PK"`
	GSI1SK    string    `dynamo:"GSI1SK"`
	GSI2PK    string    `dynamo:"GSI2PK"`
	GSI2SK    string    `dynamo:"GSI2SK"`
	Type      string    `dynamo:"type"`
	ClubID    string    `dynamo:"clubId"`
	UserID    string    `dynamo:"userId"`
	Role      string    `dynamo:"role"`
	JoinedAt  time.Time `dynamo:"joinedAt"`
	UpdatedAt time.Time `dynamo:"updatedAt"`
}

func toMemberItem(m *clubs.Member) memberItem {
	k := ClubMemberKey(m.ClubID, m.UserID)
	return memberItem{
		PK: k.PK, SK: k.SK,
		GSI1PK: clubMembers(m.ClubID).pk, GSI1SK: timeIDKey(m.JoinedAt, m.UserID),
		GSI2PK: userClubs(m.UserID).pk, GSI2SK: timeIDKey(m.JoinedAt, m.ClubID),
		Type: typeClubMember, ClubID: m.ClubID, UserID: m.UserID, Role: string(m.Role),
		JoinedAt: m.JoinedAt.UTC(), UpdatedAt: m.UpdatedAt.UTC(),
	}
}

func (it memberItem) toMember() *clubs.Member {
	return &clubs.Member{ClubID: it.ClubID, UserID: it.UserID, Role: clubs.Role(it.Role), JoinedAt: it.JoinedAt, UpdatedAt: it.UpdatedAt}
}

// GetMember reads a membership, strongly consistent. Errors:
// clubs.ErrMemberNotFound.
func (s *Clubs) GetMember(ctx context.Context, clubID, userID string) (*clubs.Member, error) {
	return getOne(ctx, s.t, ClubMemberKey(clubID, userID), memberItem.toMember, clubs.ErrMemberNotFound,
		"member "+userID+" of club "+clubID)
}

// errRefused is a transaction item whose failed condition has more than
// one meaning; the store reads what it needs to tell them apart, only
// then.
var errRefused = errors.New("refused by a condition with several meanings")

// Join adds one to memberCount, conditional on the club existing and
// being public, and puts the membership if absent, in one
// TransactWriteItems. Only when the club's condition fails are the club
// and the membership read, to tell 404 from 403 from 400. Errors:
// clubs.ErrNotFound, clubs.ErrPrivateJoin, clubs.ErrAlreadyMember.
func (s *Clubs) Join(ctx context.Context, m *clubs.Member) error {
	err := s.t.tx().
		update(s.t.update(ClubKey(m.ClubID)).Add("memberCount", 1).If("attribute_exists(PK) AND isPublic = ?", true), errRefused).
		put(s.t.put(toMemberItem(m)).If("attribute_not_exists(PK)"), clubs.ErrAlreadyMember).
		run(ctx)
	if errors.Is(err, errRefused) {
		if _, err := s.GetClub(ctx, m.ClubID); err != nil {
			return err
		}
		if _, err := s.GetMember(ctx, m.ClubID, m.UserID); err == nil {
			return fmt.Errorf("join club %s: %w", m.ClubID, clubs.ErrAlreadyMember)
		}
		return fmt.Errorf("join club %s: %w", m.ClubID, clubs.ErrPrivateJoin)
	}
	if err != nil {
		return fmt.Errorf("join club %s: %w", m.ClubID, err)
	}
	return nil
}

// AddMember adds one to memberCount (the club exists), checks that
// byUserID is the host or a moderator and that the account exists, and
// puts the membership if absent, in one TransactWriteItems. Errors:
// clubs.ErrNotFound, clubs.ErrNotManager, users.ErrNotFound,
// clubs.ErrUserAlreadyMember.
func (s *Clubs) AddMember(ctx context.Context, byUserID string, m *clubs.Member) error {
	if byUserID == m.UserID {
		// One item cannot be checked and written in one transaction, and
		// a manager adding themselves is a member already.
		if _, err := s.GetClub(ctx, m.ClubID); err != nil {
			return err
		}
		if _, err := s.GetMember(ctx, m.ClubID, byUserID); err == nil {
			return fmt.Errorf("add member to club %s: %w", m.ClubID, clubs.ErrUserAlreadyMember)
		}
		return fmt.Errorf("add member to club %s: %w", m.ClubID, clubs.ErrNotManager)
	}
	err := s.t.tx().
		update(s.t.update(ClubKey(m.ClubID)).Add("memberCount", 1).If("attribute_exists(PK)"), clubs.ErrNotFound).
		check(s.managerCheck(m.ClubID, byUserID), clubs.ErrNotManager).
		check(s.t.check(UserKey(m.UserID)).If("attribute_exists(PK)"), users.ErrNotFound).
		put(s.t.put(toMemberItem(m)).If("attribute_not_exists(PK)"), clubs.ErrUserAlreadyMember).
		run(ctx)
	if err != nil {
		return fmt.Errorf("add %s to club %s: %w", m.UserID, m.ClubID, err)
	}
	return nil
}

// Leave subtracts one from memberCount and deletes the membership,
// conditional on it existing and not being the host's, in one
// TransactWriteItems; only when the membership's condition fails is it
// read, to say which. Errors: clubs.ErrNotFound, clubs.ErrNotMember,
// clubs.ErrHostCannotLeave.
func (s *Clubs) Leave(ctx context.Context, clubID, userID string) error {
	err := s.t.tx().
		update(s.t.update(ClubKey(clubID)).Add("memberCount", -1).If("attribute_exists(PK)"), clubs.ErrNotFound).
		delete(s.t.del(ClubMemberKey(clubID, userID)).If("attribute_exists(PK) AND $ <> ?", "role", clubs.RoleHost), errRefused).
		run(ctx)
	if errors.Is(err, errRefused) {
		if _, err := s.GetMember(ctx, clubID, userID); errors.Is(err, clubs.ErrMemberNotFound) {
			return fmt.Errorf("leave club %s: %w", clubID, clubs.ErrNotMember)
		} else if err != nil {
			return err
		}
		return fmt.Errorf("leave club %s: %w", clubID, clubs.ErrHostCannotLeave)
	}
	if err != nil {
		return fmt.Errorf("leave club %s: %w", clubID, err)
	}
	return nil
}

// SetRole checks that the club exists and byUserID hosts it, and sets
// userID's role unless userID is the host, in one TransactWriteItems.
// Errors: clubs.ErrNotFound, clubs.ErrNotHost, clubs.ErrMemberNotFound,
// clubs.ErrHostRole.
func (s *Clubs) SetRole(ctx context.Context, clubID, byUserID, userID string, role clubs.Role, now time.Time) (*clubs.Member, error) {
	if byUserID == userID {
		// The host's own role: one item cannot be checked and written in
		// one transaction.
		if _, err := s.GetClub(ctx, clubID); err != nil {
			return nil, err
		}
		m, err := s.GetMember(ctx, clubID, userID)
		if err == nil && m.Role == clubs.RoleHost {
			return nil, fmt.Errorf("set role in club %s: %w", clubID, clubs.ErrHostRole)
		}
		return nil, fmt.Errorf("set role in club %s: %w", clubID, clubs.ErrNotHost)
	}
	err := s.t.tx().
		check(s.t.check(ClubKey(clubID)).If("attribute_exists(PK)"), clubs.ErrNotFound).
		check(s.t.check(ClubMemberKey(clubID, byUserID)).If("$ = ?", "role", clubs.RoleHost), clubs.ErrNotHost).
		update(s.t.update(ClubMemberKey(clubID, userID)).Set("role", string(role)).Set("updatedAt", now.UTC()).
			If("attribute_exists(PK) AND $ <> ?", "role", clubs.RoleHost), errRefused).
		run(ctx)
	if errors.Is(err, errRefused) {
		if _, err := s.GetMember(ctx, clubID, userID); err != nil {
			return nil, err
		}
		return nil, fmt.Errorf("set role in club %s: %w", clubID, clubs.ErrHostRole)
	}
	if err != nil {
		return nil, fmt.Errorf("set role of %s in club %s: %w", userID, clubID, err)
	}
	return &clubs.Member{ClubID: clubID, UserID: userID, Role: role, UpdatedAt: now}, nil
}

// ListMembers reads a page of a club's members in the order they joined
// (GSI1).
func (s *Clubs) ListMembers(ctx context.Context, clubID string, c page.Cursor) (page.Page[*clubs.Member], error) {
	return queryMapped(ctx, s.t, clubMembers(clubID), c, memberItem.toMember)
}

// ListUserClubs reads a page of a user's memberships, the latest joined
// first (GSI2).
func (s *Clubs) ListUserClubs(ctx context.Context, userID string, c page.Cursor) (page.Page[*clubs.Member], error) {
	return queryMapped(ctx, s.t, userClubs(userID), c, memberItem.toMember)
}
