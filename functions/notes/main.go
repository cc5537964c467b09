// Command notes is the Lambda of the notes group: a reader's private
// reading notes.
// It is only wiring (app.Start with its group's constructor, so it links
// no other group); the handlers live in shared/ and run unchanged locally.
package main

import (
	"github.com/bookplatform/backend/shared/api/notesapi"
	"github.com/bookplatform/backend/shared/app"
)

func main() { app.Start(notesapi.Group) }
