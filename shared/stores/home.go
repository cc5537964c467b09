package stores

import (
	"context"
	"errors"

	"github.com/bookplatform/backend/shared/apperr"
	"github.com/bookplatform/backend/shared/ids"
	"github.com/bookplatform/backend/shared/users"
)

// A reader's home store (docs/decisions.md, "Home store"): one at most,
// kept on the account (homeStoreId) and indexed in the store's partition,
// so that deleting a store takes the choice back from every reader who
// made it instead of leaving them pointing at nothing.

// HomeStorer is the storage of home-store choices (part of Storer).
type HomeStorer interface {
	// SetHomeStore makes storeID u's home store, conditional on u's
	// current one, keeping the store's index of the users who chose it,
	// and moves u's wishlist demand to it (u's current store: only the
	// move). Errors: ErrNotFound (no such store), users.ErrChanged.
	SetHomeStore(ctx context.Context, u *users.User, storeID string) error
	// ClearHomeStore removes u's home store and takes u's wishlist
	// demand from it. Errors: users.ErrChanged.
	ClearHomeStore(ctx context.Context, u *users.User) error
}

// errHomeStoreID: PUT /users/me/home-store with an id that is not one.
var errHomeStoreID = apperr.Validation("storeId must be a store id (a UUID)", map[string]string{"storeId": "must be a UUID"})

// SetHome makes the store the caller's home store. Errors:
// ValidationError (storeId missing or not a UUID), ErrNotFound (no such
// store), users.ErrChanged (a concurrent change won).
func (s *Service) SetHome(ctx context.Context, caller *users.User, storeID string) (string, error) {
	if storeID == "" {
		return "", apperr.Validation("storeId is required", map[string]string{"storeId": "is required"})
	}
	id, ok := ids.Parse(storeID)
	if !ok {
		return "", errHomeStoreID
	}
	// The store already chosen is passed on too: storage writes no
	// choice again, only finishes moving the reader's wishlist demand
	// there if a failure cut that short.
	return id, s.d.Store.SetHomeStore(ctx, caller, id)
}

// GetHome returns the caller's home store. Errors: ErrNoHomeStore.
func (s *Service) GetHome(ctx context.Context, caller *users.User) (*Store, error) {
	if caller.HomeStoreID == "" {
		return nil, ErrNoHomeStore
	}
	st, err := s.d.Store.GetStore(ctx, caller.HomeStoreID)
	if errors.Is(err, ErrNotFound) {
		// Its deletion is taking the choice back right now.
		return nil, ErrNoHomeStore
	}
	return st, err
}

// DeleteHome removes the caller's home store; none set is not an error.
// It reports whether there was one. With none set, storage is still
// called: it finishes moving the reader's wishlist demand off the store
// a cut-short clear left it at.
func (s *Service) DeleteHome(ctx context.Context, caller *users.User) (bool, error) {
	return caller.HomeStoreID != "", s.d.Store.ClearHomeStore(ctx, caller)
}
