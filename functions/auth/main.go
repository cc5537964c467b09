// Command auth is the Lambda of the auth group: guest accounts, sign-up, login, token refresh, guest migration and logout.
// It is only wiring (app.Start with its group's constructor, so it links
// no other group); the handlers live in shared/ and run unchanged locally.
package main

import (
	"github.com/bookplatform/backend/shared/api/authapi"
	"github.com/bookplatform/backend/shared/app"
)

func main() { app.Start(authapi.Group) }
