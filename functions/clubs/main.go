// Command clubs is the Lambda of the clubs group: clubs, their reading
// lists and memberships, and the reader's lists of clubs.
// It is only wiring (app.Start with its group's constructor, so it links
// no other group); the handlers live in shared/ and run unchanged locally.
package main

import (
	"github.com/bookplatform/backend/shared/api/clubsapi"
	"github.com/bookplatform/backend/shared/app"
)

func main() { app.Start(clubsapi.Group) }
