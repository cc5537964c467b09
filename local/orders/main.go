// Command orders is the operator's order commands until the back office
// has its routes. Its one command refunds an order a store has handed
// over (shipped, picked up or delivered): the captured payment is
// refunded in full at the provider, the order and its parts become
// refunded (refundedAt; the reason kept as cancellationReason), its
// affiliate commission or pool shares are reversed and order.updated is
// written, in one transaction; no stock comes back (the books were
// delivered). Running it again refunds nothing twice (the provider's
// idempotency key is "refund-<orderId>", and an order refunded already
// is answered as it is).
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
	"path/filepath"
	"strings"

	"github.com/aws/aws-sdk-go-v2/aws"
	awsconfig "github.com/aws/aws-sdk-go-v2/config"
	"github.com/bookplatform/backend/local/dynamodblocal"
	"github.com/bookplatform/backend/local/runinfo"
	"github.com/bookplatform/backend/local/stripelocal"
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
	if err := localRun(table, *useAWS); err != nil {
		return err
	}
	if *table == "" {
		return errors.New("set TABLE_NAME or -table")
	}
	cfg, err := awsconfig.LoadDefaultConfig(ctx)
	if err != nil {
		return err
	}
	svc, err := refunder(cfg, *table, config.NewEnv(os.Getenv))
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

// localRun points the AWS SDK at the local run's DynamoDB Local (and
// its table) when no endpoint is set and a local run is up, as
// local/backfillrefs does.
func localRun(table *string, useAWS bool) error {
	if os.Getenv("AWS_ENDPOINT_URL_DYNAMODB") != "" {
		return nil
	}
	dataDir := strings.TrimSpace(os.Getenv(config.EnvLocalDataDir))
	if dataDir == "" {
		root, err := dynamodblocal.ModuleRoot("")
		if err != nil {
			return err
		}
		dataDir = filepath.Join(root, ".local")
	}
	info, err := runinfo.Read(dataDir)
	switch {
	case err == nil:
		if *table == "" {
			*table = info.Table
		}
		for k, v := range map[string]string{"AWS_ENDPOINT_URL_DYNAMODB": info.DynamoDB, "AWS_ACCESS_KEY_ID": "local",
			"AWS_SECRET_ACCESS_KEY": "local", "AWS_REGION": "us-east-1"} {
			_ = os.Setenv(k, v)
		}
		_ = os.Unsetenv("AWS_SESSION_TOKEN")
		_ = os.Unsetenv("AWS_PROFILE")
		// The local run's payments are its Stripe stand-in's, unless
		// the payments settings say otherwise.
		if info.Payments != "" && os.Getenv(payments.EnvStripeAPIBase) == "" && os.Getenv(payments.EnvStripeAPIKey) == "" &&
			os.Getenv(payments.EnvStripeAPIKeySecretARN) == "" {
			_ = os.Setenv(payments.EnvStripeAPIBase, info.Payments)
			_ = os.Setenv(payments.EnvStripeAPIKey, stripelocal.APIKey)
		}
		return nil
	case !errors.Is(err, runinfo.ErrNotRunning):
		return err
	case !useAWS:
		return fmt.Errorf("no local run on %s: start `make run`, set AWS_ENDPOINT_URL_DYNAMODB, or pass -aws with TABLE_NAME", dataDir)
	}
	return nil
}
