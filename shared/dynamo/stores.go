package dynamo

import (
	"context"
	"errors"
	"fmt"
	"maps"
	"time"

	"github.com/bookplatform/backend/shared/geo"
	"github.com/bookplatform/backend/shared/stores"
	"github.com/guregu/dynamo/v2"
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
	return s.getStore(ctx, id, true)
}

func (s *Bookstores) getStore(ctx context.Context, id string, consistent bool) (*stores.Store, error) {
	var it storeItem
	err := s.t.get(StoreKey(id)).Consistent(consistent).One(ctx, &it)
	if errors.Is(err, dynamo.ErrNotFound) || (err == nil && it.Deleting) {
		return nil, fmt.Errorf("get store %s: %w", id, stores.ErrNotFound)
	}
	if err != nil {
		return nil, fmt.Errorf("get store %s: %w", id, err)
	}
	return it.toStore(), nil
}

// GetStoreBySlug reads the slug claim, then the store, both eventually
// consistent: it serves the store's public page (stores.Storer says
// why), at half the read units of strong reads.
func (s *Bookstores) GetStoreBySlug(ctx context.Context, slug string) (*stores.Store, error) {
	c, err := s.slugClaimAs(ctx, slug, false)
	if err != nil {
		return nil, err
	}
	return s.getStore(ctx, c.StoreID, false)
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
	return s.slugClaimAs(ctx, slug, true)
}

func (s *Bookstores) slugClaimAs(ctx context.Context, slug string, consistent bool) (slugClaimItem, error) {
	var c slugClaimItem
	err := s.t.get(StoreSlugClaimKey(slug)).Consistent(consistent).One(ctx, &c)
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
