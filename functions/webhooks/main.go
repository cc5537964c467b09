// Command webhooks is the Lambda of the webhooks group: a store's owner
// registers, changes and deletes the endpoints its events are delivered
// to, rotates their secrets, sends a test event, and reads and
// redelivers their deliveries. It is only wiring (app.Start with its
// group's constructor, so it links no other group); the handlers live in
// shared/ and run unchanged locally.
package main

import (
	"github.com/bookplatform/backend/shared/api/webhooksapi"
	"github.com/bookplatform/backend/shared/app"
)

func main() { app.Start(webhooksapi.Group) }
