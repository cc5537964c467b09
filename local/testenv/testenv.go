// Package testenv is the environment every integration test runs in: the
// real router of every endpoint group, over a fresh DynamoDB table in
// DynamoDB Local, an in-process S3 and SQS (whose queues the worker groups
// consume, as on the local run) and the point-of-sale system's stand-in,
// reached through real HTTP; with WithMail, the SES stand-in that records
// the email sent (local/maillocal).
//
// A test package declares
//
//	func TestMain(m *testing.M) { testenv.Main(m) }
//
// and each test calls New for its own table, bucket and server, so tests
// can run in parallel and never see each other's data:
//
//	env := testenv.New(t)
//	res := env.Do("POST", "/v1/auth/signup", map[string]any{...}, "")
//
// One DynamoDB Local serves the whole test binary. When TEST_DYNAMODB_ENDPOINT
// (or AWS_ENDPOINT_URL_DYNAMODB) is set, that one is used and none is started:
// `make test` starts a single instance for all packages that way.
package testenv

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"fmt"
	"log/slog"
	"maps"
	"net/http"
	"net/http/httptest"
	"os"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/credentials"
	"github.com/aws/aws-sdk-go-v2/service/cloudfront"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/aws-sdk-go-v2/service/s3"
	"github.com/aws/aws-sdk-go-v2/service/sesv2"
	"github.com/aws/aws-sdk-go-v2/service/sqs"
	"github.com/aws/smithy-go/middleware"
	"github.com/bookplatform/backend/local/cdnlocal"
	"github.com/bookplatform/backend/local/devserver"
	"github.com/bookplatform/backend/local/dnslocal"
	"github.com/bookplatform/backend/local/dynamodblocal"
	"github.com/bookplatform/backend/local/maillocal"
	"github.com/bookplatform/backend/local/squarelocal"
	"github.com/bookplatform/backend/local/stripelocal"
	"github.com/bookplatform/backend/shared/api/storesapi"
	"github.com/bookplatform/backend/shared/app"
	"github.com/bookplatform/backend/shared/auth"
	"github.com/bookplatform/backend/shared/config"
	"github.com/bookplatform/backend/shared/dynamo"
	"github.com/bookplatform/backend/shared/extpos"
	"github.com/bookplatform/backend/shared/groups"
	"github.com/bookplatform/backend/shared/images"
	"github.com/bookplatform/backend/shared/payments"
	"github.com/bookplatform/backend/shared/queues"
	"github.com/bookplatform/backend/shared/queues/sqsqueue"
	"github.com/bookplatform/backend/shared/s3media"
	"github.com/bookplatform/backend/shared/storehost"
	"github.com/johannesboyne/gofakes3"
	"github.com/johannesboyne/gofakes3/backend/s3mem"
)

// Environment variables naming an already running DynamoDB (Local) to use
// instead of starting one. EnvDynamoDBEndpoint wins over the SDK's variable.
const (
	EnvDynamoDBEndpoint    = "TEST_DYNAMODB_ENDPOINT"
	envSDKDynamoDBEndpoint = "AWS_ENDPOINT_URL_DYNAMODB"
)

// Fixed settings of every environment.
const (
	Region     = "us-east-1"
	Bucket     = "media-test"
	JWTSecret  = "testenv-jwt-secret-at-least-32-bytes-long"
	BcryptCost = 4 // the minimum: sign-ups and logins stay fast
	// startTimeout is generous: go test builds other packages on the same
	// two cores while the JVM starts.
	startTimeout = 2 * time.Minute
)

// The DynamoDB Local of this test binary, started by the first New.
var ddb struct {
	mu       sync.Mutex
	main     bool // Main is running the tests
	started  bool
	endpoint string
	inst     *dynamodblocal.Instance
	err      error
}

// Main runs the tests of a package and then stops the DynamoDB Local that
// New started (if it did); it exits with the tests' status. Call it from
// TestMain. DynamoDB Local is started on first use, so a run that selects
// no integration test does not pay the JVM's start.
func Main(m *testing.M) {
	ddb.mu.Lock()
	ddb.main = true
	ddb.mu.Unlock()

	code := m.Run()

	ddb.mu.Lock()
	if ddb.inst != nil {
		if err := ddb.inst.Stop(); err != nil {
			fmt.Fprintln(os.Stderr, "testenv:", err)
		}
		ddb.inst = nil
	}
	ddb.mu.Unlock()
	os.Exit(code)
}

