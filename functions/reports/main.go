// Command reports is the Lambda of the reports group: reports of lines,
// replies, reviews and clubs, stored for moderation.
// It is only wiring (app.Start with its group's constructor, so it links
// no other group); the handlers live in shared/ and run unchanged locally.
package main

import (
	"github.com/bookplatform/backend/shared/api/reportsapi"
	"github.com/bookplatform/backend/shared/app"
)

func main() { app.Start(reportsapi.Group) }
