// Command local runs the whole service on one machine (`make run`): every
// endpoint group on 127.0.0.1:$PORT, the very handlers the Lambdas run,
// over local stand-ins for AWS:
//
//   - DynamoDB: DynamoDB Local (a JVM), data kept in .local/dynamodb;
//   - S3: gofakes3 in process, data kept in .local/s3/s3.db;
//   - SQS: goaws in process, in memory (messages do not survive a restart),
//     with every queue of shared/queues and its dead-letter queue; each
//     worker group consumes its queue through a poller (worker.Poll)
//     running the handler its Lambda runs.
//
// Each stand-in listens on its own free loopback port, and the process sets
// AWS_ENDPOINT_URL_DYNAMODB/_S3/_SQS, the QUEUE_URL_* variables and dummy
// credentials, so the app builds its clients exactly as in Lambda
// (app.LoadClients). The table is created from the same schema CDK
// deploys, demo accounts are added if missing, and the demo catalog
// (local/data/catalog.jsonl) is imported.
// /media/{key} serves uploaded images, standing in for the CDN. The
// endpoints are written to .local/run.json while the run lasts, for
// `go run ./local/importbooks`.
//
// Every setting can be overridden through the service's environment
// variables (shared/config); the defaults below apply only to unset ones.
// `make reset` deletes .local to start again from demo data.
package main

import (
	"context"
	"errors"
	"fmt"
	"net"
	"net/http"
	"os"
	"os/signal"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"time"

	awsconfig "github.com/aws/aws-sdk-go-v2/config"
	"github.com/bookplatform/backend/local/devserver"
	"github.com/bookplatform/backend/local/dynamodblocal"
	"github.com/bookplatform/backend/local/runinfo"
	"github.com/bookplatform/backend/shared/app"
	"github.com/bookplatform/backend/shared/config"
	"github.com/bookplatform/backend/shared/dynamo"
	"github.com/bookplatform/backend/shared/queues"
)

// Defaults of the local run, applied only to unset variables.
const (
	defaultTableName = "bookplatform-local"
	defaultBucket    = "bookplatform-media-local"
	// Not a secret: it signs tokens of a server that only listens on loopback.
	defaultJWTSecret = "local-development-jwt-secret-not-for-production"
)

func main() {
	if err := run(); err != nil {
		fmt.Fprintln(os.Stderr, "local:", err)
		os.Exit(1)
	}
}

