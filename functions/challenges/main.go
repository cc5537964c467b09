// Command challenges is the Lambda of the challenges group: reading
// challenges, their participants and progress, and the reader's lists of
// challenges.
// It is only wiring (app.Start with its group's constructor, so it links
// no other group); the handlers live in shared/ and run unchanged locally.
package main

import (
	"github.com/bookplatform/backend/shared/api/challengesapi"
	"github.com/bookplatform/backend/shared/app"
)

func main() { app.Start(challengesapi.Group) }
