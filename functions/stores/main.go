// Command stores is the Lambda of the stores group: store profiles and
// search, branding, staff, custom domains, the storefront's lookup by
// domain and readers' home store. It is only wiring (app.Start with its
// group's constructor, so it links no other group); the handlers live in
// shared/ and run unchanged locally.
package main

import (
	"github.com/bookplatform/backend/shared/api/storesapi"
	"github.com/bookplatform/backend/shared/app"
)

func main() { app.Start(storesapi.Group) }
