// Command poolpayouts is the monthly pool job: EventBridge Scheduler
// invokes it at 02:00 UTC on the 1st of each month (earnings.PoolSchedule)
// and it splits the month that ended among the stores that sold in it
// (earnings.Service.RunPool), once: a month already run writes nothing.
// The event may name a month ({"month": "YYYY-MM"}); an empty one is the
// previous month. It is only wiring; `go run ./local/poolpayouts` runs
// the same handler on a table.
package main

import (
	"context"

	"github.com/bookplatform/backend/shared/app"
	"github.com/bookplatform/backend/shared/dynamo"
	"github.com/bookplatform/backend/shared/earnings"
)

func main() {
	app.StartJob(func(a *app.App) func(context.Context, earnings.PoolEvent) (earnings.PoolResult, error) {
		s := &earnings.Service{Store: dynamo.NewEarnings(a.Table), Now: a.Now, Logger: a.Logger}
		return s.HandlePool
	})
}