// DynamoDBEndpoint returns the endpoint of the shared DynamoDB Local,
// starting it on first use.
func DynamoDBEndpoint(tb testing.TB) string {
	tb.Helper()
	ddb.mu.Lock()
	defer ddb.mu.Unlock()
	if !ddb.started {
		ddb.started = true
		ddb.endpoint, ddb.err = startDynamoDB()
	}
	if ddb.err != nil {
		tb.Fatalf("testenv: %v", ddb.err)
	}
	return ddb.endpoint
}

// startDynamoDB is called with ddb.mu held.
func startDynamoDB() (string, error) {
	for _, name := range []string{EnvDynamoDBEndpoint, envSDKDynamoDBEndpoint} {
		if v := strings.TrimSpace(os.Getenv(name)); v != "" {
			return strings.TrimRight(v, "/"), nil
		}
	}
	if !ddb.main {
		// Without Main nobody stops the JVM at the end; on Linux the kernel
		// would, elsewhere it would outlive the test binary.
		return "", fmt.Errorf("add `func TestMain(m *testing.M) { testenv.Main(m) }` to this test package (or set %s)", EnvDynamoDBEndpoint)
	}
	inst, err := dynamodblocal.Start(context.Background(), dynamodblocal.Options{StartTimeout: startTimeout})
	if err != nil {
		return "", err
	}
	ddb.inst = inst
	return inst.Endpoint, nil
}

// Option changes how New builds an environment.
type Option func(*settings)

type settings struct {
	now        func() time.Time
	clock      *Clock
	logger     *slog.Logger
	edits      []func(*config.Config)
	vars       map[string]string
	rateLimits bool
	storeHosts storehost.Directory
	keys       auth.Keyring
	apiOptions []func(*middleware.Stack) error
	queues     bool
	workers    bool
	stream     bool
	mail       bool
}

// WithAPIOptions adds SDK middleware to the app's AWS clients (a
// benchmark reading the capacity each DynamoDB call consumed).
func WithAPIOptions(opts ...func(*middleware.Stack) error) Option {
	return func(s *settings) { s.apiOptions = append(s.apiOptions, opts...) }
}

// WithClock makes the app read time from c (tokens, rate-limit windows,
// timestamps), so a test can move time with c.Advance.
func WithClock(c *Clock) Option {
	return func(s *settings) { s.clock, s.now = c, c.Now }
}

// WithConfig edits the configuration before the app is built (shorter
// token lifetimes, a smaller body limit, ...).
func WithConfig(edit func(*config.Config)) Option {
	return func(s *settings) { s.edits = append(s.edits, edit) }
}

// WithEnv sets a variable before the configuration is read: a group's
// own setting (config.Env), read through the same names, defaults and
// checks as in a deployment; a bad value fails New as it fails a start.
func WithEnv(name, value string) Option {
	return func(s *settings) {
		if s.vars == nil {
			s.vars = map[string]string{}
		}
		s.vars[name] = value
	}
}

// WithStream gives the table its stream, as deployed, so StartRelay can
// read it. It is off otherwise: DynamoDB Local keeps every stream record
// of a run (its tables' deleted ones included) and checks them on each
// write, so streams on every test table made each write of a long `make
// test` slower than the one before (3 ms to 11 ms after 12,000 writes).
func WithStream() Option {
	return func(s *settings) { s.stream = true }
}

// WithRateLimits turns the rate limits on. They are off otherwise, so
// that a test depends neither on the limits' figures nor on moving the
// clock past their windows; the tests of a limit turn them on.
func WithRateLimits() Option {
	return func(s *settings) { s.rateLimits = true }
}

// WithStoreHosts wires d as the seam to the stores domain
// (shared/storehost) in place of the app's own, so that clubs and
// challenges hosted by a store can be tested on their own (StoreHosts is
// such a directory).
func WithStoreHosts(d storehost.Directory) Option {
	return func(s *settings) { s.storeHosts = d }
}

