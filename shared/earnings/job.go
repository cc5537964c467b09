package earnings

import (
	"context"
)

// PoolSchedule is when the monthly pool job runs (EventBridge
// Scheduler's cron, in UTC): 02:00 on the 1st of every month, for the
// month that just ended. Its two hours leave the orders of the month's
// last instants (and their transactions' retries) time to land.
const PoolSchedule = "cron(0 2 1 * ? *)"

// PoolEvent is the pool job's event: the month to run, YYYY-MM; empty
// (the schedule's event) is the month before the current one. An
// operator may invoke the function with a month to run one again (a
// month run already writes nothing).
type PoolEvent struct {
	Month string `json:"month"`
}

// PoolResult is what the job answers (and logs): what the run did.
type PoolResult struct {
	Month       string `json:"month"`
	AlreadyDone bool   `json:"alreadyDone"`
	PoolCents   int64  `json:"poolCents"`
	PaidCents   int64  `json:"paidCents"`
	Payouts     int    `json:"payouts"`
	Existing    int    `json:"existing"`
	UnpaidCents int64  `json:"unpaidCents"`
}

// HandlePool is the pool job's handler (functions/poolpayouts, and
// local/poolpayouts): RunPool of the event's month.
func (s *Service) HandlePool(ctx context.Context, ev PoolEvent) (PoolResult, error) {
	month := ev.Month
	if month == "" {
		month = PreviousMonth(s.Now())
	}
	r, err := s.RunPool(ctx, month)
	if err != nil {
		s.log().Error("pool run failed", "month", month, "error", err)
		return PoolResult{}, err
	}
	res := PoolResult{Month: r.Month, AlreadyDone: r.AlreadyDone, PoolCents: r.PoolCents, PaidCents: r.PaidCents(),
		Payouts: len(r.Created), Existing: r.Existing}
	for _, u := range r.Unpaid {
		res.UnpaidCents += u.AmountCents
	}
	s.log().Info("pool run", "month", res.Month, "alreadyDone", res.AlreadyDone, "poolCents", res.PoolCents,
		"paidCents", res.PaidCents, "payouts", res.Payouts, "existing", res.Existing, "unpaidCents", res.UnpaidCents)
	return res, nil
}
