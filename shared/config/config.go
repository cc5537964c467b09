// Package config names the core's environment variables and loads them
// once at start; functions/, local/ and infra/ all use these names, so a
// variable cannot be spelled two ways. A group's own settings are
// declared and read in its package through Env (groups.Names lists
// them all).
package config

import (
	"errors"
	"fmt"
	"os"
	"strings"
	"time"
)

// Environment variable names.
const (
	EnvTableName       = "TABLE_NAME"           // DynamoDB table (required)
	EnvJWTSecret       = "JWT_SECRET"           // HMAC key that signs access tokens, at least 32 bytes (required unless JWT_SECRET_ARN)
	EnvAccessTokenTTL  = "ACCESS_TOKEN_TTL"     // Go duration, default 15m
	EnvRefreshTokenTTL = "REFRESH_TOKEN_TTL"    // Go duration, default 168h (7 days)
	EnvBcryptCost      = "BCRYPT_COST"          // default 10; tests lower it
	EnvMaxBodyBytes    = "MAX_BODY_BYTES"       // JSON request body limit, default 1 MiB
	EnvLogLevel        = "LOG_LEVEL"            // debug, info, warn, error; default info
	EnvPort            = "PORT"                 // local server port, default 8080
	EnvLocalDataDir    = "LOCAL_DATA_DIR"       // local server data folder, default <repo>/.local
	EnvUpgradeURL      = "UPGRADE_URL"          // where the monthly-limit body sends free users
	EnvMonthlyPosts    = "MONTHLY_POST_LIMIT"   // free tier's lines and replies a month, default 50
	EnvMonthlyReviews  = "MONTHLY_REVIEW_LIMIT" // free tier's reviews a month, default 50
	// Attempts with a password per window: a sign-in's per account and
	// source address, a password change's per account (default 10 in
	// 15m); and a sign-in's per account from every address (default 30,
	// not below the first).
	EnvPasswordAttempts        = "PASSWORD_ATTEMPT_LIMIT"
	EnvPasswordAccountAttempts = "PASSWORD_ATTEMPT_ACCOUNT_LIMIT"
	EnvPasswordAttemptWindow   = "PASSWORD_ATTEMPT_WINDOW"
	// How long a rotated refresh token may be presented again (two tabs
	// refreshing at once) without ending its session: default 30s.
	EnvRefreshReuseInterval = "REFRESH_REUSE_INTERVAL"
	// Keys accepted beside JWT_SECRET (docs/decisions.md, "Signing key
	// rotation"): the previous key, so tokens, cursors and idempotency
	// records made before a rotation stay valid, and the next key, so a
	// process that has not rotated yet accepts what one that has signs.
	EnvJWTPreviousSecret = "JWT_PREVIOUS_SECRET"
	EnvJWTNextSecret     = "JWT_NEXT_SECRET"
	// The Secrets Manager secret holding the three keys as JSON
	// ({"current", "previous", "next"}), in place of the three variables:
	// read at start and again every JWT_KEYS_REFRESH (default 5m), so a
	// rotation reaches running processes.
	EnvJWTSecretARN   = "JWT_SECRET_ARN"
	EnvJWTKeysRefresh = "JWT_KEYS_REFRESH"
	// Set by the CDK stack when the API sits behind its CloudFront front
	// door (WAF on): a request must carry this value in X-Origin-Verify
	// (else 403), and the client's address is the one CloudFront saw.
	EnvOriginVerifySecret = "ORIGIN_VERIFY_SECRET"
	// The Secrets Manager secret holding that value, in its place (the
	// stack sets it): read once at start (shared/app), so the value is
	// not readable in the function's configuration.
	EnvOriginVerifySecretARN = "ORIGIN_VERIFY_SECRET_ARN"
)

// Queue URLs, one variable per work queue (shared/queues: Name.URLEnv
// derives them, a test there keeps the two in step). The CDK stack sets
// a queue's variable only on the functions that send to it, the local run
// sets them all; sqsqueue.Sender reads them and names the missing one.
const (
	EnvQueueURLCSVImport = "QUEUE_URL_CSV_IMPORT" // csv-import queue
	EnvQueueURLPOSSync   = "QUEUE_URL_POS_SYNC"   // pos-sync queue
	EnvQueueURLWebhooks  = "QUEUE_URL_WEBHOOKS"   // webhooks queue
)

// Names lists every variable above, for tools that must clear or copy the
// service's environment; a group's own settings are read in its package
// (Env), and groups.Names adds them.
var Names = []string{
	EnvTableName, EnvJWTSecret, EnvAccessTokenTTL, EnvRefreshTokenTTL,
	EnvBcryptCost, EnvMaxBodyBytes, EnvLogLevel, EnvPort, EnvLocalDataDir, EnvUpgradeURL,
	EnvMonthlyPosts, EnvMonthlyReviews, EnvPasswordAttempts, EnvPasswordAccountAttempts, EnvPasswordAttemptWindow, EnvRefreshReuseInterval,
	EnvJWTPreviousSecret, EnvJWTNextSecret, EnvJWTSecretARN, EnvJWTKeysRefresh, EnvOriginVerifySecret, EnvOriginVerifySecretARN,
	EnvQueueURLCSVImport, EnvQueueURLPOSSync, EnvQueueURLWebhooks,
}

