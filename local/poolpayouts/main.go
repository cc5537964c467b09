// Command poolpayouts runs the monthly pool of a month on a table, as
// the scheduled function does (functions/poolpayouts, the same handler):
//
//	go run ./local/poolpayouts -month 2026-10
//
// -month defaults to the previous month; a month not over yet is
// refused, and a month run already writes nothing (run it as often as
// you like). The table: local/tabletarget (the running `make run`'s, an
// endpoint's, or with -aws the one in AWS). It prints what the run did;
// the exit status is 1 when it failed, 2 for wrong usage.
package main

import (
	"context"
	"fmt"
	"io"
	"log/slog"
	"os"
	"os/signal"
	"syscall"
	"time"

	"flag"
	"github.com/bookplatform/backend/local/tabletarget"
	"github.com/bookplatform/backend/shared/dynamo"
	"github.com/bookplatform/backend/shared/earnings"
)

func main() {
	code, err := run(os.Args[1:], os.Stdout, os.Stderr)
	if err != nil {
		fmt.Fprintln(os.Stderr, "poolpayouts:", err)
	}
	os.Exit(code)
}

func run(args []string, stdout, stderr io.Writer) (int, error) {
	fs := flag.NewFlagSet("poolpayouts", flag.ContinueOnError)
	fs.SetOutput(stderr)
	month := fs.String("month", "", "the month to run, YYYY-MM (default: the previous month)")
	table := fs.String("table", "", "DynamoDB table (default: TABLE_NAME, or the local run's table)")
	useAWS := fs.Bool("aws", false, "with no endpoint set and no local run, work on the table in AWS")
	if err := fs.Parse(args); err != nil || fs.NArg() > 0 {
		fmt.Fprintln(stderr, "usage: go run ./local/poolpayouts [-month YYYY-MM] [-table NAME] [-aws]")
		return 2, nil
	}
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	dest, err := tabletarget.Choose(*table, *useAWS)
	if err != nil {
		return 1, err
	}
	h, err := dest.Handle(ctx)
	if err != nil {
		return 1, err
	}
	svc := &earnings.Service{Store: dynamo.NewEarnings(h), Now: time.Now,
		Logger: slog.New(slog.NewJSONHandler(stderr, &slog.HandlerOptions{Level: slog.LevelWarn}))}
	res, err := svc.HandlePool(ctx, earnings.PoolEvent{Month: *month})
	if err != nil {
		return 1, err
	}
	fmt.Fprintf(stdout, "pool %s on table %s (%s)\n", res.Month, dest.Table, dest.Where)
	if res.AlreadyDone {
		fmt.Fprintln(stdout, "already run: nothing written")
		return 0, nil
	}
	fmt.Fprintf(stdout, "pool %d cents: %d payouts written (%d cents), %d written before, %d cents unpaid (stores deleted)\n",
		res.PoolCents, res.Payouts, res.PaidCents, res.Existing, res.UnpaidCents)
	return 0, nil
}
