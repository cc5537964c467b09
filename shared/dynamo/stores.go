package dynamo

import (
	"context"
	"errors"
	"fmt"
	"maps"
	"strconv"
	"strings"
	"time"

	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"
	"github.com/bookplatform/backend/shared/follows"
	"github.com/bookplatform/backend/shared/geo"
	"github.com/bookplatform/backend/shared/page"
	"github.com/bookplatform/backend/shared/stores"
	"github.com/bookplatform/backend/shared/users"
	"github.com/guregu/dynamo/v2"
	"golang.org/x/sync/errgroup"
)

// Bookstores stores the stores: profiles, slug and domain claims, the
// listings the two store lists read, staff memberships and home-store
// marks (keys.go says where each lives).
type Bookstores struct{ t *table }

var _ stores.Storer = (*Bookstores)(nil)

// storeItem is a store as stored (StoreKey).
type storeItem struct {
	PK               string            `dynamo:"PK"`
	SK               string            `dynamo:"SK"`
	Type             string            `dynamo:"type"`
	ID               string            `dynamo:"id"`
	Slug             string            `dynamo:"slug"`
	Name             string            `dynamo:"name"`
	Description      string            `dynamo:"description"`
	LogoURL          string            `dynamo:"logoUrl"`
	BannerURL        string            `dynamo:"bannerUrl"`
	PrimaryColor     string            `dynamo:"primaryColor"`
	AddressLine1     string            `dynamo:"addressLine1"`
	AddressLine2     string            `dynamo:"addressLine2"`
	City             string            `dynamo:"city"`
	State            string            `dynamo:"state"`
	PostalCode       string            `dynamo:"postalCode"`
	Country          string            `dynamo:"country"`
	Phone            string            `dynamo:"phone"`
	Email            string            `dynamo:"email"`
	Website          string            `dynamo:"website"`
	Hours            map[string]string `dynamo:"hours"`
	Latitude         *float64          `dynamo:"latitude"`
	Longitude        *float64          `dynamo:"longitude"`
	LocationGiven    bool              `dynamo:"locationGiven"`
	TaxRateMicros    int               `dynamo:"taxRateMicros"`
	CustomDomain     string            `dynamo:"customDomain"`
	DomainStatus     string            `dynamo:"domainStatus"`
	DomainTenantID   string            `dynamo:"domainTenantId"`
	DomainVerifiedAt *time.Time        `dynamo:"domainVerifiedAt"`
	FollowerCount    int               `dynamo:"followerCount"`
	InventoryCount   int               `dynamo:"inventoryCount"`
	StaffCount       int               `dynamo:"staffCount"`
	OwnerUserID      string            `dynamo:"ownerUserId"`
	Version          int               `dynamo:"version"`
	// Deleting marks a store whose deletion has begun: it reads as gone,
	// and nothing new (staff, home-store marks) may hang off it.
	Deleting  bool      `dynamo:"deleting,omitempty"`
	CreatedAt time.Time `dynamo:"createdAt"`
	UpdatedAt time.Time `dynamo:"updatedAt"`
}

func toStoreItem(s *stores.Store) storeItem {
	k := StoreKey(s.ID)
	it := storeItem{
		PK: k.PK, SK: k.SK, Type: typeStore,
		ID: s.ID, Slug: s.Slug, Name: s.Name, Description: s.Description, LogoURL: s.LogoURL, BannerURL: s.BannerURL,
		PrimaryColor: s.PrimaryColor, AddressLine1: s.AddressLine1, AddressLine2: s.AddressLine2, City: s.City,
		State: s.State, PostalCode: s.PostalCode, Country: s.Country, Phone: s.Phone, Email: s.Email, Website: s.Website,
		Hours: s.Hours, LocationGiven: s.LocationGiven, TaxRateMicros: s.TaxRateMicros,
		CustomDomain: s.Domain.Name, DomainStatus: string(s.Domain.Status), DomainTenantID: s.Domain.TenantID, DomainVerifiedAt: s.Domain.VerifiedAt,
		FollowerCount: s.FollowerCount, InventoryCount: s.InventoryCount, StaffCount: s.StaffCount,
		OwnerUserID: s.OwnerUserID, Version: s.Version, CreatedAt: s.CreatedAt.UTC(), UpdatedAt: s.UpdatedAt.UTC(),
	}
	if s.Location != nil {
		it.Latitude, it.Longitude = &s.Location.Lat, &s.Location.Lng
	}
	return it
}

