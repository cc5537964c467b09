package dynamo

import (
	"context"
	"errors"
	"fmt"
	"strings"

	"github.com/bookplatform/backend/shared/follows"
	"github.com/bookplatform/backend/shared/geo"
	"github.com/bookplatform/backend/shared/stores"
	"github.com/bookplatform/backend/shared/users"
	"github.com/guregu/dynamo/v2"
	"golang.org/x/sync/errgroup"
)

// DeleteStore removes a store in three steps (stores.Storer): mark it
// deleting; take back its staff memberships and home-store choices from
// their users (one small transaction each), let its clubs and challenges
// go, remove its follows and its stock, all side by side; then one transaction
// removes the store, its listing (and one from the directory's count),
// its domain claim, its index entries, its point-of-sale connection and
// sync lock, retires its slug claim (the
// owner's alone to use again), its (by then empty)
// directories' counts, and its owner's mark: the store item's condition
// makes a repeated deletion count nothing. Errors:
// stores.ErrNotFound.
func (s *Bookstores) DeleteStore(ctx context.Context, st *stores.Store) error {
	// The mark answers the store as it now is: a retry after a crash
	// knows only the id.
	var it storeItem
	err := s.t.update(StoreKey(st.ID)).Set("deleting", true).If("attribute_exists(PK)").Value(ctx, &it)
	if dynamo.IsCondCheckFailed(err) {
		return fmt.Errorf("delete store %s: %w", st.ID, stores.ErrNotFound)
	}
	if err != nil {
		return fmt.Errorf("mark store %s deleting: %w", st.ID, err)
	}
	var g errgroup.Group
	g.Go(func() error { return s.releaseChildren(ctx, st.ID, it.Slug) })
	g.Go(func() error { return (&Clubs{s.t}).releaseStore(ctx, st.ID) })
	g.Go(func() error { return (&Challenges{s.t}).releaseStore(ctx, st.ID) })
	g.Go(func() error { return (&Follows{s.t}).forgetFollowers(ctx, follows.KindStore, st.ID) })
	g.Go(func() error { return (&Inventory{s.t}).releaseStore(ctx, st.ID) })
	if err := g.Wait(); err != nil {
		return fmt.Errorf("delete store %s: %w", st.ID, err)
	}
	// Its wishlist demand counts, once no reader has it as home store
	// (a wish counted there after this fails its home check): a wish
	// still naming the store counts nowhere.
	if err := s.t.deletePrefix(ctx, StoreKey(st.ID).PK, storeDemandPrefix); err != nil {
		return fmt.Errorf("delete store %s: %w", st.ID, err)
	}
	// Its webhook endpoints and their count (WEBHOOK#..., WEBHOOKCOUNT),
	// once no endpoint can be added (Webhooks.Create checks the mark);
	// their deliveries age out (DeliveryKeep).
	if err := s.t.deletePrefix(ctx, StoreKey(st.ID).PK, webhookCountKeyPrefix); err != nil {
		return fmt.Errorf("delete store %s: %w", st.ID, err)
	}
	x := s.t.tx().
		delete(s.t.del(StoreKey(st.ID)).If("attribute_exists(PK)"), stores.ErrNotFound).
		delete(s.t.del(StoreListingKey(st.ID)), nil).
		update(s.t.update(StoreDirCountKey()).Add("count", -1), nil).
		put(s.t.put(slugClaimItem{PK: StoreSlugClaimKey(it.Slug).PK, SK: StoreSlugClaimKey(it.Slug).SK, Type: typeSlugClaim, OwnerUserID: it.OwnerUserID, Retired: true}).
			If("attribute_not_exists(PK) OR storeId = ?", st.ID), stores.ErrChanged).
		update(s.t.update(UserKey(it.OwnerUserID)).Remove("storeId").If("attribute_exists(PK) AND storeId = ?", st.ID), users.ErrChanged).
		// The point-of-sale connection's sealed tokens, and its sync
		// lock, go with the store (its jobs' records stay, as history).
		delete(s.t.del(ExtPosConnectionKey(st.ID)), nil).
		delete(s.t.del(ExtPosLockKey(st.ID)), nil).
		// Its email settings (a digest's entries age out by TTL).
		delete(s.t.del(StoreNotificationSettingsKey(st.ID)), nil)
	for _, dir := range storeDirs(st.ID) {
		x.delete(s.t.del(DirCountKey(dir)), nil)
	}
	if it.CustomDomain != "" {
		x.delete(s.t.del(StoreDomainClaimKey(it.CustomDomain)).If("attribute_not_exists(PK) OR storeId = ?", st.ID), stores.ErrChanged)
	}
	if it.Latitude != nil && it.Longitude != nil {
		s.leaveIndex(x, st.ID, &geo.Point{Lat: *it.Latitude, Lng: *it.Longitude}, false, false)
	}
	if err := x.run(ctx); err != nil {
		return fmt.Errorf("delete store %s: %w", st.ID, err)
	}
	return nil
}

// releaseChildren takes a deleting store's staff memberships and
// home-store marks back from their users and removes them. Each user's
// attribute changes only if it still names this store.
func (s *Bookstores) releaseChildren(ctx context.Context, storeID, slug string) error {
	var homes, staff []keyOnly
	var rg errgroup.Group
	rg.Go(func() error {
		return s.t.table.Get(AttrPK, StoreKey(storeID).PK).Range(AttrSK, dynamo.BeginsWith, homeOfPrefix).
			Consistent(true).Project(AttrPK, AttrSK).All(ctx, &homes)
	})
	rg.Go(func() error {
		return s.t.table.Get(AttrPK, StoreSlugClaimKey(slug).PK).Range(AttrSK, dynamo.BeginsWith, staffPrefix).
			Consistent(true).Project(AttrPK, AttrSK).All(ctx, &staff)
	})
	if err := rg.Wait(); err != nil {
		return fmt.Errorf("list children of store %s: %w", storeID, err)
	}
	items := append(homes, staff...)
	g, gctx := errgroup.WithContext(ctx)
	g.SetLimit(8)
	for _, it := range items {
		var userUpdate *dynamo.Update
		switch {
		case strings.HasPrefix(it.SK, homeOfPrefix):
			userUpdate = s.t.update(UserKey(strings.TrimPrefix(it.SK, homeOfPrefix))).Remove("homeStoreId").
				If("homeStoreId = ?", storeID)
		case strings.HasPrefix(it.SK, staffPrefix):
			userUpdate = s.t.update(UserKey(strings.TrimPrefix(it.SK, staffPrefix))).DeleteStringsFromSet("staffAt", storeID).
				If("attribute_exists(PK)")
		default:
			continue
		}
		key := Key{it.PK, it.SK}
		g.Go(func() error {
			// A user whose attribute moved on (or who is gone) keeps it:
			// the mark goes all the same.
			err := s.t.tx().update(userUpdate, nil).delete(s.t.del(key), nil).run(gctx)
			if errors.Is(err, errUnexpectedCondition) {
				err = s.t.del(key).Run(gctx)
			}
			return err
		})
	}
	if err := g.Wait(); err != nil {
		return fmt.Errorf("release children of store %s: %w", storeID, err)
	}
	return nil
}
