// Command authorizer is the API Gateway Lambda authorizer (simple
// responses) of the back office's routes (groups.AuthorizerInvoked). It reads only the token settings (the
// keys: JWT_SECRET_ARN in AWS, JWT_SECRET and the keys beside it
// elsewhere; ACCESS_TOKEN_TTL) and touches no table or bucket, so it gets
// neither their names nor any grant, and does not link the app's data
// clients. shared/authorizer explains which requests it lets through and why.
package main

import (
	"context"
	"fmt"
	"os"

	"github.com/aws/aws-lambda-go/lambda"
	"github.com/aws/aws-sdk-go-v2/aws"
	awsconfig "github.com/aws/aws-sdk-go-v2/config"
	"github.com/bookplatform/backend/shared/authorizer"
	"github.com/bookplatform/backend/shared/config"
	"github.com/bookplatform/backend/shared/secretsmgr"
)

func main() {
	cfg := authorizer.MustLoadConfig()
	logger := config.NewLogger(os.Stdout, os.Getenv(config.EnvLogLevel))
	keys, err := secretsmgr.LoadKeyring(context.Background(), cfg.JWTKeys, loadAWSConfig, logger)
	if err != nil {
		fmt.Fprintln(os.Stderr, "configuration error:", err)
		os.Exit(2)
	}
	lambda.Start(authorizer.New(keys, cfg.AccessTokenTTL, nil, logger).Handle)
}

// loadAWSConfig is the SDK's default configuration, loaded only when the
// keys are in Secrets Manager.
func loadAWSConfig(ctx context.Context) (aws.Config, error) {
	return awsconfig.LoadDefaultConfig(ctx)
}
