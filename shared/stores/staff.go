package stores

import (
	"context"
	"strings"

	"github.com/bookplatform/backend/shared/apperr"
	"github.com/bookplatform/backend/shared/ids"
	"github.com/bookplatform/backend/shared/page"
	"github.com/bookplatform/backend/shared/users"
)

// Staff (docs/decisions.md, "Store staff"): the owner adds and removes
// staff by email or user id; any account may be staff; rights are per
// store; the owner is not listed but has every staff right (the router's
// NeedStoreStaff admits owners).

// StaffStorer is the storage of staff memberships (part of Storer).
type StaffStorer interface {
	// AddStaff makes userID staff at the store: the membership, the
	// user's copy of it (users.User.StaffStoreIDs) and the store's
	// staffCount, in one transaction. Errors: ErrNotFound,
	// users.ErrNotFound, ErrAlreadyStaff, ErrStaffLimit.
	AddStaff(ctx context.Context, m StaffMember) error
	// RemoveStaff undoes AddStaff. Errors: ErrNotStaff.
	RemoveStaff(ctx context.Context, m StaffMember) error
	// ListStaff reads a page of the staff of the store with slug.
	ListStaff(ctx context.Context, slug string, c page.Cursor) (page.Page[StaffMember], error)
}

// StaffView is a staff member with the account as it is now (nil when
// the account is gone).
type StaffView struct {
	StaffMember
	User *users.User
}

// NewStaff names the account to add: by email or by user id, one of them.
type NewStaff struct {
	Email, UserID string
}

// CreateStaff makes the account staff at the store (its owner's request).
// Errors: ValidationError (neither or both given, malformed, the owner),
// users.ErrNotFound (no such account), ErrAlreadyStaff, ErrStaffLimit,
// ErrNotFound.
func (s *Service) CreateStaff(ctx context.Context, storeID, slug, ownerID string, n NewStaff) (StaffView, error) {
	email, id := users.NormalizeEmail(n.Email), strings.TrimSpace(n.UserID)
	var (
		u   *users.User
		err error
	)
	switch {
	case email != "" && id != "":
		return StaffView{}, apperr.Validation("Give email or userId, not both", map[string]string{"userId": "give email or userId, not both"})
	case email == "" && id == "":
		return StaffView{}, apperr.Validation("email or userId is required", map[string]string{"email": "email or userId is required"})
	case id != "":
		canonical, ok := ids.Parse(id)
		if !ok {
			return StaffView{}, apperr.Validation("userId must be a UUID", map[string]string{"userId": "must be a UUID"})
		}
		u, err = s.d.Users.GetUser(ctx, canonical)
	default:
		if msg := users.ValidateEmail(email); msg != "" {
			return StaffView{}, apperr.Validation("Invalid request", map[string]string{"email": msg})
		}
		u, err = s.d.Users.GetUserByEmail(ctx, email)
	}
	if err != nil {
		return StaffView{}, err
	}
	if u.ID == ownerID {
		return StaffView{}, ErrOwnerStaff
	}
	m := StaffMember{StoreID: storeID, Slug: slug, UserID: u.ID, AddedAt: s.d.Now().UTC()}
	if err := s.d.Store.AddStaff(ctx, m); err != nil {
		return StaffView{}, err
	}
	return StaffView{StaffMember: m, User: u}, nil
}

// DeleteStaff takes the account's staff rights at the store away.
// Errors: ErrNotStaff.
func (s *Service) DeleteStaff(ctx context.Context, storeID, slug, userID string) error {
	id, ok := ids.Parse(userID)
	if !ok {
		return ErrNotStaff
	}
	return s.d.Store.RemoveStaff(ctx, StaffMember{StoreID: storeID, Slug: slug, UserID: id})
}

// ListStaff returns a page of the staff of the store with slug, with
// their accounts. It reads by slug, so it can start before the role
// check's read is done. Errors: page.ErrInvalidCursor.
func (s *Service) ListStaff(ctx context.Context, slug string, c page.Cursor) (page.Page[StaffView], error) {
	p, err := s.d.Store.ListStaff(ctx, NormalizeSlug(slug), c)
	if err != nil {
		return page.Page[StaffView]{}, err
	}
	userIDs := make([]string, len(p.Items))
	for i, m := range p.Items {
		userIDs[i] = m.UserID
	}
	us, _, err := s.d.Briefs.GetUsersAndBooks(ctx, userIDs, nil)
	if err != nil {
		return page.Page[StaffView]{}, err
	}
	return page.Map(p, func(m StaffMember) StaffView { return StaffView{StaffMember: m, User: us[m.UserID]} }), nil
}
