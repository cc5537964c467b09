// Command payouts records payouts an operator made to a store from a
// shell. The back office's routes do the same with an audit entry
// (POST /v1/admin/stores/{storeId}/payouts/orders/{orderId}/paid and
// .../payouts/pool/{month}/paid, shared/api/adminapi money.go); the
// command stays for an operator with table access and no token:
//
//	go run ./local/payouts mark-paid -store <storeId> -order <orderId> -reference <text>
//	go run ./local/payouts mark-paid -store <storeId> -pool YYYY-MM -reference <text>
//
// -order marks the order's pending commission paid, or, when the
// commission was paid and its order cancelled since, its pending
// reversal (a negative amount: money the store gives back or that is
// netted from the transfer). -pool marks the store's payout of that
// month paid. Each is one transaction: the record moves from pending to
// paid with paidAt and the reference, and its amount from the store's
// pending total to its paid total, so GET earnings and the lists agree.
// A record paid already is refused. The table: local/tabletarget (the
// running `make run`'s, an endpoint's, or with -aws the one in AWS).
// Exit status 1 when it failed, 2 for wrong usage.
package main

import (
	"context"
	"flag"
	"fmt"
	"io"
	"os"
	"os/signal"
	"strings"
	"syscall"
	"time"

	"github.com/bookplatform/backend/local/tabletarget"
	"github.com/bookplatform/backend/shared/dynamo"
	"github.com/bookplatform/backend/shared/earnings"
)

func main() {
	code, err := run(os.Args[1:], os.Stdout, os.Stderr)
	if err != nil {
		fmt.Fprintln(os.Stderr, "payouts:", err)
	}
	os.Exit(code)
}

const usage = "usage: go run ./local/payouts mark-paid -store STOREID (-order ORDERID | -pool YYYY-MM) -reference TEXT [-table NAME] [-aws]"

func run(args []string, stdout, stderr io.Writer) (int, error) {
	if len(args) == 0 || args[0] != "mark-paid" {
		fmt.Fprintln(stderr, usage)
		return 2, nil
	}
	fs := flag.NewFlagSet("payouts mark-paid", flag.ContinueOnError)
	fs.SetOutput(stderr)
	store := fs.String("store", "", "the store's id")
	order := fs.String("order", "", "the order whose commission (or reversal) was paid")
	pool := fs.String("pool", "", "the month (YYYY-MM) whose pool payout was paid")
	reference := fs.String("reference", "", "the payment's reference (a transfer id), kept on the record")
	table := fs.String("table", "", "DynamoDB table (default: TABLE_NAME, or the local run's table)")
	useAWS := fs.Bool("aws", false, "with no endpoint set and no local run, work on the table in AWS")
	if err := fs.Parse(args[1:]); err != nil || fs.NArg() > 0 || *store == "" || strings.TrimSpace(*reference) == "" || (*order == "") == (*pool == "") {
		fmt.Fprintln(stderr, usage)
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
	svc := &earnings.Service{Store: dynamo.NewEarnings(h), Now: time.Now}
	ref := strings.TrimSpace(*reference)
	if *order != "" {
		c, err := svc.MarkCommissionPaid(ctx, *store, *order, ref)
		if err != nil {
			return 1, err
		}
		kind := "commission"
		if c.Reversal {
			kind = "reversal"
		}
		fmt.Fprintf(stdout, "%s %s of order %s (%d cents) paid at %s, reference %q (table %s, %s)\n",
			kind, c.ID, c.OrderID, c.CommissionCents, c.PaidAt.Format(time.RFC3339), c.PaidReference, dest.Table, dest.Where)
		return 0, nil
	}
	p, err := svc.MarkPoolPayoutPaid(ctx, *store, *pool, ref)
	if err != nil {
		return 1, err
	}
	fmt.Fprintf(stdout, "pool payout %s (%d cents) paid at %s, reference %q (table %s, %s)\n",
		p.ID, p.PayoutAmountCents, p.PaidAt.Format(time.RFC3339), p.PaidReference, dest.Table, dest.Where)
	return 0, nil
}