func (it storeItem) toStore() *stores.Store {
	s := &stores.Store{
		ID: it.ID, Slug: it.Slug, Name: it.Name, Description: it.Description, LogoURL: it.LogoURL, BannerURL: it.BannerURL,
		PrimaryColor: it.PrimaryColor,
		Address: stores.Address{
			AddressLine1: it.AddressLine1, AddressLine2: it.AddressLine2, City: it.City, State: it.State,
			PostalCode: it.PostalCode, Country: it.Country,
		},
		Phone: it.Phone, Email: it.Email, Website: it.Website, Hours: stores.Hours(it.Hours),
		LocationGiven: it.LocationGiven, TaxRateMicros: it.TaxRateMicros,
		Domain: stores.Domain{
			Name: it.CustomDomain, Status: stores.DomainStatus(it.DomainStatus), TenantID: it.DomainTenantID, VerifiedAt: it.DomainVerifiedAt,
		},
		FollowerCount: it.FollowerCount, InventoryCount: it.InventoryCount, StaffCount: it.StaffCount,
		OwnerUserID: it.OwnerUserID, Version: it.Version, CreatedAt: it.CreatedAt, UpdatedAt: it.UpdatedAt,
	}
	if s.Hours == nil {
		s.Hours = stores.Hours{}
	}
	if s.Domain.Status == "" {
		s.Domain.Status = stores.DomainNone
	}
	if it.Latitude != nil && it.Longitude != nil {
		s.Location = &geo.Point{Lat: *it.Latitude, Lng: *it.Longitude}
	}
	return s
}

// slugClaimItem makes a slug unique (StoreSlugClaimKey) and is what a
// role check reads. A deleted store's claim stays, retired (no storeId):
// its slug is its owner's alone to use again, so a custom domain whose
// CNAME still names {slug}.<suffix> can never come to serve another
// party's store.
type slugClaimItem struct {
	PK          string `dynamo:"PK"`
	SK          string `dynamo:"SK"`
	Type        string `dynamo:"type"`
	StoreID     string `dynamo:"storeId,omitempty"`
	OwnerUserID string `dynamo:"ownerUserId"`
	Retired     bool   `dynamo:"retired,omitempty"`
}

// listingItem is a store's entry in the directory by name
// (StoreListingKey).
type listingItem struct {
	PK      string `dynamo:"PK"`
	SK      string `dynamo:"SK"`
	Type    string `dynamo:"type"`
	GSI2PK  string `dynamo:"GSI2PK"`
	GSI2SK  string `dynamo:"GSI2SK"`
	StoreID string `dynamo:"storeId"`
}

func toListingItem(s *stores.Store) listingItem {
	k := StoreListingKey(s.ID)
	return listingItem{
		PK: k.PK, SK: k.SK, Type: typeStoreListing, StoreID: s.ID,
		GSI2PK: storeDirectory, GSI2SK: storeDirectorySK(s.Name, s.ID),
	}
}

// cellEntry is a store's value in its cell's item.
func cellEntry(s *stores.Store) string {
	return s.ID + "," + strconv.FormatFloat(s.Location.Lat, 'f', -1, 64) + "," + strconv.FormatFloat(s.Location.Lng, 'f', -1, 64)
}

// positionItem is a store's entry in the position list
// (StorePositionKey), which a wide search reads by ranges.
type positionItem struct {
	PK        string  `dynamo:"PK"`
	SK        string  `dynamo:"SK"`
	Type      string  `dynamo:"type"`
	StoreID   string  `dynamo:"storeId"`
	Latitude  float64 `dynamo:"latitude"`
	Longitude float64 `dynamo:"longitude"`
}

// toPositionItem is st's entry in the position list (st has a position).
func toPositionItem(st *stores.Store) positionItem {
	k := StorePositionKey(*st.Location, st.ID)
	return positionItem{PK: k.PK, SK: k.SK, Type: typeStorePosition, StoreID: st.ID, Latitude: st.Location.Lat, Longitude: st.Location.Lng}
}

// enterIndex adds to x the writes that put st in the two indexes of
// positions: its cell's item and the position list (none without a
// position).
func (s *Bookstores) enterIndex(x *tx, st *stores.Store) {
	if st.Location == nil {
		return
	}
	x.update(s.t.update(StoreCellKey(geo.Cell(*st.Location))).Set(storeCellAttr(st.ID), cellEntry(st)).Set("type", typeStoreCell), nil)
	x.put(s.t.put(toPositionItem(st)), nil)
}

// leaveIndex adds to x the writes that take a store at a position out of
// both indexes: from its cell's item unless keepCell (one transaction
// may change an item once: a move within a cell is one update of its
// entry), and from the position list unless keepPosition (a move within
// the same geohash of geo.HashPrecision is one put).
func (s *Bookstores) leaveIndex(x *tx, storeID string, at *geo.Point, keepCell, keepPosition bool) {
	if at == nil {
		return
	}
	if !keepCell {
		x.update(s.t.update(StoreCellKey(geo.Cell(*at))).Remove(storeCellAttr(storeID)), nil)
	}
	if !keepPosition {
		x.delete(s.t.del(StorePositionKey(*at, storeID)), nil)
	}
}

