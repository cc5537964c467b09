// Command earnings is the Lambda of the earnings group: a store's
// earnings, affiliate commissions and pool payouts, for its owner. It is
// only wiring (app.Start with its group's constructor, so it links no
// other group); the handlers live in shared/ and run unchanged locally.
package main

import (
	"github.com/bookplatform/backend/shared/api/earningsapi"
	"github.com/bookplatform/backend/shared/app"
)

func main() { app.Start(earningsapi.Group) }
