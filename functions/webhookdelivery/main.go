// Command webhookdelivery is the webhook delivery worker's Lambda: the
// consumer of the webhooks queue, one signed attempt per message.
// It is only wiring (app.Start with its group's constructor, so it links
// no other group); the handlers live in shared/ and run unchanged locally.
package main

import (
	"github.com/bookplatform/backend/shared/api/webhookdeliveryapi"
	"github.com/bookplatform/backend/shared/app"
)

func main() { app.Start(webhookdeliveryapi.Group) }
