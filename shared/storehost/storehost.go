// Package storehost is the seam between the community features that
// refer to stores (clubs and reading challenges a store hosts, readers
// following a store) and the stores domain. Whether the caller may host a
// club or challenge for a store (its owner or a staff member), how a
// store is shown beside what refers to it (name, slug, logo) and which
// store a slug names are the stores domain's answers, reached only
// through Directory; clubs, challenges and follows import no stores code.
//
// The service wires the stores domain's Directory (stores.Hosts, in
// shared/app). None refuses every store as unknown: a zero wiring, and
// what a service built without stores falls back to. Tests of clubs and
// challenges alone declare their stores with testenv.StoreHosts.
package storehost

import (
	"context"

	"github.com/bookplatform/backend/shared/apperr"
)

// Brief is a store as shown beside a club, a challenge or a follow.
type Brief struct {
	ID      string
	Name    string
	Slug    string
	LogoURL string // "" when the store has none
}

// Directory is what clubs, challenges and follows need of stores. A
// store whose deletion has begun reads as unknown in Host and Briefs.
type Directory interface {
	// Host checks that userID owns or staffs store storeID, so may host
	// a club or challenge for it, and returns how the store is shown
	// (one read of the store and the account, side by side). Errors:
	// ErrStoreNotFound, ErrNotStoreStaff.
	Host(ctx context.Context, storeID, userID string) (Brief, error)
	// Briefs reads stores by id; unknown ids are absent from the map.
	Briefs(ctx context.Context, ids []string) (map[string]Brief, error)
	// StoreID finds the id of the store with slug in one read (its
	// claim), so that a store's lists can start at once. A store being
	// deleted may still be found: Briefs, which leaves it out, says
	// whether it is live. Errors: ErrStoreNotFound.
	StoreID(ctx context.Context, slug string) (string, error)
}

// Errors of Directory.
var (
	ErrStoreNotFound = apperr.NotFound("Store not found")
	ErrNotStoreStaff = apperr.Forbidden("Only the store's owner or staff can host for the store")
)

// None is the Directory that knows no store.
type None struct{}

var _ Directory = None{}

// Host refuses every store as unknown: ErrStoreNotFound.
func (None) Host(context.Context, string, string) (Brief, error) { return Brief{}, ErrStoreNotFound }

// Briefs knows no store.
func (None) Briefs(context.Context, []string) (map[string]Brief, error) {
	return map[string]Brief{}, nil
}

// StoreID knows no store: ErrStoreNotFound.
func (None) StoreID(context.Context, string) (string, error) { return "", ErrStoreNotFound }
