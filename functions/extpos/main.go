// Command extpos is the Lambda of the extpos group: connecting a store to
// its point-of-sale system (OAuth) and asking for a sync of its stock.
// It is only wiring (app.Start with its group's constructor, so it links
// no other group); the handlers live in shared/ and run unchanged locally.
package main

import (
	"github.com/bookplatform/backend/shared/api/extposapi"
	"github.com/bookplatform/backend/shared/app"
)

func main() { app.Start(extposapi.Group) }
