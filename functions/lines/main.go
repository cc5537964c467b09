// Command lines is the Lambda of the lines group: lines, their likes and
// replies, and the lists of a book's and an author's lines.
// It is only wiring (app.Start with its group's constructor, so it links
// no other group); the handlers live in shared/ and run unchanged locally.
package main

import (
	"github.com/bookplatform/backend/shared/api/linesapi"
	"github.com/bookplatform/backend/shared/app"
)

func main() { app.Start(linesapi.Group) }
