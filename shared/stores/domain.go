package stores

import (
	"context"
	"errors"
	"fmt"
	"net"
	"strings"
	"time"

	"github.com/bookplatform/backend/shared/apperr"
	"golang.org/x/net/idna"
	"golang.org/x/net/publicsuffix"
)

// Custom domains (docs/decisions.md, "Custom domains"). A store's owner
// names a domain; it is claimed uniquely across stores (PENDING), and the
// CDN gets a tenant for it with a CDN-managed certificate. The owner
// points the domain's CNAME at the store's own target host
// ({slug}.{TargetSuffix}); once that resolves and the certificate is
// issued the domain is VERIFIED, and once the CDN serves it, ACTIVE.
// Removing it deletes the tenant and frees the name (NONE).

// DomainStorer is the storage of custom domains and their claims (part
// of Storer).
type DomainStorer interface {
	// ClaimDomain gives s the custom domain (status PENDING), freeing
	// the one it had, in one transaction. Errors: ErrDomainTaken,
	// ErrChanged.
	ClaimDomain(ctx context.Context, s *Store, domain string, now time.Time) error
	// SetDomainTenant records the CDN tenant of s's domain. Errors:
	// ErrChanged (the domain changed meanwhile).
	SetDomainTenant(ctx context.Context, s *Store, tenantID string) error
	// SetDomainStatus moves s's domain from its current status to next
	// (with verifiedAt when first verified), on the store and its claim.
	// Errors: ErrChanged.
	SetDomainStatus(ctx context.Context, s *Store, next DomainStatus, verifiedAt *time.Time, now time.Time) error
	// ReleaseDomain removes s's custom domain and frees its name. Errors:
	// ErrChanged.
	ReleaseDomain(ctx context.Context, s *Store, now time.Time) error
	// DomainHolder reads a domain's claim and the domain as its store
	// has it (strongly consistent). Errors: ErrNotFound.
	DomainHolder(ctx context.Context, domain string) (DomainClaim, Domain, error)
	// TakeOverDomain gives s the domain of claim, which another store
	// holds and never verified, clearing that store's domain, in one
	// transaction conditional on the claim and that store's tenant
	// (holderTenantID) being as read. Errors: ErrDomainTaken,
	// ErrChanged.
	TakeOverDomain(ctx context.Context, s *Store, claim DomainClaim, holderTenantID string, now time.Time) error
	// GetDomainClaim reads the claim of a domain (eventually
	// consistent: the storefront's lookup). Errors: ErrNotFound.
	GetDomainClaim(ctx context.Context, domain string) (DomainClaim, error)
}

// Tenants is the CDN's per-domain tenants: CloudFront SaaS Manager's
// distribution tenants in AWS (shared/cdn), a stand-in locally.
type Tenants interface {
	// CreateTenant creates a tenant named name serving domain, with a
	// CDN-managed certificate, and returns its id.
	CreateTenant(ctx context.Context, name, domain string) (string, error)
	// Tenant reads where a tenant stands. Errors: ErrNoTenant.
	Tenant(ctx context.Context, id string) (TenantState, error)
	// DeleteTenant disables and deletes a tenant; one already gone is
	// not an error.
	DeleteTenant(ctx context.Context, id string) error
}

// ErrNoTenant is a tenant the CDN does not have.
var ErrNoTenant = errors.New("no such CDN tenant")

// TenantState is a tenant's progress.
type TenantState struct {
	// CertificateIssued: the CDN-managed certificate of the domain was
	// validated and issued.
	CertificateIssued bool
	// Serving: the tenant is deployed and enabled, and its domain active.
	Serving bool
}

// Resolver looks domains up in DNS (a recursive resolver in AWS, a
// stand-in locally).
type Resolver interface {
	// CNAME returns the target of host's own CNAME record, without the
	// trailing dot, and "" when it has none. It does not follow the
	// chain: every store's target is a CNAME of the one CDN endpoint, so
	// only the names along the way tell one store from another.
	CNAME(ctx context.Context, host string) (string, error)
}

