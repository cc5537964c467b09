// Command orders is the operator's order commands until the back office
// has its routes. Its one command refunds an order a store has handed
// over (shipped, picked up or delivered): the captured payment is
// refunded in full at the provider, the order and its parts become
// refunded (refundedAt; the reason kept as cancellationReason), its
// affiliate commission or pool shares are reversed and order.updated is
// written, in one transaction; no stock of a handed-over part comes back (the books were
// delivered). Running it again refunds nothing twice (the provider's
// idempotency key is "refund-<orderId>", and an order refunded already
// is answered as it is). On a cancelled order whose payment release
// failed after the cancellation (paymentStatus still authorized or
// captured) it retries that release: a void, or a refund of what was
// captured.
//
//	go run ./local/orders refund -order <id> -reason <text>
//
// It works on the local run's table (`make run`) and its payment
// stand-in (found through the run's info file), or, with AWS_ENDPOINT_URL_DYNAMODB set, on that endpoint's
// TABLE_NAME (or -table); with -aws, AWS credentials and TABLE_NAME, on
// a deployment's table. The provider is the one the payments settings
// configure (STRIPE_API_KEY or STRIPE_API_KEY_SECRET_ARN, and
// STRIPE_API_BASE for the stand-in: shared/payments).
package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"strings"

	"github.com/aws/aws-sdk-go-v2/aws"
	awsconfig "github.com/aws/aws-sdk-go-v2/config"
	"github.com/bookplatform/backend/local/stripelocal"
	"github.com/bookplatform/backend/local/tabletarget"
	"github.com/bookplatform/backend/shared/config"
	"github.com/bookplatform/backend/shared/dynamo"
	"github.com/bookplatform/backend/shared/orders"
	"github.com/bookplatform/backend/shared/payments"
	"github.com/bookplatform/backend/shared/secretsmgr"
)

func main() {
	if err := run(context.Background(), os.Args[1:], os.Stdout); err != nil {
		fmt.Fprintln(os.Stderr, "orders:", err)
		os.Exit(1)
	}
}

const usage = "usage: orders refund -order <id> -reason <text> [-table <name>] [-aws]"

func run(ctx context.Context, args []string, out io.Writer) error {
	if len(args) == 0 || args[0] != "refund" {
		return errors.New(usage)
	}
	fs := flag.NewFlagSet("refund", flag.ContinueOnError)
	orderID := fs.String("order", "", "the order's id")
	reason := fs.String("reason", "", "why the order is refunded (kept on the order)")
	table := fs.String("table", os.Getenv(config.EnvTableName), "DynamoDB table (default: TABLE_NAME, or the local run's table)")
	useAWS := fs.Bool("aws", false, "use the table in AWS when no local run and no endpoint is set")
	if err := fs.Parse(args[1:]); err != nil {
		return err
	}
	if *orderID == "" || strings.TrimSpace(*reason) == "" {
		return errors.New(usage)
	}
	dest, err := tabletarget.Choose(*table, *useAWS)
	if err != nil {
		return err
	}
	// The local run's payments are its Stripe stand-in's, unless the
	// payments settings say otherwise.
	if dest.Payments != "" && os.Getenv(payments.EnvStripeAPIBase) == "" && os.Getenv(payments.EnvStripeAPIKey) == "" &&
		os.Getenv(payments.EnvStripeAPIKeySecretARN) == "" {
		_ = os.Setenv(payments.EnvStripeAPIBase, dest.Payments)
		_ = os.Setenv(payments.EnvStripeAPIKey, stripelocal.APIKey)
	}
	cfg, err := awsconfig.LoadDefaultConfig(ctx)
	if err != nil {
		return err
	}
	svc, err := refunder(cfg, dest.Table, config.NewEnv(os.Getenv))
	if err != nil {
		return err
	}
	o, err := svc.RefundOrder(ctx, *orderID, *reason)
	if err != nil {
		return err
	}
	refundedAt := ""
	if o.RefundedAt != nil {
		refundedAt = o.RefundedAt.UTC().Format("2006-01-02T15:04:05Z")
	}
	fmt.Fprintf(out, "order %s (%s): %s, payment %s, %d cents refunded at %s\n", o.ID, o.Number, o.Status, o.PaymentStatus, o.TotalCents, refundedAt)
	return nil
}

// refunder is the stores' side of orders over table with the provider
// env configures.
func refunder(cfg aws.Config, table string, env *config.Env) (*orders.FulfilService, error) {
	p, err := payments.FromEnv(env, payments.Runtime{Secrets: secretsmgr.NewClient(cfg)})
	if err != nil {
		return nil, err
	}
	if err := env.Err(); err != nil {
		return nil, err
	}
	return orders.NewFulfilService(orders.FulfilDeps{Store: dynamo.NewOrders(dynamo.Handle{DB: dynamo.NewClient(cfg), Table: table}), Payments: p}), nil
}
