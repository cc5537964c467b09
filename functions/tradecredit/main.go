// Command tradecredit is the Lambda of the trade credit group: staff
// grant and correct a customer's credit at their store and read its
// ledger, and customers read their balances. It is only wiring
// (app.Start with its group's constructor, so it links no other group);
// the handlers live in shared/ and run unchanged locally.
package main

import (
	"github.com/bookplatform/backend/shared/api/tradecreditapi"
	"github.com/bookplatform/backend/shared/app"
)

func main() { app.Start(tradecreditapi.Group) }
