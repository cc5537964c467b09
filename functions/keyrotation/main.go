// Command keyrotation is the Secrets Manager rotation function of the
// access-token keys: Secrets Manager invokes it on the secret's schedule
// (and on `aws secretsmanager rotate-secret`), once per rotation step.
// shared/secretsmgr says what each step does; the stack grants it exactly
// the four calls on the one secret.
package main

import (
	"context"
	"fmt"
	"os"

	"github.com/aws/aws-lambda-go/lambda"
	awsconfig "github.com/aws/aws-sdk-go-v2/config"
	"github.com/bookplatform/backend/shared/config"
	"github.com/bookplatform/backend/shared/secretsmgr"
)

func main() {
	logger := config.NewLogger(os.Stdout, os.Getenv(config.EnvLogLevel))
	cfg, err := awsconfig.LoadDefaultConfig(context.Background())
	if err != nil {
		fmt.Fprintln(os.Stderr, "configuration error:", err)
		os.Exit(2)
	}
	lambda.Start((&secretsmgr.Rotator{API: secretsmgr.NewClient(cfg), Logger: logger}).Handle)
}
