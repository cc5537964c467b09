// Package users holds the user domain: the account types, their validation
// rules and the service behind the auth and users endpoint groups. It
// imports no AWS and no HTTP package; storage is reached through Storer.
package users

import (
	"errors"
	"time"

	"github.com/bookplatform/backend/shared/apperr"
)

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
	ID           string
	Username     string
	Email        string // empty for guests
	PasswordHash string // empty for guests
	DisplayName  string
	Bio          string
	AvatarURL    string // empty when none
	Tier         Tier
	IsGuest      bool
	HomeStoreID  string // empty when none
	// StoreID is the store the user owns (one at most), empty when none;
	// StaffStoreIDs the stores where the user is staff. Both change only
	// in the stores' own transactions (creating or deleting a store,
	// adding or removing staff), never in a profile update; the router's
	// role checks read them with the caller (httpapi.Role).
	StoreID       string
	StaffStoreIDs []string
	// Operator: the account is one of the platform's operators (the
	// spec's admin), who use the back office under /v1/admin. Granted
	// and revoked only by an operator's audited transaction (or the
	// bootstrap command for the first one), never by a profile update.
	Operator bool
	// SuspendedAt is when an operator suspended the account, nil when it
	// is not suspended; SuspendReason is the operator's reason. A
	// suspended account is refused on every route (the router reads it
	// with the caller) and at sign-in; its refresh sessions end when it
	// is suspended. Set and cleared only by the back office.
	SuspendedAt   *time.Time
	SuspendReason string
	// SessionsValidAfter ends every session issued before it: the router
	// refuses an access token whose issue time (iat, whole seconds) is
	// before it, so a token from before a suspension stays dead after
	// the restore. Set by a suspension and by a restore, to the second
	// they happened in (truncated: a token issued later in that second
	// has the same iat and is let through; see SessionValid). Zero when
	// the account was never suspended.
	SessionsValidAfter time.Time
	FollowerCount      int
	FollowingCount     int
	// WishlistCount is how many wishlists the user keeps: the tier limit
	// is checked against it in the transaction that creates one.
	WishlistCount int
	// Monthly quota counts (shared/quota) of QuotaMonth ("2026-11"); counts
	// of an earlier month mean nothing was published yet this month.
	QuotaMonth     string
	MonthlyPosts   int
	MonthlyReviews int
	CreatedAt      time.Time
	UpdatedAt      time.Time
}

// Suspended reports whether an operator has suspended the account.
func (u *User) Suspended() bool { return u != nil && u.SuspendedAt != nil }

// SessionValid reports whether an access token issued at issuedAt (its
// iat, whole seconds) may still act for the account: not when it was
// issued before the account's SessionsValidAfter. The cutoff is whole
// seconds too, so a token issued in the very second of a restore (a
// sign-in right after it) is valid; one issued in an earlier second is
// not.
func (u *User) SessionValid(issuedAt time.Time) bool {
	return !issuedAt.Before(u.SessionsValidAfter)
}

// SessionCutoff is the SessionsValidAfter that an action at now sets:
// now truncated to the second (SessionValid).
func SessionCutoff(now time.Time) time.Time { return now.UTC().Truncate(time.Second) }

// StaffAt reports whether u is staff at the store (the owner is not
// staff: httpapi's roles grant owners every staff right).
func (u *User) StaffAt(storeID string) bool {
	for _, id := range u.StaffStoreIDs {
		if id == storeID {
			return true
		}
	}
	return false
}

// Errors of accounts and sessions. Storage returns them wrapped with
// context; callers test them with errors.Is.
var (
	ErrNotFound = apperr.NotFound("User not found")
	// ErrSuspended: the account is suspended (User.Suspended): the router
	// refuses its every request, sign-in and refresh refuse it.
	ErrSuspended     = apperr.Forbidden("This account is suspended; contact support")
	ErrUsernameTaken = apperr.Conflict("Username already taken")
	ErrEmailTaken    = apperr.Conflict("Email already registered")
	// ErrChanged: the account changed since it was read (a concurrent
	// rename or migration won).
	ErrChanged = apperr.Conflict("Account changed by another request; retry")
	// ErrRefreshInvalid: an unknown, expired or revoked refresh token.
	ErrRefreshInvalid = apperr.Unauthorized("Invalid or expired refresh token")
	// ErrSessionEnded: the refresh token's session was revoked or expired.
	ErrSessionEnded = apperr.Unauthorized("Session revoked or expired")
	// ErrTokenReused: a refresh token another request rotated first. The
	// service answers it by revoking the session; it never reaches a client.
	ErrTokenReused = errors.New("refresh token already used")
	// ErrWrongPassword: the current password given is not the account's.
	ErrWrongPassword = apperr.Unauthorized("Current password is incorrect")
	// ErrBadCredentials: login with an unknown email or a wrong password.
	ErrBadCredentials = apperr.Unauthorized("Invalid email or password")
	// ErrNotGuest: a guest-only operation by a full account.
	ErrNotGuest = apperr.Unauthorized("Only guest accounts can be migrated")
)
