// Command backfillrefs writes the inventory ref (INVREF#<itemId>: the
// item's store and book, which POST /v1/orders finds an item by) of
// every inventory item of the table, for items created before refs
// existed. Every item creation writes its ref since; running this again
// rewrites the same refs (harmless).
//
//	go run ./local/backfillrefs                 # the local run's table (make run)
//	TABLE_NAME=... go run ./local/backfillrefs -aws   # a deployment's table, with AWS credentials
//
// With AWS_ENDPOINT_URL_DYNAMODB set it writes to that endpoint's
// TABLE_NAME (or -table).
package main

import (
	"context"
	"flag"
	"fmt"
	"os"

	"github.com/bookplatform/backend/local/tabletarget"
	"github.com/bookplatform/backend/shared/config"
	"github.com/bookplatform/backend/shared/dynamo"
)

func main() {
	if err := run(); err != nil {
		fmt.Fprintln(os.Stderr, "backfillrefs:", err)
		os.Exit(1)
	}
}

func run() error {
	table := flag.String("table", os.Getenv(config.EnvTableName), "DynamoDB table (default: TABLE_NAME, or the local run's table)")
	useAWS := flag.Bool("aws", false, "write to the table in AWS when no local run and no endpoint is set")
	flag.Parse()
	dest, err := tabletarget.Choose(*table, *useAWS)
	if err != nil {
		return err
	}
	ctx := context.Background()
	h, err := dest.Handle(ctx)
	if err != nil {
		return err
	}
	n, err := dynamo.NewOrders(h).BackfillRefs(ctx)
	fmt.Printf("wrote %d inventory refs to %s (%s)\n", n, dest.Table, dest.Where)
	return err
}
