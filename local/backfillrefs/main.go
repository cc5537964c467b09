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
	"errors"
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"strings"

	awsconfig "github.com/aws/aws-sdk-go-v2/config"
	"github.com/bookplatform/backend/local/dynamodblocal"
	"github.com/bookplatform/backend/local/runinfo"
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
	if os.Getenv("AWS_ENDPOINT_URL_DYNAMODB") == "" {
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
		case !errors.Is(err, runinfo.ErrNotRunning):
			return err
		case !*useAWS:
			return fmt.Errorf("no local run on %s: start `make run`, set AWS_ENDPOINT_URL_DYNAMODB, or pass -aws with TABLE_NAME", dataDir)
		}
	}
	if *table == "" {
		return errors.New("set TABLE_NAME or -table")
	}
	ctx := context.Background()
	cfg, err := awsconfig.LoadDefaultConfig(ctx)
	if err != nil {
		return err
	}
	n, err := dynamo.NewOrders(dynamo.Handle{DB: dynamo.NewClient(cfg), Table: *table}).BackfillRefs(ctx)
	fmt.Printf("wrote %d inventory refs to %s\n", n, *table)
	return err
}
