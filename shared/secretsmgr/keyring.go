package secretsmgr

import (
	"context"
	"fmt"
	"log/slog"
	"sync/atomic"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/secretsmanager"
	"github.com/bookplatform/backend/shared/auth"
	"github.com/bookplatform/backend/shared/config"
)

// NewClient is the Secrets Manager client of an AWS configuration.
func NewClient(cfg aws.Config) *secretsmanager.Client {
	return secretsmanager.NewFromConfig(cfg)
}

// GetSecretValueAPI is the one call the keyring makes.
type GetSecretValueAPI interface {
	GetSecretValue(ctx context.Context, in *secretsmanager.GetSecretValueInput, opts ...func(*secretsmanager.Options)) (*secretsmanager.GetSecretValueOutput, error)
}

// refreshTimeout bounds one background read of the secret.
const refreshTimeout = 5 * time.Second

// Keyring holds the keys of the secret's current version and reads the
// secret again once they are older than its refresh interval: the read
// runs in the background, at most one at a time, and requests go on with
// the keys held meanwhile. A read that fails keeps the keys held (logged)
// and is tried again an interval later.
type Keyring struct {
	api     GetSecretValueAPI
	arn     string
	refresh time.Duration
	logger  *slog.Logger
	now     func() time.Time

	held    atomic.Pointer[held]
	reading atomic.Bool
}

type held struct {
	keys auth.KeySet
	at   time.Time // when they were read (or a read last failed)
}

var _ auth.Keyring = (*Keyring)(nil)

// NewKeyring reads the secret arn once, and fails if it cannot: a process
// without keys can neither sign nor verify. now may be nil for the wall
// clock.
func NewKeyring(ctx context.Context, api GetSecretValueAPI, arn string, refresh time.Duration, logger *slog.Logger, now func() time.Time) (*Keyring, error) {
	if now == nil {
		now = time.Now
	}
	if logger == nil {
		logger = slog.Default()
	}
	k := &Keyring{api: api, arn: arn, refresh: refresh, logger: logger, now: now}
	keys, err := k.read(ctx)
	if err != nil {
		return nil, err
	}
	k.held.Store(&held{keys: keys, at: now()})
	return k, nil
}

// Keys returns the keys held, starting a background read when they are
// due for one.
func (k *Keyring) Keys() auth.KeySet {
	h := k.held.Load()
	if k.now().Sub(h.at) >= k.refresh && k.reading.CompareAndSwap(false, true) {
		go func() {
			defer k.reading.Store(false)
			ctx, cancel := context.WithTimeout(context.Background(), refreshTimeout)
			defer cancel()
			_ = k.Refresh(ctx)
		}()
	}
	return h.keys
}

// Refresh reads the secret now. On failure the keys held stay, and the
// next read is an interval away.
func (k *Keyring) Refresh(ctx context.Context) error {
	keys, err := k.read(ctx)
	if err != nil {
		k.logger.Warn("signing keys: reading the secret failed; keeping the keys held", "secret", k.arn, "error", err.Error())
		k.held.Store(&held{keys: k.held.Load().keys, at: k.now()})
		return err
	}
	k.held.Store(&held{keys: keys, at: k.now()})
	return nil
}

// read fetches and parses the current version of the secret.
func (k *Keyring) read(ctx context.Context) (auth.KeySet, error) {
	out, err := k.api.GetSecretValue(ctx, &secretsmanager.GetSecretValueInput{SecretId: aws.String(k.arn)})
	if err != nil {
		return auth.KeySet{}, fmt.Errorf("read signing-key secret %s: %w", k.arn, err)
	}
	v, err := ParseValue(aws.ToString(out.SecretString))
	if err != nil {
		return auth.KeySet{}, fmt.Errorf("%s: %w", k.arn, err)
	}
	return v.KeySet()
}

// LoadKeyring is the keyring the configuration names: the secret of
// JWT_SECRET_ARN (through a client made from awsCfg, which is called only
// then), or the fixed set of JWT_SECRET, JWT_PREVIOUS_SECRET and
// JWT_NEXT_SECRET.
func LoadKeyring(ctx context.Context, keys config.JWTKeys, awsCfg func(context.Context) (aws.Config, error), logger *slog.Logger) (auth.Keyring, error) {
	if keys.JWTSecretARN == "" {
		return auth.NewKeySet(keys.JWTSecret, keys.JWTPreviousSecret, keys.JWTNextSecret)
	}
	cfg, err := awsCfg(ctx)
	if err != nil {
		return nil, err
	}
	return NewKeyring(ctx, NewClient(cfg), keys.JWTSecretARN, keys.JWTKeysRefresh, logger, nil)
}
