package dynamo

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/bookplatform/backend/shared/stores"
	"github.com/guregu/dynamo/v2"
)

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
