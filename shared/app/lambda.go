package app

import (
	"context"
	"fmt"
	"net/http"
	"os"

	"github.com/aws/aws-lambda-go/events"
	"github.com/awslabs/aws-lambda-go-api-proxy/httpadapter"
)

// MustFromEnv is FromEnv for a Lambda main: built once per cold start,
// outside the handler, so warm invocations reuse the clients and their
// connections. A bad configuration stops the process with a message
// naming the variables.
func MustFromEnv() *App {
	a, err := FromEnv(context.Background())
	if err != nil {
		fmt.Fprintln(os.Stderr, "configuration error:", err)
		os.Exit(2)
	}
	return a
}

// LambdaHandler adapts a router to API Gateway HTTP API (payload 2.0) events.
func LambdaHandler(h http.Handler) func(context.Context, events.APIGatewayV2HTTPRequest) (events.APIGatewayV2HTTPResponse, error) {
	return httpadapter.NewV2(h).ProxyWithContext
}
