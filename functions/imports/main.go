// Command imports is the imports group's Lambda: CSV bulk import of
// inventory and its job.
// It is only wiring (app.Start with its group's constructor, so it links
// no other group); the handlers live in shared/ and run unchanged locally.
package main

import (
	"github.com/bookplatform/backend/shared/api/importsapi"
	"github.com/bookplatform/backend/shared/app"
)

func main() { app.Start(importsapi.Group) }
