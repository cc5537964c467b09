// Package stores is the store domain: independent bookstores' profiles
// (with their address, coordinates, hours, tax rate and branding), their
// slugs, staff, custom domains, geo search and readers' home stores. It
// holds the types, the validation rules and the service behind the stores
// endpoint group; it imports no AWS and no HTTP package. Storage is its
// Storer, the custom domains' CDN its Tenants and DNS its Resolver.
//
// Who may do what (the owner, the staff) is not decided here: routes
// declare their role and the router checks it (httpapi.Role), so the
// service's owner-only methods take the store the router already matched.
package stores

import (
	"time"

	"github.com/bookplatform/backend/shared/apperr"
	"github.com/bookplatform/backend/shared/geo"
)

// Store is a stored bookstore.
type Store struct {
	ID           string
	Slug         string // unique, never changes (custom domains point at it)
	Name         string
	Description  string
	LogoURL      string // "" when none
	BannerURL    string
	PrimaryColor string // "#RRGGBB" or ""
	Address
	Phone, Email, Website string
	// Hours maps the days given (monday..sunday) to a free-text range or
	// "Closed"; a day left out is unknown.
	Hours Hours
	// Location is given on create or update, or derived from a US postal
	// code; nil when neither is possible (the store is then not found by
	// a search by position).
	Location *geo.Point
	// LocationGiven: the owner gave the coordinates, so a new postal code
	// does not replace them with the code's centroid.
	LocationGiven bool
	// TaxRateMicros is the sales tax rate in millionths (82500 is 8.25%,
	// 86250 is 8.625%): the owner sets it, orders and the point of sale
	// apply it to integer cents.
	TaxRateMicros int
	Domain        Domain
	// Counters, changed only in the transactions of what they count.
	FollowerCount, InventoryCount, StaffCount int
	OwnerUserID                               string
	// Version increases with every profile change: an update is
	// conditional on the version it was computed from.
	Version   int
	CreatedAt time.Time
	UpdatedAt time.Time
}

// Address is where a store is.
type Address struct {
	AddressLine1, AddressLine2 string
	City, State, PostalCode    string
	Country                    string // ISO 3166-1 alpha-2, upper case
}

// Hours is a store's opening hours by day.
type Hours map[string]string

// Days are the keys of Hours, in week order.
var Days = []string{"monday", "tuesday", "wednesday", "thursday", "friday", "saturday", "sunday"}

// DomainStatus is a custom domain's state (spec: Custom domain status).
type DomainStatus string

// The states: NONE, then PENDING once verification starts, VERIFIED once
// the domain's CNAME reaches the store's target and its certificate is
// issued, ACTIVE once the CDN serves it.
const (
	DomainNone     DomainStatus = "NONE"
	DomainPending  DomainStatus = "PENDING"
	DomainVerified DomainStatus = "VERIFIED"
	DomainActive   DomainStatus = "ACTIVE"
)

// Domain is a store's custom domain and where its verification stands.
type Domain struct {
	Name   string // "" when none
	Status DomainStatus
	// TenantID is the CDN's tenant serving the domain ("" until created).
	TenantID   string
	VerifiedAt *time.Time
}

// Listing is what a search by position reads of a store before its
// page is read whole: its id and position (only stores with a position
// are listed by position).
type Listing struct {
	StoreID  string
	Location geo.Point
}

// StaffMember is one staff membership of a store.
type StaffMember struct {
	StoreID, Slug, UserID string
	AddedAt               time.Time
}

// DomainClaim is the record that makes a custom domain unique and answers
// the storefront's lookup by domain in one read.
type DomainClaim struct {
	Domain  string
	StoreID string
	Slug    string
	Name    string
	Status  DomainStatus
	// VerifiedAt is when the domain was first verified for the store
	// (nil: never, and another store proving the domain by DNS may take
	// it over).
	VerifiedAt *time.Time
}

// Field messages of a refused creation.
const (
	slugTaken = "is already taken"
	ownsStore = "this account owns a store already: an account owns one store at most"
)

// Errors of stores. Storage returns them wrapped with context; callers
// test them with errors.Is.
var (
	ErrNotFound = apperr.NotFound("Store not found")
	// ErrSlugTaken is a 400, as the spec lists "slug taken" under 400.
	ErrSlugTaken = apperr.Validation("Slug already taken", map[string]string{"slug": slugTaken})
	// ErrAlreadyOwner: one store per owner (docs/decisions.md, "Stores").
	// It is a 400 naming the field store, as the spec lists only 400
	// for POST /stores.
	ErrAlreadyOwner = apperr.Validation("You already own a store; an account owns one store at most", map[string]string{"store": ownsStore})
	// ErrChanged: the store changed since it was read (a concurrent
	// update won); the service retries.
	ErrChanged = apperr.Conflict("Store changed by another request; retry")
	// ErrAlreadyStaff: the user is staff at the store already (a 400, as
	// the spec's "already member").
	ErrAlreadyStaff = apperr.Validation("This user is staff at the store already", map[string]string{"userId": "is staff already"})
	ErrNotStaff     = apperr.NotFound("This user is not staff at the store")
	ErrStaffLimit   = apperr.Validation("A store has at most 100 staff members", nil)
	ErrOwnerStaff   = apperr.Validation("The owner has every staff right already and is not listed as staff", map[string]string{"userId": "is the store's owner"})
	// ErrDomainTaken is a 400: the spec lists only 400 for verification.
	ErrDomainTaken = apperr.Validation("This domain is used by another store", map[string]string{"domain": "is used by another store"})
	ErrNoDomain    = apperr.NotFound("The store has no custom domain")
	// ErrNoHomeStore: GET /users/me/home-store with none set.
	ErrNoHomeStore = apperr.NotFound("No home store set")
	// ErrDomainsOff: custom domains are not configured in this
	// deployment (no distribution id).
	ErrDomainsOff = apperr.New(apperr.CodeUnavailable, "Custom domains are not configured on this deployment")
)

// MaxStaff is the most staff members a store has.
const MaxStaff = 100
