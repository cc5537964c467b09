package main

import (
	"context"
	"encoding/json"
	"io"
	"log/slog"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/aws/aws-lambda-go/events"
	"github.com/aws/aws-lambda-go/lambda"
	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/credentials"
	"github.com/bookplatform/backend/shared/api/healthapi"
	"github.com/bookplatform/backend/shared/app"
	"github.com/bookplatform/backend/shared/config"
	"github.com/bookplatform/backend/shared/httpapi"
)

var clock = time.Date(2026, 3, 1, 12, 0, 0, 0, time.UTC)

// newApp wires the real app with dummy names and credentials: none of the
// requests below reaches DynamoDB or S3, so nothing is called.
func newApp(t *testing.T) *app.App {
	t.Helper()
	cfg := config.Config{
		TableName:       "test-table",
		JWTKeys:         config.JWTKeys{JWTSecret: []byte("0123456789abcdef0123456789abcdef")},
		AccessTokenTTL:  config.DefaultAccessTokenTTL,
		RefreshTokenTTL: config.DefaultRefreshTokenTTL,
		BcryptCost:      4,
		MaxBodyBytes:    config.DefaultMaxBodyBytes,
		LogLevel:        "error",
		UpgradeURL:      config.DefaultUpgradeURL,
	}
	awsCfg := aws.Config{
		Region:      "eu-west-1",
		Credentials: credentials.NewStaticCredentialsProvider("AKIDTEST", "test-secret", ""),
	}
	logger := slog.New(slog.NewJSONHandler(io.Discard, nil))
	return app.New(cfg, app.NewClients(awsCfg), logger, func() time.Time { return clock })
}

// invoke drives the function through the Lambda entry point with an event
// file, as the runtime would, and decodes the response.
func invoke(t *testing.T, a *app.App, event string) events.APIGatewayV2HTTPResponse {
	t.Helper()
	payload, err := os.ReadFile(filepath.Join("..", "..", "events", event))
	if err != nil {
		t.Fatal(err)
	}
	out, err := lambda.NewHandler(handler(t, a)).Invoke(context.Background(), payload)
	if err != nil {
		t.Fatalf("invoke %s: %v", event, err)
	}
	var resp events.APIGatewayV2HTTPResponse
	if err := json.Unmarshal(out, &resp); err != nil {
		t.Fatalf("decode response %s: %v", out, err)
	}
	return resp
}

func TestHealth_Lambda(t *testing.T) {
	a := newApp(t)

	t.Run("health_is_200", func(t *testing.T) {
		resp := invoke(t, a, "health.json")
		if resp.StatusCode != 200 {
			t.Fatalf("status = %d, want 200; body %s", resp.StatusCode, resp.Body)
		}
		var body struct{ Status, Timestamp string }
		if err := json.Unmarshal([]byte(resp.Body), &body); err != nil {
			t.Fatalf("body %q: %v", resp.Body, err)
		}
		if body.Status != "ok" || body.Timestamp != "2026-03-01T12:00:00Z" {
			t.Errorf("body = %+v", body)
		}
		if ct := resp.Headers["Content-Type"]; !strings.HasPrefix(ct, "application/json") {
			t.Errorf("Content-Type = %q", ct)
		}
	})

	t.Run("unknown_route_is_404_envelope", func(t *testing.T) {
		resp := invoke(t, a, "unknown-route.json")
		body := envelope(t, resp, 404)
		if body.Error.Code != "NOT_FOUND" || body.Error.Name != "NotFound" || body.Error.Message != `No route for GET "/v1/no-such-thing"` {
			t.Errorf("error = %+v", body.Error)
		}
	})

	t.Run("wrong_method_is_405_envelope", func(t *testing.T) {
		// A path of another group: only a router over every group's
		// table knows that the path exists with other methods.
		resp := invoke(t, a, "wrong-method.json")
		body := envelope(t, resp, 405)
		if body.Error.Code != "METHOD_NOT_ALLOWED" || body.Error.Name != "MethodNotAllowed" {
			t.Errorf("error = %+v", body.Error)
		}
		if allow := resp.Headers["Allow"]; allow != "GET, HEAD, PUT" {
			t.Errorf("Allow = %q, want %q", allow, "GET, HEAD, PUT")
		}
	})
}