// staffItem is a staff membership (StaffKey).
type staffItem struct {
	PK      string    `dynamo:"PK"`
	SK      string    `dynamo:"SK"`
	Type    string    `dynamo:"type"`
	StoreID string    `dynamo:"storeId"`
	UserID  string    `dynamo:"userId"`
	AddedAt time.Time `dynamo:"addedAt"`
}

// homeOfItem marks a reader's choice of the store as home store
// (HomeOfKey).
type homeOfItem struct {
	PK     string `dynamo:"PK"`
	SK     string `dynamo:"SK"`
	Type   string `dynamo:"type"`
	UserID string `dynamo:"userId"`
}

// domainClaimItem makes a custom domain unique and answers the lookup by
// domain (StoreDomainClaimKey).
type domainClaimItem struct {
	PK      string `dynamo:"PK"`
	SK      string `dynamo:"SK"`
	Type    string `dynamo:"type"`
	Domain  string `dynamo:"domain"`
	StoreID string `dynamo:"storeId"`
	Slug    string `dynamo:"slug"`
	Name    string `dynamo:"name"`
	Status  string `dynamo:"status"`
	// VerifiedAt is when the domain was first verified for this store:
	// from then on the claim is never taken over (TakeOverDomain).
	VerifiedAt *time.Time `dynamo:"verifiedAt"`
}

func (c domainClaimItem) toClaim() stores.DomainClaim {
	return stores.DomainClaim{Domain: c.Domain, StoreID: c.StoreID, Slug: c.Slug, Name: c.Name, Status: stores.DomainStatus(c.Status), VerifiedAt: c.VerifiedAt}
}

func newDomainClaim(s *stores.Store, domain string, status stores.DomainStatus) domainClaimItem {
	k := StoreDomainClaimKey(domain)
	return domainClaimItem{PK: k.PK, SK: k.SK, Type: typeDomainClaim, Domain: domain, StoreID: s.ID, Slug: s.Slug, Name: s.Name, Status: string(status)}
}

// Conditions on a store item: it exists and is not being deleted (live);
// and so at a version.
const (
	storeLive        = "attribute_exists(PK) AND attribute_not_exists(deleting)"
	storeAtVersion   = storeLive + " AND version = ?"
	errStoreIDTaken  = storeError("store id already exists")
	errListingExists = storeError("store listing already exists")
)

type storeError string

func (e storeError) Error() string { return string(e) }

// CreateStore writes the store, its listing (and one more on the
// directory's count), its slug claim and its index entries, and marks its
// owner, in one transaction: the slug claim's put and the owner's
// condition (no store yet) make a slug unique and a store per owner hold
// under concurrency, and the count exact. Errors: stores.ErrSlugTaken, stores.ErrAlreadyOwner,
// users.ErrNotFound.
func (s *Bookstores) CreateStore(ctx context.Context, st *stores.Store) error {
	claim := StoreSlugClaimKey(st.Slug)
	x := s.t.tx().
		put(s.t.put(slugClaimItem{PK: claim.PK, SK: claim.SK, Type: typeSlugClaim, StoreID: st.ID, OwnerUserID: st.OwnerUserID}).
			If("attribute_not_exists(PK) OR (retired = ? AND ownerUserId = ?)", true, st.OwnerUserID), stores.ErrSlugTaken).
		update(s.t.update(UserKey(st.OwnerUserID)).Set("storeId", st.ID).
			If("attribute_exists(PK) AND attribute_not_exists(storeId)"), stores.ErrAlreadyOwner).
		put(s.t.put(toStoreItem(st)).If("attribute_not_exists(PK)"), errStoreIDTaken).
		put(s.t.put(toListingItem(st)).If("attribute_not_exists(PK)"), errListingExists).
		update(s.t.update(StoreDirCountKey()).Add("count", 1).Set("type", typeDirCount), nil)
	s.enterIndex(x, st)
	if err := x.run(ctx); err != nil {
		return fmt.Errorf("create store %s: %w", st.Slug, err)
	}
	return nil
}

// GetStore reads a store, strongly consistent. Errors: stores.ErrNotFound.
func (s *Bookstores) GetStore(ctx context.Context, id string) (*stores.Store, error) {
	var it storeItem
	err := s.t.get(StoreKey(id)).Consistent(true).One(ctx, &it)
	if errors.Is(err, dynamo.ErrNotFound) || (err == nil && it.Deleting) {
		return nil, fmt.Errorf("get store %s: %w", id, stores.ErrNotFound)
	}
	if err != nil {
		return nil, fmt.Errorf("get store %s: %w", id, err)
	}
	return it.toStore(), nil
}

// GetStoreBySlug reads the slug claim, then the store.
func (s *Bookstores) GetStoreBySlug(ctx context.Context, slug string) (*stores.Store, error) {
	c, err := s.slugClaim(ctx, slug)
	if err != nil {
		return nil, err
	}
	return s.GetStore(ctx, c.StoreID)
}