// Defaults for the optional variables; docs/decisions.md explains the token lifetimes.
const (
	DefaultAccessTokenTTL        = 15 * time.Minute
	DefaultRefreshTokenTTL       = 7 * 24 * time.Hour
	DefaultBcryptCost            = 10
	DefaultMaxBodyBytes          = 1 << 20
	DefaultPort                  = 8080
	DefaultUpgradeURL            = "https://bookplatform.example/upgrade"
	DefaultMonthlyPosts          = 50
	DefaultMonthlyReviews        = 50
	DefaultPasswordAttempts      = 10
	DefaultPasswordAccountTries  = 30
	DefaultPasswordAttemptWindow = 15 * time.Minute
	DefaultRefreshReuseInterval  = 30 * time.Second
	DefaultJWTKeysRefresh        = 5 * time.Minute
)

// DefaultCreatorTiers are the tiers that may create clubs and
// challenges unless their group's setting says otherwise (spec: Other
// limits).
const DefaultCreatorTiers = "premium,bookstore"

// tierNames are the account tiers a tier list may name (shared/users).
var tierNames = []string{"free", "premium", "bookstore"}

// MinJWTSecretBytes is the shortest JWT_SECRET accepted: an HS256 key
// shorter than the hash output weakens the signature.
const MinJWTSecretBytes = 32

// JWTKeys says where the access-token keys come from: the three
// variables, or a Secrets Manager secret (JWTSecretARN) instead.
type JWTKeys struct {
	JWTSecret         []byte // signs
	JWTPreviousSecret []byte // optional, accepted
	JWTNextSecret     []byte // optional, accepted
	JWTSecretARN      string
	// JWTKeysRefresh is how often the secret is read again.
	JWTKeysRefresh time.Duration
}

// CheckOriginVerifySecret refuses an origin secret under 32 bytes, from
// the variable or from its secret.
func CheckOriginVerifySecret(v string) error {
	if n := len(v); n > 0 && n < 32 {
		return fmt.Errorf("%s must be at least 32 bytes", EnvOriginVerifySecret)
	}
	return nil
}

// Config is the service configuration, read once at process start.
type Config struct {
	TableName string
	JWTKeys
	AccessTokenTTL  time.Duration
	RefreshTokenTTL time.Duration
	BcryptCost      int
	MaxBodyBytes    int64
	LogLevel        string
	Port            int
	// The free tier's monthly quota (shared/quota): the router admits
	// and counts by it, so it is the core's.
	UpgradeURL     string
	MonthlyPosts   int
	MonthlyReviews int
	// PasswordAttempts per account and source address (a sign-in) or
	// per account (a password change) in PasswordAttemptWindow, and
	// PasswordAccountAttempts per account from every address (a sign-in).
	PasswordAttempts        int
	PasswordAccountAttempts int
	PasswordAttemptWindow   time.Duration
	RefreshReuseInterval    time.Duration
	// OriginVerifySecret, when set, admits only requests that came through
	// the API's CloudFront front door (shared/app, frontDoor).
	// OriginVerifySecretARN names a secret holding it instead, whose
	// current and previous values shared/app admits (App.OriginSecrets).
	OriginVerifySecret    string
	OriginVerifySecretARN string

	// get is what the configuration was read through: Env reads the
	// groups' own settings through it too.
	get func(string) string
}

// Env is a reader of the groups' own settings through what the
// configuration was read from (api.Deps.Env). A zero Config's reads
// every variable as unset.
func (c Config) Env() *Env { return NewEnv(c.get) }

// Load reads the configuration from the environment. It reports every
// missing or malformed variable at once, so a deploy fails with one clear
// message instead of one variable at a time.
func Load() (Config, error) {
	return LoadFrom(os.Getenv)
}

// LoadFrom reads the configuration through get (a map in tests, so they
// go through the same names, defaults and checks as a deployment).
func LoadFrom(get func(string) string) (Config, error) { return load(get, true) }

// LoadWithoutKeys is Load for a process that may run without the
// signing keys: a function whose routes verify no token and seal nothing
// (api.Group.Keyless: health, docs) is neither granted their secret nor
// told where it is. Keys that are set are read and checked as by Load;
// none set is no error (JWTKeys.None), and the caller must refuse to
// serve anything that needs them (app.FromEnv).
func LoadWithoutKeys() (Config, error) { return load(os.Getenv, false) }

// ErrNoJWTKeys is a configuration naming no signing key.
var ErrNoJWTKeys = fmt.Errorf("%s is required (or %s)", EnvJWTSecret, EnvJWTSecretARN)

