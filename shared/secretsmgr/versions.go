package secretsmgr

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/secretsmanager"
	"github.com/aws/aws-sdk-go-v2/service/secretsmanager/types"
)

// stagePrevious is the stage Secrets Manager leaves on the version a new
// AWSCURRENT replaced.
const stagePrevious = "AWSPREVIOUS"

// Versions holds the values of a plain-string secret that a peer may
// still be sending: its AWSCURRENT and AWSPREVIOUS versions. It is the
// API front door's origin secret (ORIGIN_VERIFY_SECRET_ARN), which
// CloudFront takes by dynamic reference only when the stack is deployed:
// after a new value is put, CloudFront sends the old one (now AWSPREVIOUS)
// until the next deploy and the new one (AWSCURRENT) after it, and a
// function must admit both meanwhile, whether it started before the put
// or after. Like the Keyring, it reads the secret again in the
// background once its values are older than the refresh interval, so a
// process that started before the put learns the new value before the
// deploy that gives it to CloudFront ends (a CloudFront update takes
// minutes); a failed read keeps the values held (logged).
type Versions struct {
	*holder[[]string]
	api    GetSecretValueAPI
	arn    string
	check  func(string) error
	logger *slog.Logger
}

// NewVersions reads the secret arn once, and fails if its current value
// cannot be read or check refuses it. A previous value check refuses is
// left out (logged). now may be nil for the wall clock.
func NewVersions(ctx context.Context, api GetSecretValueAPI, arn string, refresh time.Duration, check func(string) error, logger *slog.Logger, now func() time.Time) (*Versions, error) {
	if logger == nil {
		logger = slog.Default()
	}
	if check == nil {
		check = func(string) error { return nil }
	}
	v := &Versions{api: api, arn: arn, check: check, logger: logger}
	h, err := newHolder(ctx, "origin secret", arn, refresh, v.read, logger, now)
	if err != nil {
		return nil, err
	}
	v.holder = h
	return v, nil
}

// Values returns the values held, the current one first, starting a
// background read when they are due for one.
func (v *Versions) Values() []string { return v.get() }

// read fetches the current value and, when there is one, the previous.
func (v *Versions) read(ctx context.Context) ([]string, error) {
	current, err := v.stage(ctx, stageCurrent)
	if err != nil {
		return nil, err
	}
	if err := v.check(current); err != nil {
		return nil, fmt.Errorf("secret %s: %w", v.arn, err)
	}
	values := []string{current}
	previous, err := v.stage(ctx, stagePrevious)
	var missing *types.ResourceNotFoundException
	switch {
	case errors.As(err, &missing):
		// a secret never changed has no previous version
	case err != nil:
		return nil, err
	case previous == current:
	case v.check(previous) != nil:
		v.logger.Warn("secret: its previous value is refused; admitting the current one only", "secret", v.arn, "error", v.check(previous).Error())
	default:
		values = append(values, previous)
	}
	return values, nil
}

func (v *Versions) stage(ctx context.Context, stage string) (string, error) {
	out, err := v.api.GetSecretValue(ctx, &secretsmanager.GetSecretValueInput{SecretId: aws.String(v.arn), VersionStage: aws.String(stage)})
	if err != nil {
		return "", fmt.Errorf("read secret %s (%s): %w", v.arn, stage, err)
	}
	return aws.ToString(out.SecretString), nil
}