// LookupSlug reads the id of the store with slug: its claim, one GetItem
// (consistent). Errors: stores.ErrNotFound.
func (s *Bookstores) LookupSlug(ctx context.Context, slug string) (string, error) {
	c, err := s.slugClaim(ctx, slug)
	if err != nil {
		return "", err
	}
	return c.StoreID, nil
}

func (s *Bookstores) slugClaim(ctx context.Context, slug string) (slugClaimItem, error) {
	var c slugClaimItem
	err := s.t.get(StoreSlugClaimKey(slug)).Consistent(true).One(ctx, &c)
	if errors.Is(err, dynamo.ErrNotFound) || (err == nil && c.Retired) {
		return c, fmt.Errorf("slug %s: %w", slug, stores.ErrNotFound)
	}
	if err != nil {
		return c, fmt.Errorf("get slug claim %s: %w", slug, err)
	}
	return c, nil
}

// StoreHeader is a store's id, slug and owner for a role check: one read
// of the slug claim (by slug) or of the store item's three attributes (by
// id). A store being deleted still has one, so its owner can finish the
// deletion. Errors: stores.ErrNotFound.
func (s *Bookstores) StoreHeader(ctx context.Context, bySlug bool, value string) (id, slug, owner string, err error) {
	if bySlug {
		c, err := s.slugClaim(ctx, value)
		if err != nil {
			return "", "", "", err
		}
		return c.StoreID, value, c.OwnerUserID, nil
	}
	var it storeItem
	err = s.t.get(StoreKey(value)).Project("id", "slug", "ownerUserId").Consistent(true).One(ctx, &it)
	if errors.Is(err, dynamo.ErrNotFound) {
		return "", "", "", fmt.Errorf("get store %s: %w", value, stores.ErrNotFound)
	}
	if err != nil {
		return "", "", "", fmt.Errorf("get store %s: %w", value, err)
	}
	return it.ID, it.Slug, it.OwnerUserID, nil
}

// GetStores reads stores in one BatchGetItem (100 keys a call): a page of
// a store list. A store being deleted is left out.
func (s *Bookstores) GetStores(ctx context.Context, storeIDs []string) (map[string]*stores.Store, error) {
	out := make(map[string]*stores.Store, len(storeIDs))
	keys := make([]dynamo.Keyed, 0, len(storeIDs))
	for _, id := range distinct(storeIDs) {
		k := StoreKey(id)
		keys = append(keys, dynamo.Keys{k.PK, k.SK})
	}
	if len(keys) == 0 {
		return out, nil
	}
	var items []storeItem
	err := s.t.table.Batch(AttrPK, AttrSK).Get(keys...).All(ctx, &items)
	if err != nil && !errors.Is(err, dynamo.ErrNotFound) {
		return nil, fmt.Errorf("batch get %d stores: %w", len(keys), err)
	}
	for _, it := range items {
		if !it.Deleting {
			out[it.ID] = it.toStore()
		}
	}
	return out, nil
}

// UpdateStore writes only the attributes of next that differ from prev,
// conditional on prev's version: a concurrent update of another field is
// never overwritten, and of two concurrent updates the later re-reads.
// The listing is rewritten in the same transaction when the name or the
// position changed, and the domain claim's copy of the name. Errors:
// stores.ErrNotFound, stores.ErrChanged.
func (s *Bookstores) UpdateStore(ctx context.Context, prev, next *stores.Store) error {
	upd := s.t.update(StoreKey(next.ID)).Set("version", next.Version).Set("updatedAt", next.UpdatedAt.UTC()).
		If(storeAtVersion, prev.Version)
	for _, f := range []struct{ attr, old, value string }{
		{"name", prev.Name, next.Name}, {"description", prev.Description, next.Description},
		{"primaryColor", prev.PrimaryColor, next.PrimaryColor},
		{"addressLine1", prev.AddressLine1, next.AddressLine1}, {"addressLine2", prev.AddressLine2, next.AddressLine2},
		{"city", prev.City, next.City}, {"state", prev.State, next.State}, {"postalCode", prev.PostalCode, next.PostalCode},
		{"country", prev.Country, next.Country}, {"phone", prev.Phone, next.Phone}, {"email", prev.Email, next.Email},
		{"website", prev.Website, next.Website},
	} {
		if f.old != f.value {
			upd = setOrRemove(upd, f.attr, f.value)
		}
	}
	if !maps.Equal(prev.Hours, next.Hours) {
		if len(next.Hours) == 0 {
			upd = upd.Remove("hours")
		} else {
			upd = upd.Set("hours", map[string]string(next.Hours))
		}
	}
	moved := !samePoint(prev.Location, next.Location)
	if moved {
		if next.Location == nil {
			upd = upd.Remove("latitude", "longitude")
		} else {
			upd = upd.Set("latitude", next.Location.Lat).Set("longitude", next.Location.Lng)
		}
	}
	if prev.LocationGiven != next.LocationGiven {
		upd = upd.Set("locationGiven", next.LocationGiven)
	}
	if prev.TaxRateMicros != next.TaxRateMicros {
		upd = upd.Set("taxRateMicros", next.TaxRateMicros)
	}
	x := s.t.tx().update(upd, stores.ErrChanged)
	if prev.Name != next.Name {
		x.put(s.t.put(toListingItem(next)), nil)
	}
	if moved {
		sameCell, samePosition := false, false
		if prev.Location != nil && next.Location != nil {
			sameCell = geo.Cell(*prev.Location) == geo.Cell(*next.Location)
			samePosition = geo.Hash(*prev.Location) == geo.Hash(*next.Location)
		}
		s.leaveIndex(x, prev.ID, prev.Location, sameCell, samePosition)
		s.enterIndex(x, next)
	}
	if prev.Name != next.Name && next.Domain.Name != "" {
		x.update(s.t.update(StoreDomainClaimKey(next.Domain.Name)).Set("name", next.Name).If("storeId = ?", next.ID), stores.ErrChanged)
	}
	err := x.run(ctx)
	if errors.Is(err, stores.ErrChanged) {
		if _, gerr := s.GetStore(ctx, next.ID); gerr != nil {
			return gerr
		}
	}
	if err != nil {
		return fmt.Errorf("update store %s: %w", next.ID, err)
	}
	return nil
}

