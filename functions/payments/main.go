// Command payments is the Lambda of the payments group: the payment
// provider's signed webhook, which confirms or cancels the order of a
// payment completed, failed or canceled on the web. It is only wiring
// (app.Start with its group's constructor); the handler lives in shared/
// and runs unchanged locally.
package main

import (
	"github.com/bookplatform/backend/shared/api/paymentsapi"
	"github.com/bookplatform/backend/shared/app"
)

func main() { app.Start(paymentsapi.Group) }
