// Command billing is the Lambda of the billing group: the premium tier
// bought as a subscription on the payment provider's hosted checkout.
// It is only wiring (app.Start with its group's constructor, so it links
// no other group); the handlers live in shared/ and run unchanged locally.
package main

import (
	"github.com/bookplatform/backend/shared/api/billingapi"
	"github.com/bookplatform/backend/shared/app"
)

func main() { app.Start(billingapi.Group) }