// DomainDeps are what custom domains need.
type DomainDeps struct {
	// Tenants is nil when custom domains are not configured.
	Tenants Tenants
	DNS     Resolver
	// TargetSuffix: a store's CNAME target is its slug, a dot and this.
	TargetSuffix string
	// PlatformDomain is the platform's own domain, which no store may
	// claim (nor any name under it).
	PlatformDomain string
}

// Target is the host a store's custom domain must point at.
func (d DomainDeps) Target(slug string) string { return slug + "." + d.TargetSuffix }

// NormalizeDomain checks a custom domain as sent and returns it in the
// form it is stored and looked up in: lower case, without a trailing dot,
// internationalized labels in punycode (IDNA 2008). It must be a
// registrable host name: no scheme, path, port or IP address, at least
// two labels, not a public suffix itself, not a reserved top-level name.
func NormalizeDomain(raw string) (string, string) {
	d := strings.ToLower(strings.TrimSpace(raw))
	switch {
	case d == "":
		return "", "is required"
	case strings.Contains(d, "://"):
		return "", "must be a host name without a scheme (shop.example.com, not https://shop.example.com)"
	case strings.ContainsAny(d, "/?#"):
		return "", "must be a host name without a path"
	case strings.HasPrefix(d, "[") || net.ParseIP(d) != nil:
		return "", "must be a host name, not an IP address"
	case strings.Contains(d, ":"):
		return "", "must be a host name without a port"
	case strings.Contains(d, "@"):
		return "", "must be a host name"
	}
	d = strings.TrimSuffix(d, ".")
	ascii, err := idna.Lookup.ToASCII(d)
	if err != nil {
		return "", "must be a valid host name (letters, digits and hyphens in dot-separated labels)"
	}
	labels := strings.Split(ascii, ".")
	if len(ascii) > 253 || len(labels) < 2 {
		return "", "must be a full host name with a dot (shop.example.com)"
	}
	for _, l := range labels {
		if l == "" || len(l) > 63 || strings.HasPrefix(l, "-") || strings.HasSuffix(l, "-") || strings.Trim(l, "abcdefghijklmnopqrstuvwxyz0123456789-") != "" {
			return "", "must be a valid host name (letters, digits and hyphens in dot-separated labels)"
		}
	}
	tld := labels[len(labels)-1]
	if reservedTLDs[tld] || strings.Trim(tld, "0123456789") == "" {
		return "", "must be a public host name (not ." + tld + ")"
	}
	if _, err := publicsuffix.EffectiveTLDPlusOne(ascii); err != nil {
		return "", "is a public suffix, not a registrable host name"
	}
	return ascii, ""
}

// reservedTLDs never resolve publicly (RFC 2606, 6761, 6762, 7686).
var reservedTLDs = map[string]bool{"localhost": true, "local": true, "test": true, "invalid": true, "internal": true, "arpa": true, "onion": true, "home": true, "lan": true}

// under reports whether d is name or a name under it.
func under(d, name string) bool {
	return name != "" && (d == name || strings.HasSuffix(d, "."+name))
}

// checkDomain is NormalizeDomain plus the platform's own names.
func (s *Service) checkDomain(raw string) (string, error) {
	d, msg := NormalizeDomain(raw)
	if msg == "" && (under(d, s.d.Domains.PlatformDomain) || under(d, s.d.Domains.TargetSuffix)) {
		msg = "must not be the platform's own domain or a name under it"
	}
	if msg != "" {
		return "", apperr.Validation("Invalid domain", map[string]string{"domain": msg})
	}
	return d, nil
}

// Instructions are what the owner must do in DNS.
type Instructions struct {
	Message string
	Type    string // CNAME
	Name    string // the custom domain
	Value   string // the store's target host
	Note    string
}

