// Command admin is the Lambda of the admin group: the back office under
// /v1/admin (operators only). It is only wiring (app.Start with its
// group's constructor, so it links no other group); the handlers live in
// shared/ and run unchanged locally.
package main

import (
	"github.com/bookplatform/backend/shared/api/adminapi"
	"github.com/bookplatform/backend/shared/app"
)

func main() { app.Start(adminapi.Group) }
