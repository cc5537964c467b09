// Command books is the Lambda of the books group: catalog search and books by id or ISBN.
// It is only wiring (app.Start with its group's constructor, so it links
// no other group); the handlers live in shared/ and run unchanged locally.
package main

import (
	"github.com/bookplatform/backend/shared/api/booksapi"
	"github.com/bookplatform/backend/shared/app"
)

func main() { app.Start(booksapi.Group) }
