// Command docs is the Lambda of the docs group: the API reference as an
// OpenAPI document and as a page to read, with the page's script. It is
// only wiring (app.Start); the handlers live in shared/ and run unchanged
// locally.
package main

import "github.com/bookplatform/backend/shared/app"

func main() { app.Start("docs") }
