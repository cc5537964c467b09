// Package app is what every function shares: it builds the clients every
// group uses (DynamoDB, the signing keys) from the configuration, the
// stores and shared services on top of them, and the request pipeline
// (identity, rate limits, roles, idempotency, cursors) in front of a
// group's routes. A Lambda main hands Start its group's constructor, so
// the function links that group alone; clients only some groups use are
// built by those groups (api.Deps). Every Lambda main, the local server
// and the tests build the service through this package, so they all run
// the same code; the readers of every group (the local server, CDK, the
// API reference, the tests) get the list of groups from shared/groups.
package app

import (
	"context"
	"crypto/hmac"
	"crypto/sha256"
	"errors"
	"fmt"
	"log/slog"
	"os"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	awsconfig "github.com/aws/aws-sdk-go-v2/config"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/bookplatform/backend/shared/api"
	"github.com/bookplatform/backend/shared/auth"
	"github.com/bookplatform/backend/shared/books"
	"github.com/bookplatform/backend/shared/config"
	"github.com/bookplatform/backend/shared/dynamo"
	"github.com/bookplatform/backend/shared/quota"
	"github.com/bookplatform/backend/shared/ratelimit"
	"github.com/bookplatform/backend/shared/relay"
	"github.com/bookplatform/backend/shared/secretsmgr"
	"github.com/bookplatform/backend/shared/storehost"
	"github.com/bookplatform/backend/shared/stores"
	"github.com/bookplatform/backend/shared/tracing"
	"github.com/bookplatform/backend/shared/users"
)

// App is the wired service.
type App struct {
	Config config.Config
	Logger *slog.Logger
	// AWS is the SDK configuration the clients are built from: the
	// groups build from it the clients only they use (api.Deps).
	AWS aws.Config
	DB  *dynamodb.Client
	// Table is the one table (the client, its name and the clock): the
	// groups build their stores from it (api.Deps), and so do the app's
	// own readers and the tests.
	Table dynamo.Handle
	// Env reads the groups' own settings through what the configuration
	// was read from; SettingsErr reports what it found wrong.
	Env *config.Env
	// Keys are the access-token keys (the Secrets Manager keyring in
	// AWS, the configured set elsewhere); cursors and idempotency
	// records are keyed from them too.
	Keys   auth.Keyring
	Tokens *auth.Tokens
	// Users is the account service (the auth and users groups, the demo
	// data). It stores no avatar: the users group adds the media bucket
	// (users.Service.WithImages), and so may a caller that sets avatars
	// without going through that group.
	Users *users.Service
	// Books is the catalog service (the catalog importer, the demo data).
	Books *books.Service
	// Quota is the free tier's monthly content quota (shared/quota).
	Quota quota.Policy
	// StoreHosts is the seam between the community features that refer
	// to stores (clubs and challenges a store hosts, store follows) and
	// the stores domain (dynamo.NewStoreHosts).
	StoreHosts storehost.Directory
	// Counter counts requests for the rate limits; nil turns them off
	// (the test environment does, unless a test turns them on).
	Counter ratelimit.Counter
	// DNS, when set, is the resolver of custom domains (nil: the
	// system's); the local run and the tests set their stand-in before
	// building routers. The stores group builds the CDN tenants itself.
	DNS stores.Resolver
	Now func() time.Time
	// OriginSecrets, when set, are the values of the front door's secret
	// header the functions admit (frontDoor): FromEnv sets the current
	// and previous values of ORIGIN_VERIFY_SECRET_ARN's secret, which it
	// keeps reading. Unset, Config.OriginVerifySecret is the one (none:
	// no front door).
	OriginSecrets func() []string

	// The stores the app's own pipeline reads: idempotency records, the
	// caller's account, the store a request names.
	idempotency *dynamo.Idempotency
	users       *dynamo.Users
	bookstores  *dynamo.Bookstores
}

// Clients are the AWS clients every function runs on, and the SDK
// configuration they come from (the groups build their own clients from
// it).
type Clients struct {
	AWS      aws.Config
	DynamoDB *dynamodb.Client
	// Keys, when set, replace the configuration's fixed key set (New):
	// FromEnv sets the Secrets Manager keyring of JWT_SECRET_ARN.
	Keys auth.Keyring
}

// LoadClients builds the AWS clients from the SDK's default chain; the
// endpoints come from AWS_ENDPOINT_URL_DYNAMODB (and _S3, _SQS,
// _CLOUDFRONT for the groups' own clients) when set.
func LoadClients(ctx context.Context) (Clients, error) {
	awsCfg, err := LoadAWSConfig(ctx)
	if err != nil {
		return Clients{}, err
	}
	return NewClients(awsCfg), nil
}