func run() error {
	root, err := dynamodblocal.ModuleRoot("")
	if err != nil {
		return err
	}
	dataDir := os.Getenv(config.EnvLocalDataDir)
	if dataDir == "" {
		dataDir = filepath.Join(root, ".local")
	}

	port := strings.TrimSpace(os.Getenv(config.EnvPort))
	if port == "" {
		port = strconv.Itoa(config.DefaultPort)
	}
	baseURL := "http://127.0.0.1:" + port
	setDefault(config.EnvTableName, defaultTableName)
	setDefault(config.EnvMediaBucket, defaultBucket)
	setDefault(config.EnvMediaBaseURL, baseURL+strings.TrimSuffix(devserver.MediaPrefix, "/"))
	setDefault(config.EnvJWTSecret, defaultJWTSecret)
	cfg, err := config.Load()
	if err != nil {
		return fmt.Errorf("configuration: %w", err)
	}

	// Take the port first: if it is busy, say so before starting a JVM.
	ln, err := net.Listen("tcp", "127.0.0.1:"+strconv.Itoa(cfg.Port))
	if err != nil {
		return fmt.Errorf("listen on %s (set PORT to use another port): %w", baseURL, err)
	}
	defer ln.Close()

	ctx, stopSignals := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM, syscall.SIGHUP)
	defer stopSignals()

	// Started parts, stopped in reverse order on the way out.
	var stops []func(context.Context) error
	defer func() {
		ctx, cancel := context.WithTimeout(context.Background(), 15*time.Second)
		defer cancel()
		for i := len(stops) - 1; i >= 0; i-- {
			if err := stops[i](ctx); err != nil {
				fmt.Fprintln(os.Stderr, "local: stop:", err)
			}
		}
	}()

	ddb, err := dynamodblocal.Start(ctx, dynamodblocal.Options{DBPath: filepath.Join(dataDir, "dynamodb")})
	if ctx.Err() != nil {
		return nil // Ctrl-C while the JVM started
	}
	if err != nil {
		return err
	}
	stops = append(stops, func(context.Context) error { return ddb.Stop() })

	s3URL, stopS3, err := startS3(filepath.Join(dataDir, "s3"), cfg.MediaBucket)
	if err != nil {
		return fmt.Errorf("S3 stand-in: %w", err)
	}
	stops = append(stops, stopS3)

	sqsURL, stopSQS, err := startSQS()
	if err != nil {
		return fmt.Errorf("SQS stand-in: %w", err)
	}
	stops = append(stops, stopSQS)

	// The endpoints are forced (this process started them); the dummy
	// credentials too, so a developer's real AWS credentials are never
	// used to sign requests of the local run.
	setAll(map[string]string{
		"AWS_ENDPOINT_URL_DYNAMODB": ddb.Endpoint,
		"AWS_ENDPOINT_URL_S3":       s3URL,
		"AWS_ENDPOINT_URL_SQS":      sqsURL,
		"AWS_ACCESS_KEY_ID":         "local",
		"AWS_SECRET_ACCESS_KEY":     "local",
		"AWS_SESSION_TOKEN":         "",
		"AWS_PROFILE":               "",
		// gofakes3 cannot verify the trailing checksums the SDK would
		// otherwise add to streamed uploads.
		"AWS_REQUEST_CHECKSUM_CALCULATION": "when_required",
		"AWS_RESPONSE_CHECKSUM_VALIDATION": "when_required",
	})
	setDefault("AWS_REGION", "us-east-1")

	// The queues first: their QUEUE_URL_* variables are part of the
	// environment the app is built from, as in Lambda.
	awsCfg, err := awsconfig.LoadDefaultConfig(ctx)
	if err != nil {
		return err
	}
	sqsClient := queues.NewClient(awsCfg)
	queueURLs, err := createQueues(ctx, sqsClient, queues.All)
	if err != nil {
		return err
	}
	setAll(queueURLEnv(queueURLs, queues.All))

	clients, err := app.LoadClients(ctx)
	if err != nil {
		return err
	}
	a := app.New(cfg, clients, nil, nil)

	if err := dynamo.Table.EnsureTable(ctx, a.DB, cfg.TableName); err != nil {
		return err
	}
	if err := seedDemo(ctx, a); err != nil {
		return err
	}
	if err := loadDemoCatalog(ctx, a, root, os.Stderr); err != nil {
		if ctx.Err() != nil {
			return nil // Ctrl-C during the first load
		}
		return err
	}

	// The worker groups consume the local queues as their Lambdas do.
	stopWorkers, err := startWorkers(sqsClient, queueURLs, app.Groups(a.Deps()), a)
	if err != nil {
		return err
	}
	stops = append(stops, stopWorkers)

	srv := &http.Server{Handler: devserver.Handler(a), ReadHeaderTimeout: 10 * time.Second}
	serveErr := make(chan error, 1)
	go func() { serveErr <- srv.Serve(ln) }()
	stops = append(stops, srv.Shutdown)

	// Tools started beside this run (local/importbooks) find its
	// endpoints here; the file goes when the run stops.
	if err := runinfo.Write(dataDir, runinfo.Info{
		PID: os.Getpid(), API: baseURL, DynamoDB: ddb.Endpoint, S3: s3URL, SQS: sqsURL,
		Table: cfg.TableName, MediaBucket: cfg.MediaBucket, MediaBaseURL: cfg.MediaBaseURL,
	}); err != nil {
		return err
	}
	stops = append(stops, func(context.Context) error { return runinfo.Remove(dataDir) })

	a.Logger.Info("local stack ready", "api", baseURL, "dynamodb", ddb.Endpoint, "s3", s3URL, "sqs", sqsURL,
		"table", cfg.TableName, "bucket", cfg.MediaBucket, "queues", queueURLs, "data", dataDir)
	var accounts []string
	for _, d := range demoAccounts {
		accounts = append(accounts, fmt.Sprintf("%s (%s)", d.Email, d.Tier))
	}
	fmt.Fprintf(os.Stderr, "Book platform API on %s (data in %s) - demo accounts %s, password %q - Ctrl-C stops\n",
		baseURL, dataDir, strings.Join(accounts, ", "), DemoPassword)

	select {
	case <-ctx.Done():
		// A second Ctrl-C now ends the process at once; the kernel still
		// kills the JVM with it.
		stopSignals()
		fmt.Fprintln(os.Stderr, "local: shutting down")
		return nil
	case err := <-serveErr:
		return fmt.Errorf("HTTP server: %w", err)
	case <-ddb.Done():
		return errors.New("DynamoDB Local exited unexpectedly:\n" + ddb.Output())
	}
}

// setDefault sets an environment variable that is unset or empty.
func setDefault(name, value string) {
	if strings.TrimSpace(os.Getenv(name)) == "" {
		_ = os.Setenv(name, value)
	}
}

// setAll sets variables; an empty value unsets one.
func setAll(vars map[string]string) {
	for k, v := range vars {
		if v == "" {
			_ = os.Unsetenv(k)
		} else {
			_ = os.Setenv(k, v)
		}
	}
}
