// Command auth is the Lambda of the auth group: guest accounts, sign-up, login, token refresh, guest migration and logout.
// It is only wiring (app.Start); the handlers live in shared/ and run
// unchanged locally.
package main

import "github.com/bookplatform/backend/shared/app"

func main() { app.Start("auth") }