// VerifyDomain starts (or restarts) the verification of a custom domain
// for the store: claimed for it alone, PENDING, with a CDN tenant, and the
// DNS record to create. A domain the store had before is freed and its
// tenant deleted. Errors: ValidationError, ErrDomainTaken, ErrNotFound,
// ErrDomainsOff.
func (s *Service) VerifyDomain(ctx context.Context, storeID, raw string) (*Store, Instructions, error) {
	dd := s.d.Domains
	if dd.Tenants == nil {
		return nil, Instructions{}, ErrDomainsOff
	}
	domain, err := s.checkDomain(raw)
	if err != nil {
		return nil, Instructions{}, err
	}
	st, err := s.d.Store.GetStore(ctx, storeID)
	if err != nil {
		return nil, Instructions{}, err
	}
	if st.Domain.Name == domain && st.Domain.Status != DomainPending {
		// Verify again of the store's own domain restarts it at PENDING,
		// as the spec's states say, keeping its tenant and verifiedAt on
		// the store and the claim: a domain verified once never becomes
		// a claim another store could take over, and the next status
		// check moves it on again.
		if err := s.d.Store.SetDomainStatus(ctx, st, DomainPending, st.Domain.VerifiedAt, s.d.Now().UTC()); err != nil {
			return nil, Instructions{}, err
		}
		st.Domain.Status = DomainPending
	}
	if st.Domain.Name != domain {
		prev := st.clone()
		now := s.d.Now().UTC()
		err = s.d.Store.ClaimDomain(ctx, st, domain, now)
		if errors.Is(err, ErrDomainTaken) {
			err = s.takeOver(ctx, st, domain, now)
		}
		if err != nil {
			return nil, Instructions{}, err
		}
		if prev.Domain.TenantID != "" {
			// The old domain's tenant goes; its name was freed with the claim.
			if err := dd.Tenants.DeleteTenant(ctx, prev.Domain.TenantID); err != nil {
				return nil, Instructions{}, err
			}
		}
		st.Domain = Domain{Name: domain, Status: DomainPending}
	}
	// No CDN tenant yet: the status check makes it once the domain's
	// DNS names this store's target, so a claim nobody proved never gets
	// a certificate (a squatter's tenant would otherwise be issued one as
	// soon as the real owner points the domain at the CDN).
	target := dd.Target(st.Slug)
	return st, Instructions{
		Message: fmt.Sprintf("Create a CNAME record for %s pointing to %s at your DNS provider.", domain, target),
		Type:    "CNAME", Name: domain, Value: target,
		Note: "DNS changes can take up to 48 hours to propagate. Check GET /v1/stores/" + st.Slug +
			"/domain/status: the domain becomes VERIFIED once the record resolves and its certificate is issued, then ACTIVE once it is served.",
	}, nil
}

// takeOver gives st a domain another store claimed but never verified,
// once the domain's DNS proves st's owner controls it: its CNAME reaches
// st's own target. The holder's CDN tenant goes first (a domain is
// served by one tenant; if the takeover then fails, the holder's next
// status check makes a new one), then one transaction conditional on the
// claim and tenant read moves the claim and clears the holder's domain.
// A verified domain is never taken over (docs/decisions.md, "Custom
// domains"). Errors: ErrDomainTaken, ValidationError (no DNS proof yet),
// ErrChanged.
func (s *Service) takeOver(ctx context.Context, st *Store, domain string, now time.Time) error {
	claim, holder, err := s.d.Store.DomainHolder(ctx, domain)
	if errors.Is(err, ErrNotFound) {
		// Freed since: claim it as anyone would.
		return s.d.Store.ClaimDomain(ctx, st, domain, now)
	}
	if err != nil {
		return err
	}
	if claim.StoreID == st.ID || claim.Status != DomainPending || claim.VerifiedAt != nil || holder.VerifiedAt != nil {
		return ErrDomainTaken
	}
	target := s.d.Domains.Target(st.Slug)
	if ok, err := s.resolvesTo(ctx, domain, target); err != nil {
		return fmt.Errorf("check DNS of %s: %w", domain, err)
	} else if !ok {
		return apperr.Validation("This domain is claimed by another store and not verified yet", map[string]string{
			"domain": fmt.Sprintf("is claimed by another store and not verified yet: a CNAME record for %s pointing to %s proves it is yours and takes it over", domain, target),
		})
	}
	if holder.TenantID != "" {
		if err := s.d.Domains.Tenants.DeleteTenant(ctx, holder.TenantID); err != nil {
			return err
		}
	}
	return s.d.Store.TakeOverDomain(ctx, st, claim, holder.TenantID, now)
}

