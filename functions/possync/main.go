// Command possync is the Lambda of the possync worker group: the
// consumer of the pos-sync queue, running the syncs of stores' stock
// with their point-of-sale systems. It is only wiring (app.Start with its
// group's constructor); the handler lives in shared/ and runs unchanged
// on the local run's poller.
package main

import (
	"github.com/bookplatform/backend/shared/api/possyncapi"
	"github.com/bookplatform/backend/shared/app"
)

func main() { app.Start(possyncapi.Group) }