// WithKeys makes the app sign and verify with k instead of the
// configuration's fixed key set (JWTSecret), so a test can rotate the
// keys of a running app.
func WithKeys(k auth.Keyring) Option {
	return func(s *settings) { s.keys = k }
}

// WithLogger replaces the default logger, which writes the app's JSON logs
// to the test's log (shown for failed tests and with -v).
func WithLogger(l *slog.Logger) Option {
	return func(s *settings) { s.logger = l }
}

// Env is one test's environment.
type Env struct {
	// App is the wired service, for arranging state the API cannot (a
	// tier change) and for asserting what was stored.
	App *app.App
	// Server serves App's router and the /media/ route; Server.URL is the base.
	Server *httptest.Server
	// Config is the configuration App was built with.
	Config config.Config
	// Clock is the clock given by WithClock, nil otherwise.
	Clock *Clock
	// AWS is the SDK configuration of the local endpoints.
	AWS aws.Config
	// S3 and Media are a client of the in-memory S3 and the media
	// bucket's store on it, for arranging and asserting objects (the
	// groups that store images build their own, as in their functions).
	S3    *s3.Client
	Media *s3media.Store
	// MediaSettings are the media bucket and its public URL prefix, as
	// the groups that store images read them from Config.
	MediaSettings s3media.Settings
	// DNS and CDN are the custom domains' stand-ins: the DNS records a
	// test sets, and CloudFront's tenants (deployed when the test says:
	// CDN.DeployAll). Domains are the custom domains' settings, as the
	// stores group reads them from Config.
	DNS     *dnslocal.Resolver
	CDN     *cdnlocal.Server
	Domains storesapi.DomainSettings
	// SQS and QueueURLs are the work queues' client and each queue's URL
	// (its dead-letter queue's included), with WithQueues; nil otherwise.
	SQS       *sqs.Client
	QueueURLs map[queues.Name]string
	// POS is the point-of-sale system's stand-in (local/squarelocal) at
	// POSURL, which the extpos settings name; its catalog starts with
	// squarelocal.DemoItems.
	POS    *squarelocal.Server
	POSURL string
	// Payments is the payment provider's stand-in (local/stripelocal) at
	// PaymentsURL, which the payments settings name with its API key and
	// webhook secret; its webhooks go to this environment's
	// /v1/payments/webhook. Tests read what it holds (Created, Intent)
	// and act for the buyer and Stripe (Complete, Expire, Send).
	Payments    *stripelocal.Server
	PaymentsURL string
	// Stream says the table has its stream (WithStream).
	Stream bool
	// Mail is the SES stand-in (local/maillocal) at MailURL, which the
	// app's SES endpoint names, with WithMail; nil otherwise. Tests read
	// the email sent (Messages, WaitFor) and mark addresses bounced; the
	// server serves its list at /_local/mail as the local run does.
	Mail    *maillocal.Server
	MailURL string

	tb      testing.TB
	handler http.Handler
}