// ensureTenant gives st's domain its CDN tenant if it has none yet (the
// first status check that finds the domain naming st, or its creation
// failed or was cut short before).
func (s *Service) ensureTenant(ctx context.Context, st *Store) error {
	if st.Domain.TenantID != "" {
		return nil
	}
	id, err := s.d.Domains.Tenants.CreateTenant(ctx, tenantName(st.ID, st.Domain.Name), st.Domain.Name)
	if err != nil {
		return fmt.Errorf("create CDN tenant for %s: %w", st.Domain.Name, err)
	}
	if err := s.d.Store.SetDomainTenant(ctx, st, id); err != nil {
		// The store's domain changed meanwhile (taken over, removed):
		// the tenant would hold the name with nothing pointing at it.
		if derr := s.d.Domains.Tenants.DeleteTenant(ctx, id); derr != nil {
			return errors.Join(err, fmt.Errorf("delete CDN tenant %s left by a changed domain: %w", id, derr))
		}
		return err
	}
	st.Domain.TenantID = id
	return nil
}

// tenantName is unique per store and domain (a CDN tenant's name is
// unique in the account and never changes).
func tenantName(storeID, domain string) string {
	h := uint32(2166136261)
	for i := 0; i < len(domain); i++ {
		h = (h ^ uint32(domain[i])) * 16777619
	}
	return fmt.Sprintf("store-%s-%08x", storeID, h)
}

// DomainReport is GET /domain/status.
type DomainReport struct {
	Domain     string // "" when none
	Status     DomainStatus
	VerifiedAt *time.Time
	Message    string
}

// GetDomain checks where the store's custom domain stands and moves
// its status: VERIFIED once its CNAME resolves to the store's target and
// the certificate is issued, ACTIVE once the CDN serves it; back to
// PENDING if the record goes away. verifiedAt is when it was first
// verified. Errors: ErrNotFound.
func (s *Service) GetDomain(ctx context.Context, storeID string) (DomainReport, error) {
	st, err := s.d.Store.GetStore(ctx, storeID)
	if err != nil {
		return DomainReport{}, err
	}
	dd := s.d.Domains
	if st.Domain.Name == "" {
		return DomainReport{Status: DomainNone, Message: "No custom domain: POST /v1/stores/" + st.Slug + "/domain/verify starts one."}, nil
	}
	if dd.Tenants == nil {
		return DomainReport{}, ErrDomainsOff
	}
	target := dd.Target(st.Slug)
	pointed, err := s.resolvesTo(ctx, st.Domain.Name, target)
	if err != nil {
		// DNS did not answer: that says nothing of the record, so the
		// status stays where it is (a lost packet must not send an
		// ACTIVE domain back to PENDING).
		return DomainReport{Domain: st.Domain.Name, Status: st.Domain.Status, VerifiedAt: st.Domain.VerifiedAt,
			Message: "DNS could not be checked just now; the status is unchanged. Try again in a moment."}, nil
	}
	var state TenantState
	if pointed {
		// The domain names this store: it gets its CDN tenant now if it
		// has none (the first time, or its creation failed before).
		if err := s.ensureTenant(ctx, st); err != nil {
			return DomainReport{}, err
		}
		state, err = dd.Tenants.Tenant(ctx, st.Domain.TenantID)
		if errors.Is(err, ErrNoTenant) {
			// Deleted behind the service's back: make a new one.
			st.Domain.TenantID = ""
			if err := s.ensureTenant(ctx, st); err != nil {
				return DomainReport{}, err
			}
			state, err = TenantState{}, nil
		}
		if err != nil {
			return DomainReport{}, fmt.Errorf("read CDN tenant of %s: %w", st.Domain.Name, err)
		}
	}

	next := DomainPending
	switch {
	case pointed && state.CertificateIssued && state.Serving:
		next = DomainActive
	case pointed && state.CertificateIssued:
		next = DomainVerified
	}
	verifiedAt := st.Domain.VerifiedAt
	if next != DomainPending && verifiedAt == nil {
		now := s.d.Now().UTC()
		verifiedAt = &now
	}
	if next != st.Domain.Status || verifiedAt != st.Domain.VerifiedAt {
		if err := s.d.Store.SetDomainStatus(ctx, st, next, verifiedAt, s.d.Now().UTC()); err != nil {
			return DomainReport{}, err
		}
	}
	r := DomainReport{Domain: st.Domain.Name, Status: next, VerifiedAt: verifiedAt}
	switch {
	case next == DomainActive:
		r.Message = "The domain is active: " + st.Domain.Name + " serves the store's site."
	case next == DomainVerified:
		r.Message = "The domain is verified and its certificate issued; the CDN is deploying it (usually minutes)."
	case !pointed:
		r.Message = fmt.Sprintf("Waiting for DNS: %s must have a CNAME record pointing to %s (changes can take up to 48 hours).", st.Domain.Name, target)
	default:
		r.Message = "DNS points at the store; waiting for the certificate to be validated and issued."
	}
	return r, nil
}

