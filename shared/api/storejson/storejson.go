// Package storejson is the wire shape of stores: the full store (spec:
// Store) in its public and owner's views, which the stores group answers,
// and the brief other groups show beside what refers to a store (a club,
// a challenge, a followed store; later inventory and orders).
package storejson

import (
	"github.com/bookplatform/backend/shared/api/userjson"
	"github.com/bookplatform/backend/shared/stores"
)

// Store is the public view of a store: what anyone may read. Owner-only
// data (the tax rate, staff, the domain's internals) is never in it.
type Store struct {
	ID           string            `json:"id"`
	Name         string            `json:"name"`
	Slug         string            `json:"slug"`
	Description  string            `json:"description"`
	LogoURL      string            `json:"logoUrl"`
	BannerURL    string            `json:"bannerUrl"`
	PrimaryColor string            `json:"primaryColor"`
	AddressLine1 string            `json:"addressLine1"`
	AddressLine2 *string           `json:"addressLine2"`
	City         string            `json:"city"`
	State        string            `json:"state"`
	PostalCode   string            `json:"postalCode"`
	Country      string            `json:"country"`
	Phone        string            `json:"phone"`
	Email        string            `json:"email"`
	Website      string            `json:"website"`
	Hours        map[string]string `json:"hours"`
	Latitude     *float64          `json:"latitude"`
	Longitude    *float64          `json:"longitude"`
	// CustomDomain is null without one; CustomDomainStatus NONE, PENDING,
	// VERIFIED or ACTIVE.
	CustomDomain       *string `json:"customDomain"`
	CustomDomainStatus string  `json:"customDomainStatus"`
	FollowerCount      int     `json:"followerCount"`
	InventoryCount     int     `json:"inventoryCount"`
	OwnerUserID        string  `json:"ownerUserId"`
	// Distance is in miles from the list's latitude and longitude, only
	// when the list was asked with them.
	Distance  *float64 `json:"distance,omitempty"`
	CreatedAt string   `json:"createdAt"`
	UpdatedAt string   `json:"updatedAt"`
}

// Owned is the owner's view of their store: the public view, the tax rate
// (a fraction: 0.0825 is 8.25%) and the number of staff.
type Owned struct {
	Store
	TaxRate    float64 `json:"taxRate"`
	StaffCount int     `json:"staffCount"`
}

// New is the public view of s.
func New(s *stores.Store) Store {
	out := Store{
		ID: s.ID, Name: s.Name, Slug: s.Slug, Description: s.Description, LogoURL: s.LogoURL, BannerURL: s.BannerURL,
		PrimaryColor: s.PrimaryColor, AddressLine1: s.AddressLine1, AddressLine2: nullable(s.AddressLine2), City: s.City,
		State: s.State, PostalCode: s.PostalCode, Country: s.Country, Phone: s.Phone, Email: s.Email, Website: s.Website,
		Hours: map[string]string(s.Hours), CustomDomain: nullable(s.Domain.Name), CustomDomainStatus: string(s.Domain.Status),
		FollowerCount: s.FollowerCount, InventoryCount: s.InventoryCount, OwnerUserID: s.OwnerUserID,
		CreatedAt: userjson.Time(s.CreatedAt), UpdatedAt: userjson.Time(s.UpdatedAt),
	}
	if out.Hours == nil {
		out.Hours = map[string]string{}
	}
	if p := s.Location; p != nil {
		lat, lng := p.Lat, p.Lng
		out.Latitude, out.Longitude = &lat, &lng
	}
	return out
}

// NewOwned is the owner's view of s.
func NewOwned(s *stores.Store) Owned {
	return Owned{Store: New(s), TaxRate: stores.TaxRate(s.TaxRateMicros), StaffCount: s.StaffCount}
}

func nullable(s string) *string {
	if s == "" {
		return nil
	}
	return &s
}
