// Command local runs the whole service on one machine (`make run`): every
// endpoint group on 127.0.0.1:$PORT, the very handlers the Lambdas run,
// over local stand-ins for AWS:
//
//   - DynamoDB: DynamoDB Local (a JVM), data kept in .local/dynamodb;
//   - S3: gofakes3 in process, data kept in .local/s3/s3.db;
//   - SQS: goaws in process, in memory (messages do not survive a restart),
//     with every queue of shared/queues and its dead-letter queue; each
//     worker group consumes its queue through a poller (sqspoll.Poll)
//     running the handler its Lambda runs;
//   - CloudFront (custom domains' tenants): local/cdnlocal in process, over
//     a DNS stand-in (local/dnslocal) whose records a developer sets at
//     /_local/dns/{host}, so a custom domain can be walked from PENDING to
//     ACTIVE (README, "Custom domains locally"); in memory;
//   - the external point-of-sale system: local/squarelocal, a Square
//     stand-in in process (in memory: connect again after a restart),
//     unless EXTPOS_BASE_URL names another;
//   - the payment provider: local/stripelocal, a Stripe stand-in in
//     process (in memory), unless STRIPE_API_BASE or STRIPE_API_KEY names
//     another (Stripe's test mode); it sends its webhooks to this API's
//     /v1/payments/webhook, and its /_local/ endpoints complete a 3-D
//     Secure payment or expire one (README, "Payments locally");
//   - email (Amazon SES): local/maillocal, an SES stand-in in process (in
//     memory), which records every message sent and shows them at
//     /_local/mail on the API's port (README, "Email locally"); SES's
//     mailbox simulator addresses bounce and complain as in SES.
//
// Each stand-in listens on its own free loopback port, and the process sets
// AWS_ENDPOINT_URL_DYNAMODB/_S3/_SQS/_SESV2, the QUEUE_URL_* variables and dummy
// credentials, so the app builds its clients exactly as in Lambda
// (app.LoadClients). The table is created from the same schema CDK
// deploys, demo accounts are added if missing, the demo catalog
// (local/data/catalog.jsonl) is imported, and the demo stores get the
// stock they lack.
// /media/{key} serves uploaded images, standing in for the CDN. The
// endpoints are written to .local/run.json while the run lasts, for
// `go run ./local/importbooks`.
//
// The port answers from the first moment: until the stack is ready, every
// request gets 503 in the error envelope naming the start-up stage
// (devserver.Front), and the demo catalog's progress is printed. The
// server has the limits API Gateway gives the API in AWS (a request
// deadline, a header size limit) and connection timeouts; the LOCAL_*
// variables below change them.
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
	"os"
	"os/signal"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"time"

	awsconfig "github.com/aws/aws-sdk-go-v2/config"
	"github.com/bookplatform/backend/local/cdnlocal"
	"github.com/bookplatform/backend/local/devserver"
	"github.com/bookplatform/backend/local/dnslocal"
	"github.com/bookplatform/backend/local/dynamodblocal"
	"github.com/bookplatform/backend/local/maillocal"
	"github.com/bookplatform/backend/local/runinfo"
	"github.com/bookplatform/backend/local/squarelocal"
	"github.com/bookplatform/backend/shared/api/storesapi"
	"github.com/bookplatform/backend/shared/app"
	"github.com/bookplatform/backend/shared/config"
	"github.com/bookplatform/backend/shared/dynamo"
	"github.com/bookplatform/backend/shared/extpos"
	"github.com/bookplatform/backend/shared/groups"
	"github.com/bookplatform/backend/shared/notify/notifydeps"
	"github.com/bookplatform/backend/shared/queues"
	"github.com/bookplatform/backend/shared/queues/sqsqueue"
	"github.com/bookplatform/backend/shared/s3media"
	"github.com/bookplatform/backend/shared/webhooks"
)

// Defaults of the local run, applied only to unset variables.
const (
	defaultTableName = "bookplatform-local"
	defaultBucket    = "bookplatform-media-local"
	// Not a secret: it signs tokens of a server that only listens on loopback.
	defaultJWTSecret = "local-development-jwt-secret-not-for-production"
)

