// Command orders is the operator's tool for orders until the back office
// gives operators routes: refund a confirmed, shipped or delivered order
// (a return, a complaint after delivery). The provider refunds the
// captured total (once, whatever the retries), then the order moves to
// refunded with its commission or pool share reversed and an
// order.updated event (orders.Service.Refund).
//
//	go run ./local/orders refund -order <orderId> -reason "returned damaged"
//
// It writes to the table TABLE_NAME (or -table) at AWS_ENDPOINT_URL_DYNAMODB
// (the local run's DynamoDB Local) or, without it, in AWS (credentials from
// the SDK's usual chain), and pays through the provider the payments
// settings name (STRIPE_API_KEY or STRIPE_API_KEY_SECRET_ARN,
// STRIPE_API_BASE for the local run's stand-in).
package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"log/slog"
	"os"

	awsconfig "github.com/aws/aws-sdk-go-v2/config"
	"github.com/bookplatform/backend/shared/api"
	"github.com/bookplatform/backend/shared/api/ordering"
	"github.com/bookplatform/backend/shared/config"
	"github.com/bookplatform/backend/shared/dynamo"
)

func main() {
	if err := run(os.Args[1:]); err != nil {
		fmt.Fprintln(os.Stderr, "orders:", err)
		os.Exit(1)
	}
}

func run(args []string) error {
	if len(args) == 0 || args[0] != "refund" {
		return errors.New("usage: orders refund -order <orderId> [-reason <text>] [-table <name>]")
	}
	fs := flag.NewFlagSet("refund", flag.ContinueOnError)
	orderID := fs.String("order", "", "the order to refund")
	reason := fs.String("reason", "", "why (kept as the order's cancellationReason)")
	table := fs.String("table", os.Getenv(config.EnvTableName), "DynamoDB table (default TABLE_NAME)")
	if err := fs.Parse(args[1:]); err != nil {
		return err
	}
	if *orderID == "" || *table == "" {
		return errors.New("-order and -table (or TABLE_NAME) are required")
	}
	ctx := context.Background()
	cfg, err := awsconfig.LoadDefaultConfig(ctx)
	if err != nil {
		return err
	}
	env := config.OSEnv()
	d := api.Deps{Env: env, AWS: cfg, Table: dynamo.Handle{DB: dynamo.NewClient(cfg), Table: *table}, Logger: slog.Default()}
	p := ordering.Provider(d)
	if err := env.Err(); err != nil {
		return err
	}
	o, err := ordering.Service(d, p).Refund(ctx, *orderID, *reason)
	if err != nil {
		return err
	}
	fmt.Printf("order %s (%s): %s, %d cents refunded\n", o.ID, o.Number, o.Status, o.TotalCents)
	return nil
}
