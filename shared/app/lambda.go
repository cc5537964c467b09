package app

import (
	"context"
	"fmt"
	"net/http"
	"os"

	"github.com/aws/aws-lambda-go/events"
	"github.com/aws/aws-lambda-go/lambda"
	"github.com/awslabs/aws-lambda-go-api-proxy/httpadapter"
	"github.com/bookplatform/backend/shared/api"
	"github.com/bookplatform/backend/shared/tracing"
	"github.com/bookplatform/backend/shared/worker"
)

// Start is the whole of a group's Lambda main: the app from the
// environment, built once per cold start outside the handler (warm
// invocations reuse the clients and their connections), then the group's
// handler: its router for API Gateway (the Fallback group's router also
// answers every other group's paths, see FallbackRouter), or, for a queue
// consumer, its worker. A bad configuration or an unknown group stops the
// process with a message.
func Start(group string) {
	a := MustFromEnv()
	g, ok := a.Group(group)
	if !ok {
		fmt.Fprintf(os.Stderr, "no group %q in shared/app/groups.go\n", group)
		os.Exit(2)
	}
	if w := g.Worker; w != nil {
		lambda.Start(traced(worker.Lambda(w.Handle, a.Stores.Idempotency, w.Queue, a.Now, a.Logger)))
		return
	}
	lambda.Start(HTTPHandler(a, g))
}

// traced continues the invocation's X-Ray trace in h: its spans (the
// route's, each AWS call's) hang under the function's segment.
func traced[E, R any](h func(context.Context, E) (R, error)) func(context.Context, E) (R, error) {
	return func(ctx context.Context, e E) (R, error) { return h(tracing.FromLambda(ctx), e) }
}

// HTTPHandler is the API Gateway (HTTP API, payload 2.0) handler of group
// g: its own routes, or for the Fallback group every group's paths with
// only its own handlers.
func HTTPHandler(a *App, g api.Group) func(context.Context, events.APIGatewayV2HTTPRequest) (events.APIGatewayV2HTTPResponse, error) {
	var h http.Handler = a.Router(g.Name)
	if g.Fallback {
		h = a.FallbackRouter()
	}
	h = frontDoor(a.Config.OriginVerifySecret, a.Logger, h)
	return traced(httpadapter.NewV2(h).ProxyWithContext)
}

// Group returns the named group, built on the app.
func (a *App) Group(name string) (api.Group, bool) {
	for _, g := range Groups(a.Deps()) {
		if g.Name == name {
			return g, true
		}
	}
	return api.Group{}, false
}

// MustFromEnv is FromEnv for a Lambda main: a bad configuration stops the
// process with a message naming the variables.
func MustFromEnv() *App {
	a, err := FromEnv(context.Background())
	if err != nil {
		fmt.Fprintln(os.Stderr, "configuration error:", err)
		os.Exit(2)
	}
	return a
}
