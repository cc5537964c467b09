package stores

import (
	"context"
	"errors"
	"fmt"

	"github.com/bookplatform/backend/shared/ids"
	"github.com/bookplatform/backend/shared/storehost"
	"github.com/bookplatform/backend/shared/users"
	"golang.org/x/sync/errgroup"
)

// Hosts is the stores domain's storehost.Directory: what clubs,
// challenges and follows ask of stores (docs/decisions.md, "Clubs and
// challenges hosted by a store"). A store being deleted reads as unknown,
// as everywhere.
type Hosts struct {
	store Storer
	users UserReader
}

var _ storehost.Directory = Hosts{}

// NewHosts returns the Directory over the stores' storage and the
// accounts (whose staff memberships decide who may host).
func NewHosts(store Storer, u UserReader) Hosts { return Hosts{store: store, users: u} }

// Brief is how the store is shown beside a club, a challenge or a
// follow.
func (s *Store) Brief() storehost.Brief {
	return storehost.Brief{ID: s.ID, Name: s.Name, Slug: s.Slug, LogoURL: s.LogoURL}
}

// Host reads the store and the account side by side: the store's owner
// and its staff (the account's staff memberships, written with each
// membership) may host for it. Errors: storehost.ErrStoreNotFound (also
// for an id that is not a UUID), storehost.ErrNotStoreStaff.
func (h Hosts) Host(ctx context.Context, storeID, userID string) (storehost.Brief, error) {
	storeID, ok := ids.Parse(storeID)
	if !ok {
		return storehost.Brief{}, storehost.ErrStoreNotFound
	}
	var (
		st *Store
		u  *users.User
		g  errgroup.Group
	)
	g.Go(func() (err error) { st, err = h.store.GetStore(ctx, storeID); return err })
	g.Go(func() (err error) { u, err = h.users.GetUser(ctx, userID); return err })
	err := g.Wait()
	switch {
	case errors.Is(err, ErrNotFound):
		return storehost.Brief{}, fmt.Errorf("host for store %s: %w", storeID, storehost.ErrStoreNotFound)
	case errors.Is(err, users.ErrNotFound):
		return storehost.Brief{}, fmt.Errorf("host for store %s: %w", storeID, storehost.ErrNotStoreStaff)
	case err != nil:
		return storehost.Brief{}, fmt.Errorf("host for store %s: %w", storeID, err)
	case st.OwnerUserID != u.ID && !u.StaffAt(st.ID):
		return storehost.Brief{}, storehost.ErrNotStoreStaff
	}
	return st.Brief(), nil
}

// Briefs reads the live stores among storeIDs in one batch.
func (h Hosts) Briefs(ctx context.Context, storeIDs []string) (map[string]storehost.Brief, error) {
	byID, err := h.store.GetStores(ctx, storeIDs)
	if err != nil {
		return nil, err
	}
	out := make(map[string]storehost.Brief, len(byID))
	for id, st := range byID {
		out[id] = st.Brief()
	}
	return out, nil
}

// StoreID reads the slug's claim (one read). Errors:
// storehost.ErrStoreNotFound, also for a slug no store can have.
func (h Hosts) StoreID(ctx context.Context, slug string) (string, error) {
	slug = NormalizeSlug(slug)
	if ValidateSlug(slug) != "" {
		return "", storehost.ErrStoreNotFound
	}
	id, err := h.store.LookupSlug(ctx, slug)
	if errors.Is(err, ErrNotFound) {
		return "", fmt.Errorf("store %s: %w", slug, storehost.ErrStoreNotFound)
	}
	return id, err
}