func samePoint(a, b *geo.Point) bool {
	if a == nil || b == nil {
		return a == b
	}
	return *a == *b
}

// SetImage points the store's logo or banner at url. Errors:
// stores.ErrNotFound.
func (s *Bookstores) SetImage(ctx context.Context, storeID, field, url string, now time.Time) error {
	err := s.t.update(StoreKey(storeID)).Set(field, url).Set("updatedAt", now.UTC()).If(storeLive).Run(ctx)
	if dynamo.IsCondCheckFailed(err) {
		return fmt.Errorf("set %s of store %s: %w", field, storeID, stores.ErrNotFound)
	}
	if err != nil {
		return fmt.Errorf("set %s of store %s: %w", field, storeID, err)
	}
	return nil
}

// DeleteStore removes a store in three steps (stores.Storer): mark it
// deleting; take back its staff memberships and home-store choices from
// their users (one small transaction each), let its clubs and challenges
// go and remove its follows, all side by side; then one transaction
// removes the store, its listing (and one from the directory's count),
// its domain claim, its index entries, retires its slug claim (the
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
	if err := g.Wait(); err != nil {
		return fmt.Errorf("delete store %s: %w", st.ID, err)
	}
	x := s.t.tx().
		delete(s.t.del(StoreKey(st.ID)).If("attribute_exists(PK)"), stores.ErrNotFound).
		delete(s.t.del(StoreListingKey(st.ID)), nil).
		update(s.t.update(StoreDirCountKey()).Add("count", -1), nil).
		put(s.t.put(slugClaimItem{PK: StoreSlugClaimKey(it.Slug).PK, SK: StoreSlugClaimKey(it.Slug).SK, Type: typeSlugClaim, OwnerUserID: it.OwnerUserID, Retired: true}).
			If("attribute_not_exists(PK) OR storeId = ?", st.ID), stores.ErrChanged).
		update(s.t.update(UserKey(it.OwnerUserID)).Remove("storeId").If("attribute_exists(PK) AND storeId = ?", st.ID), users.ErrChanged)
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

// ListingsIn reads the stores a search plan holds (geo.Plan): its cells,
// one BatchGetItem per 100 side by side (a cell without stores has no
// item); or its ranges of the position list, one Query each side by side
// (at most geo.Parts), each reading the small entries of the stores in
// it.
func (s *Bookstores) ListingsIn(ctx context.Context, plan geo.Plan) ([]stores.Listing, error) {
	if len(plan.Ranges) > 0 {
		return s.listingsInRanges(ctx, plan.Ranges)
	}
	return s.listingsInCells(ctx, plan.Cells)
}

func (s *Bookstores) listingsInRanges(ctx context.Context, ranges []geo.Range) ([]stores.Listing, error) {
	results := make([][]positionItem, len(ranges))
	g, gctx := errgroup.WithContext(ctx)
	for i, r := range ranges {
		g.Go(func() error {
			// A range of cells is every geohash from its first cell's to
			// the end of its last one's ("~" sorts after every geohash
			// character).
			return s.t.table.Get(AttrPK, storePositionPK(r.Part())).Range(AttrSK, dynamo.Between, r.From, r.To+"~").
				Project("storeId", "latitude", "longitude").All(gctx, &results[i])
		})
	}
	if err := g.Wait(); err != nil {
		return nil, fmt.Errorf("read %d ranges of store positions: %w", len(ranges), err)
	}
	var out []stores.Listing
	for _, items := range results {
		for _, it := range items {
			out = append(out, stores.Listing{StoreID: it.StoreID, Location: geo.Point{Lat: it.Latitude, Lng: it.Longitude}})
		}
	}
	return out, nil
}

