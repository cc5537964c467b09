package dynamo

import (
	"context"
	"errors"
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
// also requires the store to be live; then it moves u's wishes to the new
// store's demand counts (Wishlists.MoveWishes). The store u has already
// chosen writes nothing but the move, which finishes one a failure cut
// short. Errors: stores.ErrNotFound, users.ErrChanged.
func (s *Bookstores) SetHomeStore(ctx context.Context, u *users.User, storeID string) error {
	if u.HomeStoreID == storeID {
		return s.moveWishes(ctx, u.ID, storeID)
	}
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
	return s.moveWishes(ctx, u.ID, storeID)
}

// ClearHomeStore removes u's homeStoreId and its mark, then takes u's
// wishes from the old store's demand counts. Errors: users.ErrChanged.
func (s *Bookstores) ClearHomeStore(ctx context.Context, u *users.User) error {
	if u.HomeStoreID == "" {
		// Nothing to clear: only finish a move a failure cut short.
		return s.moveWishes(ctx, u.ID, "")
	}
	err := s.t.tx().
		update(s.homeUpdate(u).Remove("homeStoreId"), users.ErrChanged).
		delete(s.t.del(HomeOfKey(u.HomeStoreID, u.ID)), nil).
		run(ctx)
	if err != nil {
		return fmt.Errorf("clear home store of %s: %w", u.ID, err)
	}
	return s.moveWishes(ctx, u.ID, "")
}

// moveWishes moves userID's wishes to home. A move overtaken by a later
// change of home store leaves the rest to that change's move: the home
// store set is still the answer.
func (s *Bookstores) moveWishes(ctx context.Context, userID, home string) error {
	err := (&Wishlists{s.t}).MoveWishes(ctx, userID, home)
	if err != nil && !errors.Is(err, errHomeMoved) {
		return fmt.Errorf("home store of %s: %w", userID, err)
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