// LoadAWSConfig is the SDK's default configuration.
func LoadAWSConfig(ctx context.Context) (aws.Config, error) {
	awsCfg, err := awsconfig.LoadDefaultConfig(ctx)
	if err != nil {
		return aws.Config{}, fmt.Errorf("load AWS configuration: %w", err)
	}
	return awsCfg, nil
}

// NewClients builds the clients from an AWS configuration.
func NewClients(awsCfg aws.Config) Clients {
	return Clients{AWS: awsCfg, DynamoDB: dynamo.NewClient(awsCfg)}
}

// New wires the app. now may be nil for the wall clock.
func New(cfg config.Config, clients Clients, logger *slog.Logger, now func() time.Time) *App {
	if now == nil {
		now = time.Now
	}
	if logger == nil {
		logger = NewLogger(cfg.LogLevel)
	}
	a := &App{Config: cfg, Logger: logger, AWS: clients.AWS, DB: clients.DynamoDB, Now: now, Env: cfg.Env()}
	a.Table = dynamo.Handle{DB: clients.DynamoDB, Table: cfg.TableName, Now: now}
	h := a.Table
	a.Keys = clients.Keys
	if a.Keys == nil {
		keys, err := auth.NewKeySet(cfg.JWTSecret, cfg.JWTPreviousSecret, cfg.JWTNextSecret)
		if err != nil {
			// config.Load refuses such a configuration; only a caller that
			// set JWT_SECRET_ARN without passing its keyring gets here.
			panic("app: no access-token keys: " + err.Error())
		}
		a.Keys = keys
	}
	a.Tokens = auth.NewTokens(a.Keys, cfg.AccessTokenTTL, now)
	a.Users = users.NewService(users.Deps{
		Store: dynamo.NewUsers(h), Sessions: dynamo.NewSessions(h), Attempts: dynamo.NewAttempts(h), Tokens: a.Tokens,
		RefreshTTL: cfg.RefreshTokenTTL, RefreshReuse: cfg.RefreshReuseInterval, BcryptCost: cfg.BcryptCost,
		PasswordTries: users.AttemptPolicy{
			Limit: cfg.PasswordAttempts, AccountLimit: cfg.PasswordAccountAttempts, Window: cfg.PasswordAttemptWindow,
		},
		Now: now,
	})
	a.Books = books.NewService(books.Deps{Store: dynamo.NewBooks(h), Now: now})
	a.Quota = quota.Policy{FreePosts: cfg.MonthlyPosts, FreeReviews: cfg.MonthlyReviews, UpgradeURL: cfg.UpgradeURL}
	a.StoreHosts = dynamo.NewStoreHosts(h)
	a.Counter = dynamo.NewCounters(h)
	a.idempotency = dynamo.NewIdempotency(h)
	a.users = dynamo.NewUsers(h)
	a.bookstores = dynamo.NewBookstores(h)
	return a
}

// Deps is what the app's groups are built from: the core alone, the
// same whatever the groups (api.Deps).
func (a *App) Deps() api.Deps {
	return api.Deps{
		Config: a.Config, Env: a.Env, AWS: a.AWS, Table: a.Table, Tokens: a.Tokens, Keys: a.Keys, Users: a.Users,
		Quota: a.Quota, StoreHosts: a.StoreHosts, DNS: a.DNS, Logger: a.Logger, Now: a.Now,
	}
}

// SettingsErr is every bad value of a group's own setting that the
// groups built from Deps have read so far, each naming its variable: a
// start-up error, as a bad core setting is (config.Load).
func (a *App) SettingsErr() error {
	if err := a.Env.Err(); err != nil {
		return fmt.Errorf("configuration: %w", err)
	}
	return nil
}

// FromEnv is what a Lambda main does: configuration, tracing (in Lambda
// with X-Ray on), clients, the signing keys (read from Secrets Manager
// when JWT_SECRET_ARN names them), app, and its group built by build.
// A group whose routes verify no token (api.Group.Keyless: health, docs)
// starts without any key configured: the stack neither grants it the
// secret nor names it, and its app holds no key (it can neither sign nor
// verify); any other group without keys is a configuration error.
func FromEnv(ctx context.Context, build api.Build) (*App, api.Group, error) {
	a, err := fromEnv(ctx)
	if err != nil {
		return nil, api.Group{}, err
	}
	g := build(a.Deps())
	if err := a.SettingsErr(); err != nil {
		return nil, api.Group{}, err
	}
	if a.Config.JWTKeys.None() && !g.Keyless() {
		return nil, api.Group{}, fmt.Errorf("group %s verifies tokens: %w", g.Name, config.ErrNoJWTKeys)
	}
	return a, g, nil
}