// Variables of the local server's limits (devserver.Settings, whose
// DefaultSettings are the defaults), read once at start. They exist only
// locally: in AWS, API Gateway sets these limits.
const (
	envReadHeaderTimeout = "LOCAL_READ_HEADER_TIMEOUT" // Go duration, default 10s
	envReadTimeout       = "LOCAL_READ_TIMEOUT"        // Go duration, default 30s: the whole request, body included
	envWriteTimeout      = "LOCAL_WRITE_TIMEOUT"       // Go duration, default 60s
	envIdleTimeout       = "LOCAL_IDLE_TIMEOUT"        // Go duration, default 120s
	envRequestTimeout    = "LOCAL_REQUEST_TIMEOUT"     // Go duration, default 30s: each request's deadline
	envMaxHeaderBytes    = "LOCAL_MAX_HEADER_BYTES"    // bytes, default 10240: request line and headers
	// How long after a custom domain's certificate is issued the
	// CloudFront stand-in starts serving it (VERIFIED, then ACTIVE).
	envCDNDeployDelay     = "LOCAL_CDN_DEPLOY_DELAY" // Go duration, default 10s
	defaultCDNDeployDelay = 10 * time.Second
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
	setDefault(s3media.EnvBucket, defaultBucket)
	setDefault(s3media.EnvBaseURL, baseURL+strings.TrimSuffix(devserver.MediaPrefix, "/"))
	setDefault(config.EnvJWTSecret, defaultJWTSecret)
	setDefault(storesapi.EnvDistributionID, cdnlocal.DistributionID)
	// Webhook endpoints on this machine (http://127.0.0.1:...) are
	// accepted and delivered to: the local run alone; never set in AWS.
	setDefault(webhooks.EnvAllowPrivateTargets, "true")
	// The digest's unsubscribe link leads to this run.
	setDefault(notifydeps.EnvPublicURL, baseURL)
	// The queues' URLs are known once the SQS stand-in runs (below, where
	// they replace these); the groups that send read them at start, so
	// the settings check needs some value now.
	for _, n := range withDLQs(queues.All) {
		setDefault(n.URLEnv(), "http://127.0.0.1/000000000000/"+string(n))
	}
	cfg, err := config.Load()
	if err != nil {
		return fmt.Errorf("configuration: %w", err)
	}
	if err := groups.CheckSettings(cfg); err != nil {
		return fmt.Errorf("configuration: %w", err)
	}
	// The media and custom domains' settings are the groups' (checked
	// above); the stand-ins that serve them read them the same way.
	media, domains := s3media.ReadSettings(cfg.Env()), storesapi.ReadDomainSettings(cfg.Env())
	settings, err := serverSettings(os.Getenv)
	if err != nil {
		return fmt.Errorf("configuration: %w", err)
	}
	deployDelay := defaultCDNDeployDelay
	if v := strings.TrimSpace(os.Getenv(envCDNDeployDelay)); v != "" {
		if deployDelay, err = time.ParseDuration(v); err != nil || deployDelay < 0 {
			return fmt.Errorf("configuration: %s must be a Go duration such as 10s, got %q", envCDNDeployDelay, v)
		}
	}

	// Take the port first: if it is busy, say so before starting a JVM.
	ln, err := net.Listen("tcp", "127.0.0.1:"+strconv.Itoa(cfg.Port))
	if err != nil {
		return fmt.Errorf("listen on %s (set PORT to use another port): %w", baseURL, err)
	}

	ctx, stopSignals := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM, syscall.SIGHUP)
	defer stopSignals()

	// Started parts, stopped in reverse order on the way out.
	var stops []stopper
	defer func() { stopAll(stops) }()

	// Serve at once: until the stack is ready the front answers 503 with
	// the stage it is at, rather than leave clients on a silent socket.
	logger := app.NewLogger(cfg.LogLevel)
	front := devserver.NewFront(settings, logger)
	front.Starting("starting DynamoDB Local")
	srv := devserver.NewServer(front, settings)
	serveErr := make(chan error, 1)
	go func() { serveErr <- srv.Serve(ln) }()
	// Deferred after the parts' stop, so it runs first: no request
	// reaches a part that is stopping.
	defer stopAll([]stopper{srv.Shutdown})
	fmt.Fprintf(os.Stderr, "Book platform API on %s: starting (it answers 503 until ready)\n", baseURL)

	ddb, err := dynamodblocal.Start(ctx, dynamodblocal.Options{DBPath: filepath.Join(dataDir, "dynamodb")})
	if ctx.Err() != nil {
		return nil // Ctrl-C while the JVM started
	}
	if err != nil {
		return err
	}
	stops = append(stops, func(context.Context) error { return ddb.Stop() })

	s3URL, stopS3, err := startS3(filepath.Join(dataDir, "s3"), media.Bucket)
	if err != nil {
		return fmt.Errorf("S3 stand-in: %w", err)
	}
	stops = append(stops, stopS3)

	sqsURL, stopSQS, err := startSQS()
	if err != nil {
		return fmt.Errorf("SQS stand-in: %w", err)
	}
	stops = append(stops, stopSQS)

	// Custom domains: the DNS stand-in and CloudFront's tenant API over it.
	dns := dnslocal.New()
	cdnURL, stopCDN, err := serveLoopback(cdnlocal.New(dns, domains.TargetSuffix, deployDelay))
	if err != nil {
		return fmt.Errorf("CloudFront stand-in: %w", err)
	}
	stops = append(stops, stopCDN)

	// The point-of-sale system: the Square stand-in, in memory, unless
	// the extpos settings name another (Square's sandbox, say).
	posURL, stopPOS, err := serveLoopback(squarelocal.New())
	if err != nil {
		return fmt.Errorf("point-of-sale stand-in: %w", err)
	}
	stops = append(stops, stopPOS)
	if os.Getenv(extpos.EnvBaseURL) == "" {
		setAll(map[string]string{extpos.EnvBaseURL: posURL, extpos.EnvClientID: squarelocal.ClientID, extpos.EnvClientSecret: squarelocal.ClientSecret})
	}
	setDefault(extpos.EnvRedirectURL, baseURL+"/v1/integrations/extpos/callback")

	// The payment provider: the Stripe stand-in, unless the payments
	// settings name another.
	payURL, stopPay, err := startPayments(baseURL)
	if err != nil {
		return fmt.Errorf("payments stand-in: %w", err)
	}
	stops = append(stops, stopPay)

	// Email: the SES stand-in, which records what is sent.
	mailbox := maillocal.New()
	mailURL, stopMail, err := serveLoopback(mailbox)
	if err != nil {
		return fmt.Errorf("SES stand-in: %w", err)
	}
	stops = append(stops, stopMail)
	front.Starting("creating the queues, the table and the demo accounts")

	// The endpoints are forced (this process started them); the dummy
	// credentials too, so a developer's real AWS credentials are never
	// used to sign requests of the local run.
	setAll(map[string]string{
		"AWS_ENDPOINT_URL_DYNAMODB":   ddb.Endpoint,
		"AWS_ENDPOINT_URL_S3":         s3URL,
		"AWS_ENDPOINT_URL_SQS":        sqsURL,
		"AWS_ENDPOINT_URL_CLOUDFRONT": cdnURL,
		"AWS_ENDPOINT_URL_SESV2":      mailURL,
		"AWS_ACCESS_KEY_ID":           "local",
		"AWS_SECRET_ACCESS_KEY":       "local",
		"AWS_SESSION_TOKEN":           "",
		"AWS_PROFILE":                 "",
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
	sqsClient := sqsqueue.NewClient(awsCfg)
	queueURLs, err := createQueues(ctx, sqsClient, queues.All)
	if err != nil {
		return err
	}
	setAll(queueURLEnv(queueURLs, withDLQs(queues.All)))

	clients, err := app.LoadClients(ctx)
	if err != nil {
		return err
	}
	a := app.New(cfg, clients, logger, nil)
	a.DNS = dns // before the groups are built

	if err := dynamo.Table.EnsureTable(ctx, a.DB, cfg.TableName); err != nil {
		return err
	}
	if err := seedDemo(ctx, a); err != nil {
		return err
	}
	err = loadDemoCatalog(ctx, a, root, os.Stderr, func(done, total int) {
		front.Starting(fmt.Sprintf("loading the demo catalog (%d of %d books)", done, total))
	})
	if err != nil {
		if ctx.Err() != nil {
			return nil // Ctrl-C during the first load
		}
		return err
	}
	front.Starting("stocking the demo stores")
	if err := seedInventory(ctx, a, root); err != nil {
		return err
	}
	if err := seedEarnings(ctx, a); err != nil {
		return err
	}
	if err := seedTradeCredit(ctx, a); err != nil {
		return err
	}

	// Every group, built once: the worker groups consume the local queues
	// as their Lambdas do, the others serve HTTP.
	gs := groups.All(a.Deps())
	front.Starting("starting the queue workers")
	stopWorkers, err := startWorkers(sqsClient, queueURLs, gs, a)
	if err != nil {
		return err
	}
	stops = append(stops, stopWorkers)
	// The outbox relay, as the relay function runs on the table's stream.
	stops = append(stops, startRelay(a, awsCfg, ddb.Endpoint))

	// Tools started beside this run (local/importbooks) find its
	// endpoints here; the file goes when the run stops.
	if err := runinfo.Write(dataDir, runinfo.Info{
		PID: os.Getpid(), API: baseURL, DynamoDB: ddb.Endpoint, S3: s3URL, SQS: sqsURL,
		Table: cfg.TableName, MediaBucket: media.Bucket, MediaBaseURL: media.BaseURL,
		CloudFront: cdnURL, DistributionID: domains.DistributionID, Queues: runQueues(queueURLs), Payments: payURL,
		JWTSecret: string(cfg.JWTKeys.JWTSecret),
	}); err != nil {
		return err
	}
	stops = append(stops, func(context.Context) error { return runinfo.Remove(dataDir) })

	front.Ready(devserver.Handler(a, gs, devserver.Mount{Prefix: maillocal.Prefix, Handler: mailbox}))
	a.Logger.Info("local stack ready", "api", baseURL, "dynamodb", ddb.Endpoint, "s3", s3URL, "sqs", sqsURL, "cloudfront", cdnURL, "payments", payURL, "ses", mailURL,
		"table", cfg.TableName, "bucket", media.Bucket, "queues", queueURLs, "data", dataDir)
	var accounts []string
	for _, d := range demoAccounts {
		accounts = append(accounts, fmt.Sprintf("%s (%s)", d.Email, d.Tier))
	}
	fmt.Fprintf(os.Stderr, "Book platform API on %s: ready (data in %s) - demo accounts %s, password %q - Ctrl-C stops\n",
		baseURL, dataDir, strings.Join(accounts, ", "), DemoPassword)
	fmt.Fprintf(os.Stderr, "Email sent by the local run: %s%s\n", baseURL, maillocal.Prefix)

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

// stopAll stops parts in reverse order, within 15 s in all, reporting
// each failure.
func stopAll(parts []stopper) {
	ctx, cancel := context.WithTimeout(context.Background(), 15*time.Second)
	defer cancel()
	for i := len(parts) - 1; i >= 0; i-- {
		if err := parts[i](ctx); err != nil {
			fmt.Fprintln(os.Stderr, "local: stop:", err)
		}
	}
}

// serverSettings reads the local server's limits through get, over
// devserver.DefaultSettings, reporting every bad variable at once.
func serverSettings(get func(string) string) (devserver.Settings, error) {
	s := devserver.DefaultSettings()
	var errs []error
	for _, d := range []struct {
		name string
		dst  *time.Duration
	}{
		{envReadHeaderTimeout, &s.ReadHeaderTimeout}, {envReadTimeout, &s.ReadTimeout}, {envWriteTimeout, &s.WriteTimeout},
		{envIdleTimeout, &s.IdleTimeout}, {envRequestTimeout, &s.RequestTimeout},
	} {
		v := strings.TrimSpace(get(d.name))
		if v == "" {
			continue
		}
		parsed, err := time.ParseDuration(v)
		if err != nil || parsed <= 0 {
			errs = append(errs, fmt.Errorf("%s must be a positive Go duration such as 30s, got %q", d.name, v))
			continue
		}
		*d.dst = parsed
	}
	if v := strings.TrimSpace(get(envMaxHeaderBytes)); v != "" {
		n, err := strconv.Atoi(v)
		if err != nil {
			errs = append(errs, fmt.Errorf("%s must be a number of bytes, got %q", envMaxHeaderBytes, v))
		} else {
			s.MaxHeaderBytes = n
		}
	}
	if len(errs) > 0 {
		return s, errors.Join(errs...)
	}
	if err := s.Check(); err != nil {
		return s, fmt.Errorf("local server limits (LOCAL_* variables): %w", err)
	}
	return s, nil
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

// runQueues are the queues' URLs by name, for the run info.
func runQueues(urls map[queues.Name]string) map[string]string {
	out := map[string]string{}
	for n, u := range urls {
		out[string(n)] = u
	}
	return out
}