// New builds a fresh environment: a table with a random name (the schema
// CDK deploys, TTL on), an in-memory S3 with the media bucket, the app,
// and a server. Everything is removed when the test ends.
func New(tb testing.TB, opts ...Option) *Env {
	tb.Helper()
	var s settings
	for _, o := range opts {
		o(&s)
	}
	if os.Getenv("AWS_ENDPOINT_URL") != "" && os.Getenv("AWS_ENDPOINT_URL_S3") == "" {
		// The SDK would then ignore the per-service endpoints set below.
		tb.Fatalf("testenv: unset AWS_ENDPOINT_URL (it overrides the local endpoints)")
	}
	endpoint := DynamoDBEndpoint(tb)

	logs := &tbWriter{tb: tb}
	tb.Cleanup(logs.close) // registered first: runs last, after the server is closed
	logger := s.logger
	if logger == nil {
		logger = slog.New(slog.NewJSONHandler(logs, &slog.HandlerOptions{Level: slog.LevelInfo}))
	}

	// S3: gofakes3 in memory, one per environment (it is cheap). No
	// clock-skew check: tests sign with the wall clock even when the app
	// runs on a fake one.
	s3backend := s3mem.New()
	if err := s3backend.CreateBucket(Bucket); err != nil {
		tb.Fatalf("testenv: create bucket: %v", err)
	}
	s3srv := httptest.NewServer(gofakes3.New(s3backend, gofakes3.WithTimeSkewLimit(0)).Server())

	// CloudFront: the stand-in of its tenant API, over the DNS stand-in.
	dns := dnslocal.New()
	cdn := cdnlocal.New(dns, storesapi.DefaultDomainTarget, time.Hour)
	cdnSrv := httptest.NewServer(cdn)
	tb.Cleanup(cdnSrv.Close)

	// The point-of-sale system: its stand-in, one per environment.
	pos := squarelocal.New()
	posSrv := httptest.NewServer(pos)
	tb.Cleanup(posSrv.Close)

	endpoints := map[string]string{dynamodb.ServiceID: endpoint, "S3": s3srv.URL, cloudfront.ServiceID: cdnSrv.URL}
	mailSrv, mailURL, mounts := setUpMail(tb, s)
	endpoints[sesv2.ServiceID] = mailURL
	// The work queues: real ones for this environment (WithQueues), or
	// addresses that refuse a send.
	queueVars := map[string]string{}
	var queueURLs map[queues.Name]string
	if s.queues {
		var sqsURL string
		sqsURL, queueURLs = setUpQueues(tb, randomHex(6))
		endpoints[sqs.ServiceID] = sqsURL
	}
	for _, q := range queues.All {
		// A dead-letter queue's too: a worker that gives up on a message
		// itself sends it there (the webhook deliveries).
		for _, n := range []queues.Name{q, q.DLQ()} {
			queueVars[n.URLEnv()] = unreachableQueue(n)
			if u := queueURLs[n]; u != "" {
				queueVars[n.URLEnv()] = u
			}
		}
	}
	awsCfg := AWSConfig(endpoints)
	awsCfg.APIOptions = append(awsCfg.APIOptions, s.apiOptions...)

	// The server is created before the app so that MEDIA_BASE_URL can name
	// its address; it starts serving once the app is wired.
	srv := httptest.NewUnstartedServer(nil)
	baseURL := "http://" + srv.Listener.Addr().String()

	// The payment provider: its stand-in, one per environment, sending
	// its webhooks to this environment's receiver.
	pay := stripelocal.New(stripelocal.WithWebhook(baseURL+"/v1/payments/webhook", stripelocal.WebhookSecret))
	paySrv := httptest.NewServer(pay)
	tb.Cleanup(paySrv.Close)

	// Built from variables, so tests get a deployment's defaults and checks.
	vars := map[string]string{
		config.EnvTableName:  "test-" + randomHex(6),
		s3media.EnvBucket:    Bucket,
		s3media.EnvBaseURL:   baseURL + strings.TrimSuffix(devserver.MediaPrefix, "/"),
		config.EnvJWTSecret:  JWTSecret,
		config.EnvBcryptCost: strconv.Itoa(BcryptCost),

		storesapi.EnvDistributionID: cdnlocal.DistributionID,

		extpos.EnvBaseURL:      posSrv.URL,
		extpos.EnvClientID:     squarelocal.ClientID,
		extpos.EnvClientSecret: squarelocal.ClientSecret,
		extpos.EnvRedirectURL:  baseURL + "/v1/integrations/extpos/callback",

		payments.EnvStripeAPIBase:       paySrv.URL,
		payments.EnvStripeAPIKey:        stripelocal.APIKey,
		payments.EnvStripeWebhookSecret: stripelocal.WebhookSecret,
	}
	maps.Copy(vars, queueVars)
	maps.Copy(vars, s.vars)
	cfg, err := config.LoadFrom(func(k string) string { return vars[k] })
	if err != nil {
		s3srv.Close()
		srv.Close()
		tb.Fatalf("testenv: %v", err)
	}
	for _, edit := range s.edits {
		edit(&cfg)
	}

	clients := app.NewClients(awsCfg)
	clients.Keys = s.keys
	a := app.New(cfg, clients, logger, s.now)
	if !s.rateLimits {
		a.Counter = nil
	}
	if s.storeHosts != nil {
		a.StoreHosts = s.storeHosts
	}
	a.DNS = dns
	s3Client := s3media.NewClient(awsCfg)
	mediaSettings := s3media.ReadSettings(cfg.Env())
	media := s3media.NewStore(s3Client, mediaSettings)
	// App.Users sets avatars too, as the users group's service does.
	a.Users = a.Users.WithImages(images.NewService(media, a.Now))
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	schema := dynamo.Table
	if !s.stream {
		schema.Stream = ""
	}
	if err := schema.EnsureTable(ctx, a.DB, cfg.TableName); err != nil {
		s3srv.Close()
		srv.Close()
		tb.Fatalf("testenv: %v (DynamoDB at %s)", err, endpoint)
	}
	tb.Cleanup(func() {
		ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
		defer cancel()
		if _, err := a.DB.DeleteTable(ctx, &dynamodb.DeleteTableInput{TableName: aws.String(cfg.TableName)}); err != nil {
			tb.Logf("testenv: delete table %s: %v", cfg.TableName, err)
		}
	})
	tb.Cleanup(s3srv.Close)

	gs := groups.All(a.Deps())
	if err := a.SettingsErr(); err != nil {
		s3srv.Close()
		srv.Close()
		tb.Fatalf("testenv: %v", err)
	}
	h := devserver.Handler(a, gs, mounts...)
	srv.Config.Handler = h
	srv.Start()
	tb.Cleanup(srv.Close) // registered last: runs first, waits for handlers

	env := &Env{App: a, Server: srv, Config: cfg, Clock: s.clock, AWS: awsCfg, S3: s3Client, Media: media, MediaSettings: mediaSettings, DNS: dns, CDN: cdn,
		Domains: storesapi.ReadDomainSettings(cfg.Env()), POS: pos, POSURL: posSrv.URL,
		Payments: pay, PaymentsURL: paySrv.URL, Stream: s.stream, Mail: mailSrv, tb: tb, handler: h}
	if mailSrv != nil {
		env.MailURL = mailURL
	}
	if s.queues {
		env.SQS, env.QueueURLs = sqsqueue.NewClient(awsCfg), queueURLs
	}
	if s.workers {
		env.StartWorkers(tb)
	}
	return env
}

