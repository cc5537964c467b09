package wishlistsapi

import (
	"github.com/bookplatform/backend/shared/api"
	"github.com/bookplatform/backend/shared/config"
	"github.com/bookplatform/backend/shared/dynamo"
	"github.com/bookplatform/backend/shared/wishlists"
)

// The wishlists group's settings. Wishlists a user may keep, per tier
// (spec: Other limits); 0 is unlimited. Defaults: free 1, premium 10,
// bookstore unlimited. And the books one wishlist may hold (default 500,
// at most 1000): its single view shows them all, so the bound keeps
// that one bounded read.
const (
	EnvWishlistsFree      = "WISHLIST_LIMIT_FREE"
	EnvWishlistsPremium   = "WISHLIST_LIMIT_PREMIUM"
	EnvWishlistsBookstore = "WISHLIST_LIMIT_BOOKSTORE"
	EnvWishlistMaxItems   = "WISHLIST_MAX_ITEMS"

	DefaultWishlistsFree      = 1
	DefaultWishlistsPremium   = 10
	DefaultWishlistsBookstore = 0 // unlimited
	DefaultWishlistMaxItems   = 500
	MaxWishlistMaxItems       = 1000
)

// Limits reads the group's limits through env (a nil env: the defaults).
func Limits(env *config.Env) wishlists.Limits {
	return wishlists.Limits{
		Free:      int(env.Int(EnvWishlistsFree, DefaultWishlistsFree, 0, 1_000_000)),
		Premium:   int(env.Int(EnvWishlistsPremium, DefaultWishlistsPremium, 0, 1_000_000)),
		Bookstore: int(env.Int(EnvWishlistsBookstore, DefaultWishlistsBookstore, 0, 1_000_000)),
		Items:     int(env.Int(EnvWishlistMaxItems, DefaultWishlistMaxItems, 1, MaxWishlistMaxItems)),
	}
}

// service is the wishlists service of the group, built from the table
// and the group's own settings.
func service(d api.Deps) *wishlists.Service {
	h := d.Table
	return wishlists.NewService(wishlists.Deps{
		Store: dynamo.NewWishlists(h), Demand: dynamo.NewWishlists(h), Stock: dynamo.NewInventory(h),
		Users: dynamo.NewUsers(h), Books: dynamo.NewBooks(h), Briefs: dynamo.NewBriefs(h),
		Limits: Limits(d.Env), Now: d.Now,
	})
}
