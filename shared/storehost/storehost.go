// Package storehost is the seam between the community features a store
// may host (clubs, reading challenges) and the stores domain, which is
// being built beside them. Clubs and challenges carry a storeId; whether
// the caller may host one for that store (its owner or a staff member)
// and how the store is shown beside the club (name, slug, logo) are the
// stores domain's answers, reached only through Directory.
//
// Until the stores code provides a Directory, the service wires None: it
// refuses every storeId as an unknown store (404), so no club or
// challenge can claim a store it has nothing to do with. The stores work
// replaces None with its own implementation in shared/app (one line);
// nothing in clubs or challenges changes.
package storehost

import (
	"context"

	"github.com/bookplatform/backend/shared/apperr"
)

// Brief is a store as shown beside a club or challenge.
type Brief struct {
	ID      string
	Name    string
	Slug    string
	LogoURL string // "" when the store has none
}

// Directory is what clubs and challenges need of stores.
type Directory interface {
	// CanHost returns nil when userID owns or staffs store storeID, so may
	// host a club or challenge for it. Errors: ErrStoreNotFound,
	// ErrNotStoreStaff.
	CanHost(ctx context.Context, storeID, userID string) error
	// Briefs reads stores by id; unknown ids are absent from the map.
	Briefs(ctx context.Context, ids []string) (map[string]Brief, error)
}

// Errors of CanHost.
var (
	ErrStoreNotFound = apperr.NotFound("Store not found")
	ErrNotStoreStaff = apperr.Forbidden("Only the store's owner or staff can host for the store")
)

// None is the Directory while no store exists: every store is unknown.
type None struct{}

var _ Directory = None{}

// CanHost refuses every store as unknown: ErrStoreNotFound.
func (None) CanHost(context.Context, string, string) error { return ErrStoreNotFound }

// Briefs knows no store.
func (None) Briefs(context.Context, []string) (map[string]Brief, error) {
	return map[string]Brief{}, nil
}