// AWSConfig returns an SDK configuration with static dummy credentials and
// one endpoint per service, keyed by the SDK's service id ("DynamoDB",
// "S3", "SQS"). It goes through the configuration sources, the same path
// the AWS_ENDPOINT_URL_<SERVICE> variables take, so parallel tests can use
// different endpoints without touching the process environment.
func AWSConfig(endpoints map[string]string) aws.Config {
	return aws.Config{
		Region:      Region,
		Credentials: credentials.NewStaticCredentialsProvider("testenv", "testenv", ""),
		// gofakes3 cannot verify trailing checksums of streamed bodies.
		RequestChecksumCalculation: aws.RequestChecksumCalculationWhenRequired,
		ResponseChecksumValidation: aws.ResponseChecksumValidationWhenRequired,
		ConfigSources:              []any{serviceEndpoints(endpoints)},
	}
}

// serviceEndpoints satisfies the SDK's configuration-source interface for
// per-service base endpoints.
type serviceEndpoints map[string]string

// GetServiceBaseEndpoint returns the endpoint of a service, if set.
func (e serviceEndpoints) GetServiceBaseEndpoint(_ context.Context, sdkID string) (string, bool, error) {
	u, ok := e[sdkID]
	return u, ok, nil
}

// randomHex returns n random bytes in hex.
func randomHex(n int) string {
	b := make([]byte, n)
	_, _ = rand.Read(b)
	return hex.EncodeToString(b)
}

// tbWriter sends log lines to the test's log until the test is over; a
// line written later (by a goroutine the test did not wait for) is dropped
// rather than panicking the test binary.
type tbWriter struct {
	mu   sync.Mutex
	tb   testing.TB
	done bool
}

func (w *tbWriter) Write(p []byte) (int, error) {
	w.mu.Lock()
	defer w.mu.Unlock()
	if !w.done {
		w.tb.Log(strings.TrimRight(string(p), "\n"))
	}
	return len(p), nil
}

func (w *tbWriter) close() {
	w.mu.Lock()
	w.done = true
	w.mu.Unlock()
}
