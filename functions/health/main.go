// Command health is the Lambda of the health group. It also serves API
// Gateway's $default route, so its router holds every group's route table:
// a request that matched no route at the gateway (unknown path, or a known
// path with a wrong method) gets the router's 404 or 405 in the error
// envelope instead of API Gateway's bare {"message":"Not Found"}. It runs
// only the health handler (app.FallbackRouter).
package main

import (
	"context"
	"fmt"
	"os"

	"github.com/aws/aws-lambda-go/events"
	"github.com/aws/aws-lambda-go/lambda"
	"github.com/awslabs/aws-lambda-go-api-proxy/httpadapter"
	"github.com/bookplatform/backend/shared/app"
)

func main() {
	a, err := app.FromEnv(context.Background())
	if err != nil {
		fmt.Fprintln(os.Stderr, "configuration error:", err)
		os.Exit(2)
	}
	lambda.Start(handler(a))
}

// handler knows every route but runs only health's, see the package comment.
func handler(a *app.App) func(context.Context, events.APIGatewayV2HTTPRequest) (events.APIGatewayV2HTTPResponse, error) {
	return httpadapter.NewV2(a.FallbackRouter()).ProxyWithContext
}
