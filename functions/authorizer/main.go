// Command authorizer is the API Gateway Lambda authorizer (simple
// responses) of the Bearer routes. It reads only the token settings
// (JWT_SECRET, ACCESS_TOKEN_TTL) and touches no table or bucket, so it gets
// neither their names nor any grant, and does not link the app's AWS
// clients. shared/authorizer explains which requests it lets through and why.
package main

import (
	"log/slog"
	"os"

	"github.com/aws/aws-lambda-go/lambda"
	"github.com/bookplatform/backend/shared/authorizer"
	"github.com/bookplatform/backend/shared/config"
)

func main() {
	cfg := authorizer.MustLoadConfig()
	var level slog.Level // info when LOG_LEVEL is unset or unknown, as in the HTTP functions
	_ = level.UnmarshalText([]byte(os.Getenv(config.EnvLogLevel)))
	logger := slog.New(slog.NewJSONHandler(os.Stdout, &slog.HandlerOptions{Level: level}))
	lambda.Start(authorizer.New(cfg, nil, logger).Handle)
}
