// Command inventory is the Lambda of the inventory group: stores' stock,
// its history, and a book's availability at stores.
// It is only wiring (app.Start with its group's constructor, so it links
// no other group); the handlers live in shared/ and run unchanged locally.
package main

import (
	"github.com/bookplatform/backend/shared/api/inventoryapi"
	"github.com/bookplatform/backend/shared/app"
)

func main() { app.Start(inventoryapi.Group) }
