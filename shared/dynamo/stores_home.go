package dynamo

import (
	"context"
	"fmt"

	"github.com/bookplatform/backend/shared/stores"
	"github.com/bookplatform/backend/shared/users"
	"github.com/guregu/dynamo/v2"
)

// homeOfItem marks a reader's choice of the store as home store
// (HomeOfKey).
type homeOfItem struct {
	PK     string `dynamo:"PK"`
	SK     string `dynamo:"SK"`
	Type   string `dynamo:"type"`
	UserID string `dynamo:"userId"`
}

// SetHomeStore sets u's homeStoreId (conditional on the one read), puts
// the new store's mark and deletes the old one's, in one transaction that
// also requires the store to be live. Errors: stores.ErrNotFound,
// users.ErrChanged.
func (s *Bookstores) SetHomeStore(ctx context.Context, u *users.User, storeID string) error {
	k := HomeOfKey(storeID, u.ID)
	x := s.t.tx().
		check(s.t.check(StoreKey(storeID)).If(storeLive), stores.ErrNotFound).
		update(s.homeUpdate(u).Set("homeStoreId", storeID), users.ErrChanged).
		put(s.t.put(homeOfItem{PK: k.PK, SK: k.SK, Type: typeHomeOf, UserID: u.ID}), nil)
	if u.HomeStoreID != "" {
		x.delete(s.t.del(HomeOfKey(u.HomeStoreID, u.ID)), nil)
	}
	if err := x.run(ctx); err != nil {
		return fmt.Errorf("set home store of %s: %w", u.ID, err)
	}
	return nil
}

// ClearHomeStore removes u's homeStoreId and its mark. Errors:
// users.ErrChanged.
func (s *Bookstores) ClearHomeStore(ctx context.Context, u *users.User) error {
	err := s.t.tx().
		update(s.homeUpdate(u).Remove("homeStoreId"), users.ErrChanged).
		delete(s.t.del(HomeOfKey(u.HomeStoreID, u.ID)), nil).
		run(ctx)
	if err != nil {
		return fmt.Errorf("clear home store of %s: %w", u.ID, err)
	}
	return nil
}

// homeUpdate is an update of u's item conditional on the home store read.
func (s *Bookstores) homeUpdate(u *users.User) *dynamo.Update {
	upd := s.t.update(UserKey(u.ID))
	if u.HomeStoreID == "" {
		return upd.If("attribute_exists(PK) AND attribute_not_exists(homeStoreId)")
	}
	return upd.If("attribute_exists(PK) AND homeStoreId = ?", u.HomeStoreID)
}
