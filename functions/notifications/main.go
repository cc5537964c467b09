// Command notifications is the Lambda of the notifications group: a
// store's email settings and the daily digest's unsubscribe link. It is
// only wiring (app.Start with its group's constructor, so it links no
// other group); the handlers live in shared/ and run unchanged locally.
package main

import (
	"github.com/bookplatform/backend/shared/api/notificationsapi"
	"github.com/bookplatform/backend/shared/app"
)

func main() { app.Start(notificationsapi.Group) }
