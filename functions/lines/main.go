// Command lines is the Lambda of the lines group: lines, their likes and
// replies, and the lists of a book's and an author's lines.
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
	return app.LambdaHandler(a.Router("lines"))
}