func (s *Bookstores) listingsInCells(ctx context.Context, cells []string) ([]stores.Listing, error) {
	var chunks [][]dynamo.Keyed
	for i, c := range cells {
		if i%100 == 0 {
			chunks = append(chunks, nil)
		}
		k := StoreCellKey(c)
		chunks[len(chunks)-1] = append(chunks[len(chunks)-1], dynamo.Keys{k.PK, k.SK})
	}
	results := make([][]dynamo.Item, len(chunks))
	g, gctx := errgroup.WithContext(ctx)
	for i, keys := range chunks {
		g.Go(func() error {
			err := s.t.table.Batch(AttrPK, AttrSK).Get(keys...).All(gctx, &results[i])
			if errors.Is(err, dynamo.ErrNotFound) {
				return nil
			}
			return err
		})
	}
	if err := g.Wait(); err != nil {
		return nil, fmt.Errorf("read %d store cells: %w", len(cells), err)
	}
	var out []stores.Listing
	for _, items := range results {
		for _, item := range items {
			for name, av := range item {
				v, ok := av.(*types.AttributeValueMemberS)
				if !ok || len(name) != 33 || name[0] != 's' {
					continue
				}
				if l, ok := parseCellEntry(v.Value); ok {
					out = append(out, l)
				}
			}
		}
	}
	return out, nil
}

// parseCellEntry reads "<id>,<latitude>,<longitude>".
func parseCellEntry(v string) (stores.Listing, bool) {
	parts := strings.Split(v, ",")
	if len(parts) != 3 {
		return stores.Listing{}, false
	}
	lat, err1 := strconv.ParseFloat(parts[1], 64)
	lng, err2 := strconv.ParseFloat(parts[2], 64)
	if err1 != nil || err2 != nil {
		return stores.Listing{}, false
	}
	return stores.Listing{StoreID: parts[0], Location: geo.Point{Lat: lat, Lng: lng}}, true
}

