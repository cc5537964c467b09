// Command emaildigest is the daily digest job: EventBridge Scheduler
// invokes it at 07:00 UTC (notify.DigestSchedule) and it mails each
// store whose new-order email is set to daily one digest of the orders
// confirmed the day before, once per store and day: a run repeated sends
// nothing again. The event may name a day ({"day": "YYYY-MM-DD"}); an
// empty one is the previous day. It is only wiring; the job lives in
// shared/notify.
package main

import (
	"context"

	"github.com/bookplatform/backend/shared/app"
	"github.com/bookplatform/backend/shared/mail/sesmail"
	"github.com/bookplatform/backend/shared/notify"
	"github.com/bookplatform/backend/shared/notify/notifydeps"
)

func main() {
	app.StartJob(func(a *app.App) func(context.Context, notify.DigestEvent) (notify.DigestResult, error) {
		d := a.Deps()
		return notifydeps.Digest(d, sesmail.FromConfig(d.AWS, d.Env, d.Logger)).Handle
	})
}
