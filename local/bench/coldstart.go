package main

import (
	"bytes"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strings"
	"time"

	"github.com/aws/aws-lambda-go/events"
	"github.com/bookplatform/backend/shared/config"
	"github.com/bookplatform/backend/shared/groups"
	"github.com/bookplatform/backend/shared/queues"
	"github.com/bookplatform/backend/shared/s3media"
	"github.com/bookplatform/backend/shared/tracing"
)

// coldStartTarget is the budget for exec → first answer posted.
const coldStartTarget = 50 * time.Millisecond

// runColdStart builds functions for the host and measures, per process,
// the time from exec to the first invocation's answer.
func runColdStart(w io.Writer, args []string) error {
	fs := flag.NewFlagSet("coldstart", flag.ExitOnError)
	fns := fs.String("fn", "", "comma-separated functions (default: every function of groups.Functions() with a directory under functions/)")
	n := fs.Int("n", 20, "cold starts per function")
	outDir := fs.String("bin", "bench-out/coldstart", "where the host binaries are built")
	_ = fs.Parse(args)

	list, err := coldStartFunctions(*fns)
	if err != nil {
		return err
	}
	section(w, fmt.Sprintf("2. Cold start of one function process, exec → first answer posted to a local Runtime API stand-in, %d runs each, target < 50 ms", *n),
		fmt.Sprintf("go run ./local/bench coldstart -n %d", *n))
	fmt.Fprintf(w, "   built for the host (%s/%s) with -tags lambda.norpc -trimpath -ldflags='-s -w'; event GET /health (authorizer: a Bearer token)\n", runtime.GOOS, runtime.GOARCH)
	fmt.Fprintf(w, "   auth and users serve no /health: their answer is the router's 404 envelope, equally backend-free\n")
	fmt.Fprintf(w, "   init = exec → first GET /next;  total = exec → POST /response;  one unrecorded run first warms the page cache\n")
	fmt.Fprintf(w, "   × minimal = p50 / p50 of local/bench/minimal (aws-lambda-go, the SDK's configuration, a DynamoDB client, one GetItem\n")
	fmt.Fprintf(w, "   answered on loopback), run once after each run of the function so both see the same load\n")
	fmt.Fprintf(w, "   %-11s %-22s %9s %9s %9s   %8s   %s\n", "function", "first answer", "min", "p50", "max", "init p50", "× minimal")

	yardstick := filepath.Join(*outDir, "minimal")
	if err := buildHost(yardstick, "./local/bench/minimal"); err != nil {
		return err
	}
	yardEvent, err := coldStartEvent(groups.Function{Name: "minimal"})
	if err != nil {
		return err
	}

	var slow []string
	var allYard []time.Duration
	for _, fn := range list {
		bin := filepath.Join(*outDir, fn.Name)
		progress("coldstart: building %s for the host", fn.Name)
		if err := buildHost(bin, "./functions/"+fn.Name); err != nil {
			return err
		}
		event, err := coldStartEvent(fn)
		if err != nil {
			return err
		}
		// Each run of the function is followed by one of the yardstick,
		// so both see the same load on the machine.
		var totals, inits, yard []time.Duration
		var status string
		for i := 0; i <= *n; i++ {
			res, err := coldStartOnce(bin, event, fmt.Sprintf("bench-%s-%d", fn.Name, i), false)
			if err != nil {
				return fmt.Errorf("%s run %d: %w", fn.Name, i, err)
			}
			ys, err := coldStartOnce(yardstick, yardEvent, fmt.Sprintf("bench-minimal-%s-%d", fn.Name, i), true)
			if err != nil {
				return fmt.Errorf("minimal run %d beside %s: %w", i, fn.Name, err)
			}
			if i == 0 {
				continue // warm-up: page cache, not the function
			}
			totals, inits, status = append(totals, res.total), append(inits, res.init), res.status
			yard = append(yard, ys.total)
		}
		allYard = append(allYard, yard...)
		t, in, y := sortedCopy(totals), sortedCopy(inits), sortedCopy(yard)
		p50 := percentile(t, 0.5)
		if p50 >= coldStartTarget {
			slow = append(slow, fn.Name)
		}
		fmt.Fprintf(w, "   %-11s %-22s %9s %9s %9s   %8s   %5.2fx\n", fn.Name, status, ms(t[0]), ms(p50), ms(t[len(t)-1]), ms(percentile(in, 0.5)),
			float64(p50)/float64(percentile(y, 0.5)))
	}
	if y := sortedCopy(allYard); len(y) > 0 {
		fmt.Fprintf(w, "   %-11s %-22s %9s %9s %9s   %8s   %5.2fx\n", "(minimal)", "HTTP 200 after GetItem", ms(y[0]), ms(percentile(y, 0.5)), ms(y[len(y)-1]), "", 1.0)
	}
	if len(slow) > 0 {
		return fmt.Errorf("cold start p50 over %s: %s", coldStartTarget, strings.Join(slow, ", "))
	}
	return nil
}

