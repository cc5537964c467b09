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
	"github.com/bookplatform/backend/shared/relay"
	"github.com/bookplatform/backend/shared/tracing"
	"github.com/bookplatform/backend/shared/worker"
)

// Start is the whole of a group's Lambda main, given the group's
// constructor (app.Start(clubsapi.Group)): naming the constructor rather
// than the group is what keeps every other group out of the function's
// binary. The app comes from the environment, built once per cold start
// outside the handler (warm invocations reuse the clients and their
// connections), then the group's handler: its router for API Gateway
// (the Fallback group's router also answers every other group's paths,
// see FallbackRouter), or, for a queue consumer, its worker. A bad
// configuration stops the process with a message.
func Start(build api.Build) {
	a, g := MustFromEnv(build)
	if w := g.Worker; w != nil {
		lambda.Start(traced("worker "+string(w.Queue), worker.Lambda(w.Handle, a.idempotency, w.Queue, a.Now, a.Logger)))
		return
	}
	lambda.Start(HTTPHandler(a, g))
}

// StartRelay is the whole of the relay function's main: the app from the
// environment, then the relay (every registered consumer,
// registry.Consumers, which functions/relay passes) as the handler of the table stream's event source,
// with partial batch responses. The relay verifies no token: like a
// Keyless group it starts without the signing keys (the stack neither
// names nor grants them to it).
func StartRelay(consumers func(api.Deps) []relay.Consumer) {
	a, err := fromEnv(context.Background())
	if err != nil {
		fmt.Fprintln(os.Stderr, "configuration error:", err)
		os.Exit(2)
	}
	cs := consumers(a.Deps())
	if err := a.SettingsErr(); err != nil { // a consumer's own settings (a queue's URL)
		fmt.Fprintln(os.Stderr, "configuration error:", err)
		os.Exit(2)
	}
	lambda.Start(traced("relay", a.Relay(cs...).Handle))
}

// StartJob is the whole of a scheduled job's main (functions/poolpayouts):
// the app from the environment, then the handler job makes of it, as a
// plain Lambda handler of the job's event. A job verifies no token: like
// the relay it starts without the signing keys.
func StartJob[E, R any](job func(a *App) func(context.Context, E) (R, error)) {
	a, err := fromEnv(context.Background())
	if err != nil {
		fmt.Fprintln(os.Stderr, "configuration error:", err)
		os.Exit(2)
	}
	lambda.Start(traced("job", job(a)))
}

// traced makes each invocation of h (a queue's batch, the table stream's,
// a scheduled job) the root span of its own trace, named name, which is
// kept when the invocation failed: an error, or records given back for
// another attempt (a partial batch response). An HTTP function's trace
// is the router's (httpapi.Router.ServeHTTP).
func traced[E, R any](name string, h func(context.Context, E) (R, error)) func(context.Context, E) (R, error) {
	return func(ctx context.Context, e E) (r R, err error) {
		ctx, span := tracing.Start(ctx, name)
		defer func() {
			// A panic ends the process (aws-lambda-go reports it and
			// exits): its trace is kept and sent first, then it goes on.
			if p := recover(); p != nil {
				tracing.EndInvocation(ctx, span, true)
				panic(p)
			}
			tracing.EndInvocation(ctx, span, err != nil || batchFailures(r) > 0)
		}()
		return h(ctx, e)
	}
}

// batchFailures counts the records a partial batch response gives back.
func batchFailures(r any) int {
	switch r := r.(type) {
	case events.SQSEventResponse:
		return len(r.BatchItemFailures)
	case events.DynamoDBEventResponse:
		return len(r.BatchItemFailures)
	}
	return 0
}

// HTTPHandler is the API Gateway (HTTP API, payload 2.0) handler of group
// g: its own routes, or for the Fallback group every group's paths with
// only its own handlers.
func HTTPHandler(a *App, g api.Group) func(context.Context, events.APIGatewayV2HTTPRequest) (events.APIGatewayV2HTTPResponse, error) {
	var h http.Handler = a.Router(g)
	if g.Fallback {
		h = a.FallbackRouter(g)
	}
	secrets := a.OriginSecrets
	if v := a.Config.OriginVerifySecret; secrets == nil && v != "" {
		secrets = func() []string { return []string{v} }
	}
	h = frontDoor(secrets, a.Logger, h)
	return httpadapter.NewV2(h).ProxyWithContext
}

// MustFromEnv is FromEnv for a Lambda main: a bad configuration stops the
// process with a message naming the variables.
func MustFromEnv(build api.Build) (*App, api.Group) {
	a, g, err := FromEnv(context.Background(), build)
	if err != nil {
		fmt.Fprintln(os.Stderr, "configuration error:", err)
		os.Exit(2)
	}
	return a, g
}
