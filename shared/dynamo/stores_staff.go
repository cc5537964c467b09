package dynamo

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/bookplatform/backend/shared/page"
	"github.com/bookplatform/backend/shared/stores"
	"github.com/bookplatform/backend/shared/users"
)

// staffItem is a staff membership (StaffKey).
type staffItem struct {
	PK      string    `dynamo:"PK"`
	SK      string    `dynamo:"SK"`
	Type    string    `dynamo:"type"`
	StoreID string    `dynamo:"storeId"`
	UserID  string    `dynamo:"userId"`
	AddedAt time.Time `dynamo:"addedAt"`
}

// AddStaff writes the membership, adds the store to the user's staffAt
// and one to the store's staffCount, in one transaction. Errors:
// stores.ErrNotFound, stores.ErrStaffLimit (the store's condition failed:
// read to tell which), users.ErrNotFound, stores.ErrAlreadyStaff.
func (s *Bookstores) AddStaff(ctx context.Context, m stores.StaffMember) error {
	k := StaffKey(m.Slug, m.UserID)
	err := s.t.tx().
		update(s.t.update(StoreKey(m.StoreID)).Add("staffCount", 1).
			If(storeLive+" AND (attribute_not_exists(staffCount) OR staffCount < ?)", stores.MaxStaff), stores.ErrStaffLimit).
		put(s.t.put(staffItem{PK: k.PK, SK: k.SK, Type: typeStaff, StoreID: m.StoreID, UserID: m.UserID, AddedAt: m.AddedAt.UTC()}).
			If("attribute_not_exists(PK)"), stores.ErrAlreadyStaff).
		update(s.t.update(UserKey(m.UserID)).AddStringsToSet("staffAt", m.StoreID).If("attribute_exists(PK)"), users.ErrNotFound).
		run(ctx)
	if errors.Is(err, stores.ErrStaffLimit) {
		if _, gerr := s.GetStore(ctx, m.StoreID); gerr != nil {
			return gerr
		}
	}
	if err != nil {
		return fmt.Errorf("add staff %s to store %s: %w", m.UserID, m.StoreID, err)
	}
	return nil
}

// RemoveStaff deletes the membership, takes the store out of the user's
// staffAt and one off the store's staffCount, in one transaction.
// Errors: stores.ErrNotStaff.
func (s *Bookstores) RemoveStaff(ctx context.Context, m stores.StaffMember) error {
	x := s.t.tx().
		delete(s.t.del(StaffKey(m.Slug, m.UserID)).If("attribute_exists(PK) AND storeId = ?", m.StoreID), stores.ErrNotStaff).
		update(s.t.update(StoreKey(m.StoreID)).Add("staffCount", -1).If("attribute_exists(PK)"), stores.ErrNotFound).
		update(s.t.update(UserKey(m.UserID)).DeleteStringsFromSet("staffAt", m.StoreID).If("attribute_exists(PK)"), users.ErrNotFound)
	if err := x.run(ctx); err != nil {
		return fmt.Errorf("remove staff %s from store %s: %w", m.UserID, m.StoreID, err)
	}
	return nil
}

// ListStaff reads a page of a store's staff, by user id.
func (s *Bookstores) ListStaff(ctx context.Context, slug string, c page.Cursor) (page.Page[stores.StaffMember], error) {
	p, err := queryPage[staffItem](ctx, s.t, storeStaff(slug), c)
	if err != nil {
		return page.Page[stores.StaffMember]{}, err
	}
	return page.Map(p, func(it staffItem) stores.StaffMember {
		return stores.StaffMember{StoreID: it.StoreID, Slug: slug, UserID: it.UserID, AddedAt: it.AddedAt}
	}), nil
}
