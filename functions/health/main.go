// Command health is the Lambda of the health group. It also serves API
// Gateway's $default route, so its router knows every group's routes (by
// method and path only, generated into shared/app: it links no other
// group): a request that matched no route at the gateway (unknown path,
// or a known path with a wrong method) gets the router's 404 or 405 in the
// error envelope instead of API Gateway's bare {"message":"Not Found"}. It
// runs only the health handler (app.FallbackRouter).
// It is only wiring (app.Start with its group's constructor, so it links
// no other group); the handlers live in shared/ and run unchanged locally.
package main

import (
	"github.com/bookplatform/backend/shared/api/healthapi"
	"github.com/bookplatform/backend/shared/app"
)

func main() { app.Start(healthapi.Group) }
