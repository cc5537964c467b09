// Package tabletarget chooses the table an operator's command works on
// (importbooks, backfillrefs, orders, poolpayouts, payouts): an endpoint given by
// AWS_ENDPOINT_URL_DYNAMODB (with TABLE_NAME or -table); else the
// running `make run`'s DynamoDB Local and table (from
// LOCAL_DATA_DIR/run.json, default .local); else, only when the command
// is told so (-aws), the table TABLE_NAME (or -table) in the AWS account
// and region of the SDK's usual chain, so nothing writes to AWS by
// accident.
package tabletarget

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"

	"github.com/bookplatform/backend/local/dynamodblocal"
	"github.com/bookplatform/backend/local/runinfo"
	"github.com/bookplatform/backend/shared/app"
	"github.com/bookplatform/backend/shared/config"
	"github.com/bookplatform/backend/shared/dynamo"
)

// Target is the table chosen and where it is, for the command's report.
type Target struct {
	Table string
	Where string
	// Payments is the local run's Stripe stand-in's base URL when the
	// table is the local run's ("" otherwise), for a command that pays.
	Payments string
}

// Choose picks the table (see the package comment) and sets the SDK's
// variables for the local run's DynamoDB Local.
func Choose(table string, useAWS bool) (Target, error) {
	if table == "" {
		table = strings.TrimSpace(os.Getenv(config.EnvTableName))
	}
	if ep := strings.TrimSpace(os.Getenv("AWS_ENDPOINT_URL_DYNAMODB")); ep != "" {
		if table == "" {
			return Target{}, fmt.Errorf("set %s or -table: the table at %s", config.EnvTableName, ep)
		}
		return Target{Table: table, Where: ep}, nil
	}
	dataDir := strings.TrimSpace(os.Getenv(config.EnvLocalDataDir))
	if dataDir == "" {
		root, err := dynamodblocal.ModuleRoot("")
		if err != nil {
			return Target{}, err
		}
		dataDir = filepath.Join(root, ".local")
	}
	info, err := runinfo.Read(dataDir)
	switch {
	case err == nil:
		if table == "" {
			table = info.Table
		}
		// The local run's endpoint and dummy credentials, never a
		// developer's real ones (as local/main.go gives itself).
		for k, v := range map[string]string{
			"AWS_ENDPOINT_URL_DYNAMODB": info.DynamoDB, "AWS_ACCESS_KEY_ID": "local", "AWS_SECRET_ACCESS_KEY": "local",
		} {
			_ = os.Setenv(k, v)
		}
		for _, k := range []string{"AWS_SESSION_TOKEN", "AWS_PROFILE"} {
			_ = os.Unsetenv(k)
		}
		if os.Getenv("AWS_REGION") == "" {
			_ = os.Setenv("AWS_REGION", "us-east-1")
		}
		return Target{Table: table, Where: "the local run's DynamoDB Local at " + info.DynamoDB, Payments: info.Payments}, nil
	case !errors.Is(err, runinfo.ErrNotRunning):
		return Target{}, err
	case useAWS:
		if table == "" {
			return Target{}, fmt.Errorf("set %s or -table: the table in AWS", config.EnvTableName)
		}
		return Target{Table: table, Where: "AWS"}, nil
	}
	return Target{}, fmt.Errorf("no local run on %s: start `make run` first, set AWS_ENDPOINT_URL_DYNAMODB to another DynamoDB, "+
		"or pass -aws with %s or -table to work on a table in AWS", dataDir, config.EnvTableName)
}

// Handle is the table's handle, its client built from the SDK's usual
// chain (the variables Choose set included).
func (t Target) Handle(ctx context.Context) (dynamo.Handle, error) {
	clients, err := app.LoadClients(ctx)
	if err != nil {
		return dynamo.Handle{}, err
	}
	return dynamo.Handle{DB: clients.DynamoDB, Table: t.Table}, nil
}