func fromEnv(ctx context.Context) (*App, error) {
	cfg, err := config.LoadWithoutKeys()
	if err != nil {
		return nil, err
	}
	logger := NewLogger(cfg.LogLevel)
	awsCfg, err := LoadAWSConfig(ctx)
	if err != nil {
		return nil, err
	}
	// The X-Ray client is made from the configuration before Instrument:
	// sending a trace is no span of it.
	if _, err := tracing.SetupFromEnv(awsCfg, logger); err != nil {
		return nil, err
	}
	tracing.Instrument(&awsCfg)
	var originSecrets *secretsmgr.Versions
	if cfg.OriginVerifySecretARN != "" {
		if originSecrets, err = readOriginSecret(ctx, secretsmgr.NewClient(awsCfg), cfg.OriginVerifySecretARN, logger); err != nil {
			return nil, err
		}
	}
	clients := NewClients(awsCfg)
	if cfg.JWTKeys.None() {
		clients.Keys = auth.KeySet{} // no key: FromEnv serves a Keyless group only
	} else if clients.Keys, err = secretsmgr.LoadKeyring(ctx, cfg.JWTKeys, func(context.Context) (aws.Config, error) { return awsCfg, nil }, logger); err != nil {
		return nil, err
	}
	a := New(cfg, clients, logger, nil)
	if originSecrets != nil {
		a.OriginSecrets = originSecrets.Values
	}
	return a, nil
}

// originSecretRefresh is how often a function reads the origin secret
// again: a value put by hand reaches every running function within it.
const originSecretRefresh = 5 * time.Minute

// readOriginSecret reads the API front door's origin secret from the
// secret ORIGIN_VERIFY_SECRET_ARN names: the stack passes its ARN rather
// than its value, which anyone who may read the function's configuration
// could read. Its current and previous values are both admitted and read
// again every originSecretRefresh (secretsmgr.Versions says why). A
// current value under 32 bytes is refused as the variable's is.
func readOriginSecret(ctx context.Context, api secretsmgr.GetSecretValueAPI, arn string, logger *slog.Logger) (*secretsmgr.Versions, error) {
	v, err := secretsmgr.NewVersions(ctx, api, arn, originSecretRefresh, func(v string) error {
		if v == "" {
			return errors.New("the value is empty")
		}
		return config.CheckOriginVerifySecret(v)
	}, logger, nil)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", config.EnvOriginVerifySecretARN, err)
	}
	return v, nil
}

// NewLogger returns the JSON logger at the given level, on stdout
// (config.NewLogger).
func NewLogger(level string) *slog.Logger {
	return config.NewLogger(os.Stdout, level)
}

// Keys derived from the JWT keys, so there is one secret to manage (and
// rotate) and no two uses share a key: each is the HMAC-SHA256 of its own
// label under a JWT key.
const (
	labelCursors     = "bookplatform pagination cursors"
	labelIdempotency = "bookplatform idempotency records"
)

// derivedKey is the 32-byte key of one use (label) of secret.
func derivedKey(secret []byte, label string) []byte {
	m := hmac.New(sha256.New, secret)
	m.Write([]byte(label))
	return m.Sum(nil)
}

// derivedKeys returns the keys of one use (label) derived from every key
// the app holds at the time of the call, the signing key's first: what
// the router seals with, then what else it opens.
func (a *App) derivedKeys(label string) func() [][]byte {
	return func() [][]byte {
		secrets := a.Keys.Keys().Secrets()
		out := make([][]byte, len(secrets))
		for i, s := range secrets {
			out[i] = derivedKey(s, label)
		}
		return out
	}
}

// Relay is the outbox relay of the app's table handing events to
// consumers: the one handler the relay function runs on its stream
// event source and the local run and the tests feed from DynamoDB
// Local's stream (local/streampoll).
func (a *App) Relay(consumers ...relay.Consumer) *relay.Relay {
	return relay.New(relay.Deps{
		Consumers: consumers, Records: a.idempotency, Outbox: dynamo.NewOutbox(a.Table), Now: a.Now, Logger: a.Logger,
	})
}
