// Command users is the Lambda of the users group: the caller's profile, password and avatar, and public profiles.
// It is only wiring (app.Start with its group's constructor, so it links
// no other group); the handlers live in shared/ and run unchanged locally.
package main

import (
	"github.com/bookplatform/backend/shared/api/usersapi"
	"github.com/bookplatform/backend/shared/app"
)

func main() { app.Start(usersapi.Group) }
