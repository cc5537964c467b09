// Command pos is the Lambda of the point-of-sale group: a store's staff
// ring up sales, look books up by barcode, print receipts, read
// summaries and keep the cash drawer. It is only wiring (app.Start with
// its group's constructor, so it links no other group); the handlers
// live in shared/ and run unchanged locally.
package main

import (
	"github.com/bookplatform/backend/shared/api/posapi"
	"github.com/bookplatform/backend/shared/app"
)

func main() { app.Start(posapi.Group) }