func load(get func(string) string, requireKeys bool) (Config, error) {
	e := NewEnv(get)
	c := Config{
		TableName:       e.Required(EnvTableName),
		AccessTokenTTL:  e.Duration(EnvAccessTokenTTL, DefaultAccessTokenTTL),
		RefreshTokenTTL: e.Duration(EnvRefreshTokenTTL, DefaultRefreshTokenTTL),
		BcryptCost:      int(e.Int(EnvBcryptCost, DefaultBcryptCost, 4, 14)),
		MaxBodyBytes:    e.Int(EnvMaxBodyBytes, DefaultMaxBodyBytes, 1024, 10<<20),
		LogLevel:        strings.ToLower(e.String(EnvLogLevel)),
		Port:            int(e.Int(EnvPort, DefaultPort, 1, 65535)),
		UpgradeURL:      e.String(EnvUpgradeURL),
		MonthlyPosts:    int(e.Int(EnvMonthlyPosts, DefaultMonthlyPosts, 1, 1_000_000)),
		MonthlyReviews:  int(e.Int(EnvMonthlyReviews, DefaultMonthlyReviews, 1, 1_000_000)),

		PasswordAttempts:        int(e.Int(EnvPasswordAttempts, DefaultPasswordAttempts, 1, 1000)),
		PasswordAccountAttempts: int(e.Int(EnvPasswordAccountAttempts, DefaultPasswordAccountTries, 1, 10000)),
		PasswordAttemptWindow:   e.Duration(EnvPasswordAttemptWindow, DefaultPasswordAttemptWindow),
		RefreshReuseInterval:    e.Duration(EnvRefreshReuseInterval, DefaultRefreshReuseInterval),

		OriginVerifySecret:    e.String(EnvOriginVerifySecret),
		OriginVerifySecretARN: e.String(EnvOriginVerifySecretARN),
		get:                   get,
	}
	errs := []error{e.Err(), CheckOriginVerifySecret(c.OriginVerifySecret)}
	if c.OriginVerifySecret != "" && c.OriginVerifySecretARN != "" {
		errs = append(errs, fmt.Errorf("%s replaces %s: set either", EnvOriginVerifySecretARN, EnvOriginVerifySecret))
	}
	keys, err := loadJWTKeys(get, requireKeys)
	c.JWTKeys = keys
	errs = append(errs, err)
	if c.UpgradeURL == "" {
		c.UpgradeURL = DefaultUpgradeURL
	}
	if c.LogLevel == "" {
		c.LogLevel = "info"
	}
	if c.PasswordAccountAttempts < c.PasswordAttempts {
		errs = append(errs, fmt.Errorf("%s must not be below %s: one address would be refused by the account's limit first",
			EnvPasswordAccountAttempts, EnvPasswordAttempts))
	}
	if c.RefreshTokenTTL <= c.AccessTokenTTL {
		errs = append(errs, fmt.Errorf("%s must be longer than %s", EnvRefreshTokenTTL, EnvAccessTokenTTL))
	}
	return c, errors.Join(errs...)
}

// LoadJWTKeys reads the access-token keys through get: JWT_SECRET with
// the optional JWT_PREVIOUS_SECRET and JWT_NEXT_SECRET, or JWT_SECRET_ARN
// instead of all three. The authorizer reads them through it too.
func LoadJWTKeys(get func(string) string) (JWTKeys, error) { return loadJWTKeys(get, true) }

func loadJWTKeys(get func(string) string, require bool) (JWTKeys, error) {
	var errs []error
	secret := func(name string) []byte {
		v := strings.TrimSpace(get(name))
		if v == "" {
			return nil
		}
		if len(v) < MinJWTSecretBytes {
			errs = append(errs, fmt.Errorf("%s must be at least %d bytes", name, MinJWTSecretBytes))
		}
		return []byte(v)
	}
	k := JWTKeys{
		JWTSecret:         secret(EnvJWTSecret),
		JWTPreviousSecret: secret(EnvJWTPreviousSecret),
		JWTNextSecret:     secret(EnvJWTNextSecret),
		JWTSecretARN:      strings.TrimSpace(get(EnvJWTSecretARN)),
		JWTKeysRefresh:    DefaultJWTKeysRefresh,
	}
	if v := strings.TrimSpace(get(EnvJWTKeysRefresh)); v != "" {
		d, err := time.ParseDuration(v)
		if err != nil || d < time.Second {
			errs = append(errs, fmt.Errorf("%s must be a Go duration of 1s or more such as 5m, got %q", EnvJWTKeysRefresh, v))
		} else {
			k.JWTKeysRefresh = d
		}
	}
	variables := len(k.JWTSecret) > 0 || len(k.JWTPreviousSecret) > 0 || len(k.JWTNextSecret) > 0
	switch {
	case k.JWTSecretARN != "" && variables:
		errs = append(errs, fmt.Errorf("%s replaces %s, %s and %s: set either", EnvJWTSecretARN, EnvJWTSecret, EnvJWTPreviousSecret, EnvJWTNextSecret))
	case require && k.None():
		errs = append(errs, ErrNoJWTKeys)
	}
	return k, errors.Join(errs...)
}

// None reports whether no signing key is configured: neither JWT_SECRET
// nor JWT_SECRET_ARN (LoadWithoutKeys). A previous or next key alone
// signs nothing.
func (k JWTKeys) None() bool { return k.JWTSecretARN == "" && len(k.JWTSecret) == 0 }