// ListByName reads one offset page of the directory (GSI2, by folded
// name) and its count item beside it: total is exact (the count changes
// in the transactions that add and remove listings), and an offset page
// is the listings from offset, read after skipping offset keys (small
// items; fine for the directory's thousands of stores).
func (s *Bookstores) ListByName(ctx context.Context, o page.Offset) ([]string, int, error) {
	var (
		items []listingItem
		count dirCountItem
		g     errgroup.Group
	)
	g.Go(func() error {
		return s.t.table.Get(GSI2.PartitionKey, storeDirectory).Index(GSI2.Name).Project("storeId").Limit(o.Offset+o.Limit).All(ctx, &items)
	})
	g.Go(func() error {
		err := s.t.get(StoreDirCountKey()).Consistent(true).Project("count").One(ctx, &count)
		if errors.Is(err, dynamo.ErrNotFound) {
			return nil // no store was ever created
		}
		return err
	})
	if err := g.Wait(); err != nil {
		return nil, 0, fmt.Errorf("store directory: %w", err)
	}
	out := make([]string, 0, o.Limit)
	for i := o.Offset; i < len(items); i++ {
		out = append(out, items[i].StoreID)
	}
	return out, count.Count, nil
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

// ClaimDomain puts the domain's claim (absent, or this store's already)
// and sets the store's domain PENDING, conditional on the domain the
// store had, whose claim goes in the same transaction. Errors:
// stores.ErrDomainTaken, stores.ErrChanged.
func (s *Bookstores) ClaimDomain(ctx context.Context, st *stores.Store, domain string, now time.Time) error {
	upd := s.t.update(StoreKey(st.ID)).Set("customDomain", domain).Set("domainStatus", string(stores.DomainPending)).
		Set("updatedAt", now.UTC()).Remove("domainVerifiedAt")
	if st.Domain.Name != domain {
		upd = upd.Remove("domainTenantId")
	}
	if st.Domain.Name == "" {
		upd = upd.If(storeLive + " AND attribute_not_exists(customDomain)")
	} else {
		upd = upd.If(storeLive+" AND customDomain = ?", st.Domain.Name)
	}
	x := s.t.tx().
		put(s.t.put(newDomainClaim(st, domain, stores.DomainPending)).If("attribute_not_exists(PK) OR storeId = ?", st.ID), stores.ErrDomainTaken).
		update(upd, stores.ErrChanged)
	if st.Domain.Name != "" && st.Domain.Name != domain {
		x.delete(s.t.del(StoreDomainClaimKey(st.Domain.Name)).If("storeId = ?", st.ID), stores.ErrChanged)
	}
	if err := x.run(ctx); err != nil {
		return fmt.Errorf("claim domain %s for store %s: %w", domain, st.ID, err)
	}
	return nil
}

// DomainHolder reads a domain's claim and its store's domain (its
// tenant), both strongly consistent: what a takeover is conditional on.
// A claim whose store is gone has a zero Domain. Errors:
// stores.ErrNotFound (no claim).
func (s *Bookstores) DomainHolder(ctx context.Context, domain string) (stores.DomainClaim, stores.Domain, error) {
	var c domainClaimItem
	err := s.t.get(StoreDomainClaimKey(domain)).Consistent(true).One(ctx, &c)
	if errors.Is(err, dynamo.ErrNotFound) {
		return stores.DomainClaim{}, stores.Domain{}, fmt.Errorf("domain %s: %w", domain, stores.ErrNotFound)
	}
	if err != nil {
		return stores.DomainClaim{}, stores.Domain{}, fmt.Errorf("get domain claim %s: %w", domain, err)
	}
	var it storeItem
	err = s.t.get(StoreKey(c.StoreID)).Project("customDomain", "domainStatus", "domainTenantId", "domainVerifiedAt").Consistent(true).One(ctx, &it)
	if err != nil && !errors.Is(err, dynamo.ErrNotFound) {
		return stores.DomainClaim{}, stores.Domain{}, fmt.Errorf("get store %s: %w", c.StoreID, err)
	}
	d := stores.Domain{Name: it.CustomDomain, Status: stores.DomainStatus(it.DomainStatus), TenantID: it.DomainTenantID, VerifiedAt: it.DomainVerifiedAt}
	return c.toClaim(), d, nil
}

// TakeOverDomain gives st a domain another store claimed and never
// verified, in one transaction conditional on what was read: the claim
// is still that store's, PENDING and never verified (else
// stores.ErrDomainTaken), and that store still has the domain with the
// tenant read (holderTenantID, "" for none) and no verification (else
// stores.ErrDomainTaken); the claim becomes st's (PENDING), the former
// holder's domain is cleared (NONE, no tenant), and st's own domain moves
// as in ClaimDomain (else stores.ErrChanged).
func (s *Bookstores) TakeOverDomain(ctx context.Context, st *stores.Store, claim stores.DomainClaim, holderTenantID string, now time.Time) error {
	domain := claim.Domain
	holder := s.t.update(StoreKey(claim.StoreID)).Set("domainStatus", string(stores.DomainNone)).Set("updatedAt", now.UTC()).
		Remove("customDomain", "domainTenantId", "domainVerifiedAt")
	if holderTenantID == "" {
		holder = holder.If("customDomain = ? AND attribute_not_exists(domainVerifiedAt) AND attribute_not_exists(domainTenantId)", domain)
	} else {
		holder = holder.If("customDomain = ? AND attribute_not_exists(domainVerifiedAt) AND domainTenantId = ?", domain, holderTenantID)
	}
	upd := s.t.update(StoreKey(st.ID)).Set("customDomain", domain).Set("domainStatus", string(stores.DomainPending)).
		Set("updatedAt", now.UTC()).Remove("domainVerifiedAt", "domainTenantId")
	if st.Domain.Name == "" {
		upd = upd.If(storeLive + " AND attribute_not_exists(customDomain)")
	} else {
		upd = upd.If(storeLive+" AND customDomain = ?", st.Domain.Name)
	}
	x := s.t.tx().
		put(s.t.put(newDomainClaim(st, domain, stores.DomainPending)).
			If("storeId = ? AND $ = ? AND attribute_not_exists(verifiedAt)", claim.StoreID, "status", string(stores.DomainPending)), stores.ErrDomainTaken).
		update(holder, stores.ErrDomainTaken).
		update(upd, stores.ErrChanged)
	if st.Domain.Name != "" {
		x.delete(s.t.del(StoreDomainClaimKey(st.Domain.Name)).If("storeId = ?", st.ID), stores.ErrChanged)
	}
	if err := x.run(ctx); err != nil {
		return fmt.Errorf("take domain %s over for store %s: %w", domain, st.ID, err)
	}
	return nil
}

// SetDomainTenant records the tenant of the store's current domain.
// Errors: stores.ErrChanged.
func (s *Bookstores) SetDomainTenant(ctx context.Context, st *stores.Store, tenantID string) error {
	err := s.t.update(StoreKey(st.ID)).Set("domainTenantId", tenantID).If(storeLive+" AND customDomain = ?", st.Domain.Name).Run(ctx)
	if dynamo.IsCondCheckFailed(err) {
		return fmt.Errorf("set tenant of store %s: %w", st.ID, stores.ErrChanged)
	}
	if err != nil {
		return fmt.Errorf("set tenant of store %s: %w", st.ID, err)
	}
	return nil
}

// SetDomainStatus moves the domain's status on the store (conditional on
// the domain and the status read) and on its claim, in one transaction.
// Errors: stores.ErrChanged.
func (s *Bookstores) SetDomainStatus(ctx context.Context, st *stores.Store, next stores.DomainStatus, verifiedAt *time.Time, now time.Time) error {
	upd := s.t.update(StoreKey(st.ID)).Set("domainStatus", string(next)).Set("updatedAt", now.UTC()).
		If(storeLive+" AND customDomain = ? AND domainStatus = ?", st.Domain.Name, string(st.Domain.Status))
	claim := s.t.update(StoreDomainClaimKey(st.Domain.Name)).Set("status", string(next)).If("storeId = ?", st.ID)
	if verifiedAt != nil {
		upd = upd.Set("domainVerifiedAt", verifiedAt.UTC())
		claim = claim.Set("verifiedAt", verifiedAt.UTC())
	}
	err := s.t.tx().
		update(upd, stores.ErrChanged).
		update(claim, stores.ErrChanged).
		run(ctx)
	if err != nil {
		return fmt.Errorf("set domain status of store %s: %w", st.ID, err)
	}
	return nil
}

// ReleaseDomain deletes the domain's claim and clears the store's domain
// (status NONE), in one transaction. Errors: stores.ErrChanged.
func (s *Bookstores) ReleaseDomain(ctx context.Context, st *stores.Store, now time.Time) error {
	err := s.t.tx().
		delete(s.t.del(StoreDomainClaimKey(st.Domain.Name)).If("storeId = ?", st.ID), stores.ErrChanged).
		update(s.t.update(StoreKey(st.ID)).Set("domainStatus", string(stores.DomainNone)).Set("updatedAt", now.UTC()).
			Remove("customDomain", "domainTenantId", "domainVerifiedAt").
			If(storeLive+" AND customDomain = ?", st.Domain.Name), stores.ErrChanged).
		run(ctx)
	if err != nil {
		return fmt.Errorf("release domain %s of store %s: %w", st.Domain.Name, st.ID, err)
	}
	return nil
}

// GetDomainClaim reads a domain's claim: one eventually consistent
// GetItem (the storefront's lookup, on every page it serves). Errors:
// stores.ErrNotFound.
func (s *Bookstores) GetDomainClaim(ctx context.Context, domain string) (stores.DomainClaim, error) {
	var c domainClaimItem
	err := s.t.get(StoreDomainClaimKey(domain)).One(ctx, &c)
	if errors.Is(err, dynamo.ErrNotFound) {
		return stores.DomainClaim{}, fmt.Errorf("domain %s: %w", domain, stores.ErrNotFound)
	}
	if err != nil {
		return stores.DomainClaim{}, fmt.Errorf("get domain claim %s: %w", domain, err)
	}
	return c.toClaim(), nil
}

// Reindex repairs a table whose stores were written before the position
// list and the directory's count item existed (a local data directory
// from an older version): when the count item is missing, it puts every
// listed store's position entry and then the count of listings. It does
// nothing on a table that has the count item. Not safe beside store
// creations or deletions: the local run calls it before it serves.
// It returns how many stores it counted (0 when it did nothing).
func (s *Bookstores) Reindex(ctx context.Context) (int, error) {
	err := s.t.get(StoreDirCountKey()).Consistent(true).Project("count").One(ctx, &dirCountItem{})
	if err == nil {
		return 0, nil
	}
	if !errors.Is(err, dynamo.ErrNotFound) {
		return 0, fmt.Errorf("reindex stores: %w", err)
	}
	var listings []listingItem
	if err := s.t.table.Get(GSI2.PartitionKey, storeDirectory).Index(GSI2.Name).Project("storeId").All(ctx, &listings); err != nil {
		return 0, fmt.Errorf("reindex stores: directory: %w", err)
	}
	if len(listings) == 0 {
		return 0, nil
	}
	ids := make([]string, len(listings))
	for i, l := range listings {
		ids[i] = l.StoreID
	}
	byID, err := s.GetStores(ctx, ids)
	if err != nil {
		return 0, fmt.Errorf("reindex stores: %w", err)
	}
	for _, st := range byID {
		if st.Location == nil {
			continue
		}
		if err := s.t.put(toPositionItem(st)).Run(ctx); err != nil {
			return 0, fmt.Errorf("reindex store %s: %w", st.ID, err)
		}
	}
	count := map[string]any{AttrPK: StoreDirCountKey().PK, AttrSK: StoreDirCountKey().SK, "type": typeDirCount, "count": len(listings)}
	if err := s.t.put(count).If("attribute_not_exists(PK)").Run(ctx); err != nil {
		return 0, fmt.Errorf("reindex stores: count: %w", err)
	}
	return len(listings), nil
}