// Another group's route reaching $default (the gateway did not route it,
// say for a path variant) is answered here, never run without that
// group's permissions.
func TestHealth_FallbackRunsNoOtherGroup(t *testing.T) {
	a := newApp(t)
	payload, err := os.ReadFile(filepath.Join("..", "..", "events", "health.json"))
	if err != nil {
		t.Fatal(err)
	}
	var ev events.APIGatewayV2HTTPRequest
	if err := json.Unmarshal(payload, &ev); err != nil {
		t.Fatal(err)
	}
	ev.RouteKey, ev.RawPath = "$default", "/v1/auth/signup"
	ev.RequestContext.HTTP.Method, ev.RequestContext.HTTP.Path = "POST", "/v1/auth/signup"
	ev.Body = `{"username":"someone","email":"s@example.com","password":"long-enough-pw"}`
	resp, err := handler(t, a)(context.Background(), ev)
	if err != nil {
		t.Fatal(err)
	}
	body := envelope(t, resp, 404)
	if body.Error.Code != "NOT_FOUND" {
		t.Errorf("error = %+v", body.Error)
	}
}

func envelope(t *testing.T, resp events.APIGatewayV2HTTPResponse, status int) httpapi.ErrorBody {
	t.Helper()
	if resp.StatusCode != status {
		t.Fatalf("status = %d, want %d; body %s", resp.StatusCode, status, resp.Body)
	}
	var body httpapi.ErrorBody
	if err := json.Unmarshal([]byte(resp.Body), &body); err != nil {
		t.Fatalf("body %q: %v", resp.Body, err)
	}
	if body.Error.RequestID == "" || body.Error.RequestID != resp.Headers["X-Request-Id"] {
		t.Errorf("requestId %q does not match X-Request-Id %q", body.Error.RequestID, resp.Headers["X-Request-Id"])
	}
	return body
}

// handler is what app.Start(healthapi.Group) serves: the health group's
// HTTP handler, which is the Fallback router.
func handler(t *testing.T, a *app.App) func(context.Context, events.APIGatewayV2HTTPRequest) (events.APIGatewayV2HTTPResponse, error) {
	t.Helper()
	g := healthapi.Group(a.Deps())
	if !g.Fallback {
		t.Fatal("the health group serves API Gateway's $default route")
	}
	return app.HTTPHandler(a, g)
}

// The function's group reaches the access log through the Lambda
// handler, so its metrics dimension names the function; Lambda's own
// trace header (its tracing is off: shared/tracing samples traces) is
// not a trace the line may name.
func TestHealth_AccessLogNamesGroup(t *testing.T) {
	var logs strings.Builder
	a := newApp(t)
	a.Logger = slog.New(slog.NewJSONHandler(&logs, nil))
	payload, err := os.ReadFile(filepath.Join("..", "..", "events", "health.json"))
	if err != nil {
		t.Fatal(err)
	}
	//nolint:staticcheck // aws-lambda-go's key is a plain string.
	ctx := context.WithValue(context.Background(), "x-amzn-trace-id", "Root=1-5759e988-bd862e3fe1be46a994272793;Parent=53995c3f42cd8ad8;Sampled=1")
	if _, err := lambda.NewHandler(handler(t, a)).Invoke(ctx, payload); err != nil {
		t.Fatal(err)
	}
	var line struct{ Msg, TraceID, Group, Route, StatusClass string }
	for _, l := range strings.Split(strings.TrimSpace(logs.String()), "\n") {
		if err := json.Unmarshal([]byte(l), &line); err == nil && line.Msg == "request" {
			break
		}
	}
	if line.TraceID != "" || line.Group != "health" || line.Route != "GET /health" || line.StatusClass != "2xx" {
		t.Errorf("access log = %+v, want no trace id, group health, route GET /health, 2xx", line)
	}
}

// Behind the WAF front door (ORIGIN_VERIFY_SECRET set) the function
// answers only what CloudFront forwarded: the event API Gateway sends
// for a direct call is 403, the same event with CloudFront's header is
// served.
func TestHealth_FrontDoor(t *testing.T) {
	a := newApp(t)
	a.Config.OriginVerifySecret = "origin-secret-0123456789abcdef0123456789"
	payload, err := os.ReadFile(filepath.Join("..", "..", "events", "health.json"))
	if err != nil {
		t.Fatal(err)
	}
	var ev events.APIGatewayV2HTTPRequest
	if err := json.Unmarshal(payload, &ev); err != nil {
		t.Fatal(err)
	}
	resp, err := handler(t, a)(context.Background(), ev)
	if err != nil {
		t.Fatal(err)
	}
	if body := envelope(t, resp, 403); body.Error.Message != app.MsgNotThroughFrontDoor {
		t.Errorf("error = %+v", body.Error)
	}
	ev.Headers["x-origin-verify"] = a.Config.OriginVerifySecret
	ev.Headers["x-forwarded-for"] = "203.0.113.7, 130.176.0.10"
	resp, err = handler(t, a)(context.Background(), ev)
	if err != nil || resp.StatusCode != 200 {
		t.Fatalf("through the door: %d %s %v", resp.StatusCode, resp.Body, err)
	}
}