// buildHost builds the package at pkg for the host, as the bench
// measures it: the Lambda build's tags and flags.
func buildHost(bin, pkg string) error {
	build := exec.Command("go", "build", "-tags", "lambda.norpc", "-trimpath", "-ldflags=-s -w", "-o", bin, pkg)
	build.Env = append(os.Environ(), "CGO_ENABLED=0")
	if out, err := build.CombinedOutput(); err != nil {
		return fmt.Errorf("build %s: %v\n%s", pkg, err, out)
	}
	return nil
}

// coldStartFunctions picks the functions to measure: every function the
// CDK stack deploys that a request waits for, so a new one is measured
// without editing this file. The key rotation function is left out: it
// runs a few times a month, called by Secrets Manager, and no client
// waits for it; so are scheduled jobs (the monthly pool).
func coldStartFunctions(names string) ([]groups.Function, error) {
	var all []groups.Function
	for _, f := range groups.Functions() {
		if !f.KeyRotation && f.Schedule == "" {
			all = append(all, f)
		}
	}
	if names == "" {
		var out []groups.Function
		for _, f := range all {
			if _, err := os.Stat(filepath.Join("functions", f.Name, "main.go")); err == nil {
				out = append(out, f)
			}
		}
		if len(out) == 0 {
			return nil, errors.New("no functions/<name>/main.go found for groups.Functions()")
		}
		return out, nil
	}
	var out []groups.Function
	for _, name := range strings.Split(names, ",") {
		found := false
		for _, f := range all {
			if f.Name == strings.TrimSpace(name) {
				out, found = append(out, f), true
			}
		}
		if !found {
			return nil, fmt.Errorf("unknown function %q", name)
		}
	}
	return out, nil
}

// coldStartEvent is the first invocation's payload. GET /health touches no
// backend, so the figure is the process's own start, not DynamoDB's; a
// group that does not serve /health answers with the router's 404
// envelope, which is also backend-free.
func coldStartEvent(fn groups.Function) ([]byte, error) {
	rc := events.APIGatewayV2HTTPRequestContext{
		AccountID: "123456789012", APIID: "bench", Stage: "$default", RequestID: "bench",
		DomainName: "bench.execute-api.eu-west-1.amazonaws.com",
		HTTP: events.APIGatewayV2HTTPRequestContextHTTPDescription{
			Method: "GET", Path: "/health", Protocol: "HTTP/1.1", SourceIP: "203.0.113.10", UserAgent: "bench",
		},
		TimeEpoch: time.Now().UnixMilli(),
	}
	if fn.Authorizer {
		rc.HTTP.Path, rc.RouteKey = "/v1/users/me", "GET /v1/users/me"
		return json.Marshal(events.APIGatewayV2CustomAuthorizerV2Request{
			Version: "2.0", Type: "REQUEST",
			RouteArn:       "arn:aws:execute-api:eu-west-1:123456789012:bench/$default/GET/v1/users/me",
			IdentitySource: []string{"Bearer not.a.token"},
			RouteKey:       "GET /v1/users/me", RawPath: "/v1/users/me",
			Headers:        map[string]string{"authorization": "Bearer not.a.token"},
			RequestContext: rc,
		})
	}
	rc.RouteKey = "GET /health"
	return json.Marshal(events.APIGatewayV2HTTPRequest{
		Version: "2.0", RouteKey: "GET /health", RawPath: "/health",
		Headers:        map[string]string{"accept": "application/json", "host": rc.DomainName},
		RequestContext: rc,
	})
}

type coldStart struct {
	init, total time.Duration
	status      string
}

