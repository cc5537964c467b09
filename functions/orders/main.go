// Command orders is the Lambda of the orders group: readers' orders
// (placed, listed, read, cancelled, confirmed), paid through the payment
// provider. It is only wiring (app.Start with its group's constructor,
// so it links no other group, and the payment SDK goes into no other
// group's bootstrap); the handlers live in shared/ and run unchanged
// locally.
package main

import (
	"github.com/bookplatform/backend/shared/api/ordersapi"
	"github.com/bookplatform/backend/shared/app"
)

func main() { app.Start(ordersapi.Group) }