// resolvesTo reports whether domain's CNAME chain passes through target,
// the store's own host ({slug}.<suffix>), read one record at a time. The
// canonical name at the chain's end proves nothing: every store's target
// ends at the same CDN endpoint, so a domain pointed at one store would
// prove itself for all of them.
// An error is DNS not answering (the record may well be there).
func (s *Service) resolvesTo(ctx context.Context, domain, target string) (bool, error) {
	h := domain
	for range maxCNAMEHops {
		next, err := s.d.Domains.DNS.CNAME(ctx, h)
		if err != nil {
			return false, err
		}
		next = strings.TrimSuffix(strings.ToLower(next), ".")
		if next == "" || next == h {
			return false, nil
		}
		if next == target {
			return true, nil
		}
		h = next
	}
	return false, nil
}

// maxCNAMEHops bounds the records resolvesTo reads (a chain longer than
// this is not one a store's owner set up, or it is a loop).
const maxCNAMEHops = 8

// DeleteDomain deletes the store's custom domain: its CDN tenant goes,
// its name is free again and the status is NONE. Errors: ErrNoDomain,
// ErrNotFound.
func (s *Service) DeleteDomain(ctx context.Context, storeID string) error {
	st, err := s.d.Store.GetStore(ctx, storeID)
	if err != nil {
		return err
	}
	if st.Domain.Name == "" {
		return ErrNoDomain
	}
	if st.Domain.TenantID != "" && s.d.Domains.Tenants != nil {
		if err := s.d.Domains.Tenants.DeleteTenant(ctx, st.Domain.TenantID); err != nil {
			return err
		}
	}
	return s.d.Store.ReleaseDomain(ctx, st, s.d.Now().UTC())
}

// GetDomainClaim finds the store serving a custom domain, with one read
// (the storefront's per-request lookup). Errors: ValidationError (no
// domain), ErrNotFound.
func (s *Service) GetDomainClaim(ctx context.Context, raw string) (DomainClaim, error) {
	if strings.TrimSpace(raw) == "" {
		return DomainClaim{}, apperr.Validation("domain is required", map[string]string{"domain": "is required"})
	}
	d, msg := NormalizeDomain(raw)
	if msg != "" {
		return DomainClaim{}, ErrNotFound // no store can have it
	}
	return s.d.Store.GetDomainClaim(ctx, d)
}
