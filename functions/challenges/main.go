// Command challenges is the Lambda of the challenges group: reading
// challenges, their participants and progress, and the reader's lists of
// challenges.
// It is only wiring (app.Start); the handlers live in shared/ and run
// unchanged locally.
package main

import "github.com/bookplatform/backend/shared/app"

func main() { app.Start("challenges") }
