// Command books is the Lambda of the books group: catalog search and books by id or ISBN.
// It is only wiring (app.Start); the handlers live in shared/ and run
// unchanged locally.
package main

import "github.com/bookplatform/backend/shared/app"

func main() { app.Start("books") }
