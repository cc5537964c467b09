// Command auth is the Lambda of the auth group: guest accounts, sign-up, login, token refresh, guest migration and logout.
// It is only wiring; the handlers live in shared/ and run unchanged locally.
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
	// Built once per cold start, outside the handler, so warm invocations
	// reuse the clients and their connections.
	a, err := app.FromEnv(context.Background())
	if err != nil {
		fmt.Fprintln(os.Stderr, "configuration error:", err)
		os.Exit(2)
	}
	lambda.Start(handler(a))
}

// handler serves only this group's routes: API Gateway sends nothing else here.
func handler(a *app.App) func(context.Context, events.APIGatewayV2HTTPRequest) (events.APIGatewayV2HTTPResponse, error) {
	return httpadapter.NewV2(a.Router("auth")).ProxyWithContext
}
