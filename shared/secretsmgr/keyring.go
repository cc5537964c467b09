package secretsmgr

import (
	"context"
	"fmt"
	"log/slog"
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
	*holder[auth.KeySet]
	api GetSecretValueAPI
	arn string
}

var _ auth.Keyring = (*Keyring)(nil)

// NewKeyring reads the secret arn once, and fails if it cannot: a process
// without keys can neither sign nor verify. now may be nil for the wall
// clock.
func NewKeyring(ctx context.Context, api GetSecretValueAPI, arn string, refresh time.Duration, logger *slog.Logger, now func() time.Time) (*Keyring, error) {
	k := &Keyring{api: api, arn: arn}
	h, err := newHolder(ctx, "signing keys", arn, refresh, k.read, logger, now)
	if err != nil {
		return nil, err
	}
	k.holder = h
	return k, nil
}

// Keys returns the keys held, starting a background read when they are
// due for one.
func (k *Keyring) Keys() auth.KeySet { return k.get() }

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
