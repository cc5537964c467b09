// Command docs is the Lambda of the docs group: the API reference as an
// OpenAPI document and as a page to read, with the page's script. It is
// only wiring (app.Start with its group's constructor, so it links no
// other group); the handlers live in shared/ and run unchanged locally.
package main

import (
	"github.com/bookplatform/backend/shared/api/docsapi"
	"github.com/bookplatform/backend/shared/app"
)

func main() { app.Start(docsapi.Group) }
