// Command reviews is the Lambda of the reviews group: reviews, their likes,
// and the review lists of a book and of a reader.
// It is only wiring; the handlers live in shared/ and run unchanged locally.
package main

import (
	"context"

	"github.com/aws/aws-lambda-go/events"
	"github.com/aws/aws-lambda-go/lambda"
	"github.com/bookplatform/backend/shared/app"
)

func main() { lambda.Start(handler(app.MustFromEnv())) }

// handler serves only this group's routes: API Gateway sends nothing else here.
func handler(a *app.App) func(context.Context, events.APIGatewayV2HTTPRequest) (events.APIGatewayV2HTTPResponse, error) {
	return app.LambdaHandler(a.Router("reviews"))
}
