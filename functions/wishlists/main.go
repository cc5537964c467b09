// Command wishlists is the Lambda of the wishlists group: wishlists, the
// books on them, and a reader's public wishlists.
// It is only wiring (app.Start with its group's constructor, so it links
// no other group); the handlers live in shared/ and run unchanged locally.
package main

import (
	"github.com/bookplatform/backend/shared/api/wishlistsapi"
	"github.com/bookplatform/backend/shared/app"
)

func main() { app.Start(wishlistsapi.Group) }
