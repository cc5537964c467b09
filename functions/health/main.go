// Command health is the Lambda of the health group. It also serves API
// Gateway's $default route, so its router holds every group's route table:
// a request that matched no route at the gateway (unknown path, or a known
// path with a wrong method) gets the router's 404 or 405 in the error
// envelope instead of API Gateway's bare {"message":"Not Found"}. It runs
// only the health handler (app.FallbackRouter).
package main

import (
	"context"

	"github.com/aws/aws-lambda-go/events"
	"github.com/aws/aws-lambda-go/lambda"
	"github.com/bookplatform/backend/shared/app"
)

func main() { lambda.Start(handler(app.MustFromEnv())) }

// handler knows every route but runs only health's, see the package comment.
func handler(a *app.App) func(context.Context, events.APIGatewayV2HTTPRequest) (events.APIGatewayV2HTTPResponse, error) {
	return app.LambdaHandler(a.FallbackRouter())
}
