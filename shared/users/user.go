// Package users holds the user domain: the account types, their validation
// rules and the service behind the auth and users endpoint groups. It
// imports no AWS and no HTTP package; storage is reached through Storer.
package users

import "time"

// Tier is a user's plan. It gates quotas and rate limits and is always read
// from stored data, never from a token.
type Tier string

// Tiers.
const (
	TierFree      Tier = "free"
	TierPremium   Tier = "premium"
	TierBookstore Tier = "bookstore"
)

// Valid reports whether t is a known tier.
func (t Tier) Valid() bool {
	return t == TierFree || t == TierPremium || t == TierBookstore
}

// User is a stored account, guest or full.
type User struct {
	ID             string
	Username       string
	Email          string // empty for guests
	PasswordHash   string // empty for guests
	DisplayName    string
	Bio            string
	AvatarURL      string // empty when none
	Tier           Tier
	IsGuest        bool
	HomeStoreID    string // empty when none
	FollowerCount  int
	FollowingCount int
	// Monthly quota counts (shared/quota) of QuotaMonth ("2026-11"); counts
	// of an earlier month mean nothing was published yet this month.
	QuotaMonth     string
	MonthlyPosts   int
	MonthlyReviews int
	CreatedAt      time.Time
	UpdatedAt      time.Time
}
