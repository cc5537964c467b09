// Command follows is the Lambda of the follows group: following and
// unfollowing readers, and the caller's followers and following.
// It is only wiring (app.Start with its group's constructor, so it links
// no other group); the handlers live in shared/ and run unchanged locally.
package main

import (
	"github.com/bookplatform/backend/shared/api/followsapi"
	"github.com/bookplatform/backend/shared/app"
)

func main() { app.Start(followsapi.Group) }