// coldStartOnce runs one fresh process through one invocation. With
// dynamo, the process's DynamoDB endpoint is the stand-in of the runtime
// API's server (the yardstick's GetItem); without, a closed port.
func coldStartOnce(bin string, event []byte, requestID string, dynamo bool) (coldStart, error) {
	api, err := startRuntimeAPI(event, requestID)
	if err != nil {
		return coldStart{}, err
	}
	defer api.close()

	var output bytes.Buffer
	cmd := exec.Command(bin)
	cmd.Env = lambdaEnv(api.addr)
	if dynamo {
		cmd.Env = append(cmd.Env, "AWS_ENDPOINT_URL_DYNAMODB=http://"+api.addr+dynamoPrefix) // the last value wins
	}
	cmd.Stdout, cmd.Stderr = &output, &output
	exited := make(chan error, 1)

	start := time.Now()
	if err := cmd.Start(); err != nil {
		return coldStart{}, err
	}
	go func() { exited <- cmd.Wait() }()
	stop := func() {
		_ = cmd.Process.Kill()
		<-exited
	}

	select {
	case r := <-api.result:
		stop()
		if r.isError {
			return coldStart{}, fmt.Errorf("function reported an error: %s\n%s", r.body, output.String())
		}
		return coldStart{init: api.initDoneAt().Sub(start), total: r.at.Sub(start), status: responseStatus(r.body)}, nil
	case err := <-exited:
		return coldStart{}, fmt.Errorf("function exited before answering (%v):\n%s", err, output.String())
	case <-time.After(10 * time.Second):
		stop()
		return coldStart{}, fmt.Errorf("no answer within 10s:\n%s", output.String())
	}
}

// lambdaEnv is the environment Lambda gives a function, with the
// configuration our stack sets. It is built from scratch so that nothing
// from the developer's shell (AWS_PROFILE, ~/.aws) changes what the SDK
// does at start. DynamoDB points at a closed loopback port: the measured
// request never reaches it, and a mistake shows up as an error, not as a
// call to a real account.
func lambdaEnv(runtimeAddr string) []string {
	tmp := os.TempDir()
	// Every queue's and dead-letter queue's URL, at the closed SQS port:
	// a worker (webhookdelivery reads its own queue's and its dead-letter
	// queue's) refuses to start without them, as the stack gives them.
	var queueURLs []string
	for _, q := range queues.All {
		for _, n := range []queues.Name{q, q.DLQ()} {
			queueURLs = append(queueURLs, n.URLEnv()+"=http://127.0.0.1:9/000000000000/bench-"+string(n))
		}
	}
	return append(queueURLs,
		"AWS_LAMBDA_RUNTIME_API="+runtimeAddr,
		"AWS_LAMBDA_FUNCTION_NAME=bench",
		"AWS_LAMBDA_FUNCTION_MEMORY_SIZE=512",
		"AWS_LAMBDA_FUNCTION_VERSION=$LATEST",
		"AWS_REGION=eu-west-1",
		"AWS_DEFAULT_REGION=eu-west-1",
		"AWS_ACCESS_KEY_ID=AKIDBENCH",
		"AWS_SECRET_ACCESS_KEY=bench-secret",
		"AWS_SESSION_TOKEN=bench-session",
		"AWS_CONFIG_FILE="+filepath.Join(tmp, "bench-no-aws-config"),
		"AWS_SHARED_CREDENTIALS_FILE="+filepath.Join(tmp, "bench-no-aws-credentials"),
		"AWS_EC2_METADATA_DISABLED=true",
		"AWS_ENDPOINT_URL_DYNAMODB=http://127.0.0.1:9",
		"AWS_ENDPOINT_URL_S3=http://127.0.0.1:9",
		"AWS_ENDPOINT_URL_SQS=http://127.0.0.1:9",
		// A kept trace (shared/tracing: a failure, a slow request, the
		// sampled share) goes to a closed loopback port, like DynamoDB's
		// calls; the measured request is neither, and its spans stay in
		// memory as in AWS.
		tracing.EnvEndpoint+"=http://127.0.0.1:9",
		"TZ=:UTC",
		config.EnvTableName+"=bench-table",
		s3media.EnvBucket+"=bench-media",
		s3media.EnvBaseURL+"=https://media.example.com",
		config.EnvJWTSecret+"=bench-jwt-secret-0123456789abcdef0123456789",
		config.EnvLogLevel+"=info",
	)
}
