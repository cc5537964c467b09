package secretsmgr

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"slices"

	"github.com/aws/aws-lambda-go/events"
	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/secretsmanager"
	"github.com/aws/aws-sdk-go-v2/service/secretsmanager/types"
)

// RotationAPI is what the rotation function calls. Every call names the
// one secret it rotates (the stack grants exactly these on it).
type RotationAPI interface {
	GetSecretValueAPI
	DescribeSecret(ctx context.Context, in *secretsmanager.DescribeSecretInput, opts ...func(*secretsmanager.Options)) (*secretsmanager.DescribeSecretOutput, error)
	PutSecretValue(ctx context.Context, in *secretsmanager.PutSecretValueInput, opts ...func(*secretsmanager.Options)) (*secretsmanager.PutSecretValueOutput, error)
	UpdateSecretVersionStage(ctx context.Context, in *secretsmanager.UpdateSecretVersionStageInput, opts ...func(*secretsmanager.Options)) (*secretsmanager.UpdateSecretVersionStageOutput, error)
}

// The version stages of a rotation.
const (
	stageCurrent = "AWSCURRENT"
	stagePending = "AWSPENDING"
)

// Rotator runs the four steps Secrets Manager asks of a rotation
// function, each safe to repeat (Secrets Manager retries a failed step):
//
//   - createSecret: the rotated value (Value.Rotated) of the current
//     version becomes the pending version, under the rotation's token;
//   - setSecret: nothing; no other system holds the keys;
//   - testSecret: the pending version parses and its keys are sound;
//   - finishSecret: the pending version becomes current.
//
// Running processes pick the new version up at their next read
// (Keyring); new ones read it at start.
type Rotator struct {
	API RotationAPI
	// Fresh draws a new key; nil means NewKey.
	Fresh  func() (string, error)
	Logger *slog.Logger
}

// Handle is the Lambda handler of the rotation function.
func (r *Rotator) Handle(ctx context.Context, e events.SecretsManagerSecretRotationEvent) error {
	if e.SecretID == "" || e.ClientRequestToken == "" {
		return errors.New("rotation event without SecretId or ClientRequestToken")
	}
	desc, err := r.API.DescribeSecret(ctx, &secretsmanager.DescribeSecretInput{SecretId: aws.String(e.SecretID)})
	if err != nil {
		return fmt.Errorf("describe %s: %w", e.SecretID, err)
	}
	if !aws.ToBool(desc.RotationEnabled) {
		return fmt.Errorf("secret %s does not have rotation enabled", e.SecretID)
	}
	stages, ok := desc.VersionIdsToStages[e.ClientRequestToken]
	switch {
	case !ok:
		return fmt.Errorf("secret %s has no version %s to rotate to", e.SecretID, e.ClientRequestToken)
	case slices.Contains(stages, stageCurrent):
		r.logger().Info("rotation: version is current already", "secret", e.SecretID, "version", e.ClientRequestToken, "step", e.Step)
		return nil
	case !slices.Contains(stages, stagePending):
		return fmt.Errorf("secret %s version %s is not pending rotation", e.SecretID, e.ClientRequestToken)
	}

	switch e.Step {
	case "createSecret":
		return r.create(ctx, e)
	case "setSecret":
		return nil
	case "testSecret":
		return r.test(ctx, e)
	case "finishSecret":
		return r.finish(ctx, e, desc.VersionIdsToStages)
	default:
		return fmt.Errorf("unknown rotation step %q", e.Step)
	}
}

// create writes the rotated value as the pending version, unless a
// previous attempt of this step already did.
func (r *Rotator) create(ctx context.Context, e events.SecretsManagerSecretRotationEvent) error {
	if _, err := r.API.GetSecretValue(ctx, &secretsmanager.GetSecretValueInput{
		SecretId: aws.String(e.SecretID), VersionId: aws.String(e.ClientRequestToken), VersionStage: aws.String(stagePending),
	}); err == nil {
		return nil
	} else if rnf := (*types.ResourceNotFoundException)(nil); !errors.As(err, &rnf) {
		return fmt.Errorf("read pending version of %s: %w", e.SecretID, err)
	}
	cur, err := r.API.GetSecretValue(ctx, &secretsmanager.GetSecretValueInput{SecretId: aws.String(e.SecretID), VersionStage: aws.String(stageCurrent)})
	if err != nil {
		return fmt.Errorf("read current version of %s: %w", e.SecretID, err)
	}
	v, err := ParseValue(aws.ToString(cur.SecretString))
	if err != nil {
		return err
	}
	fresh := r.Fresh
	if fresh == nil {
		fresh = NewKey
	}
	next, err := v.Rotated(fresh)
	if err != nil {
		return err
	}
	if _, err := r.API.PutSecretValue(ctx, &secretsmanager.PutSecretValueInput{
		SecretId: aws.String(e.SecretID), ClientRequestToken: aws.String(e.ClientRequestToken),
		SecretString: aws.String(next.String()), VersionStages: []string{stagePending},
	}); err != nil {
		return fmt.Errorf("write pending version of %s: %w", e.SecretID, err)
	}
	r.logger().Info("rotation: pending version written", "secret", e.SecretID, "version", e.ClientRequestToken)
	return nil
}

// test checks that the pending version is a sound key set.
func (r *Rotator) test(ctx context.Context, e events.SecretsManagerSecretRotationEvent) error {
	out, err := r.API.GetSecretValue(ctx, &secretsmanager.GetSecretValueInput{
		SecretId: aws.String(e.SecretID), VersionId: aws.String(e.ClientRequestToken), VersionStage: aws.String(stagePending),
	})
	if err != nil {
		return fmt.Errorf("read pending version of %s: %w", e.SecretID, err)
	}
	_, err = ParseValue(aws.ToString(out.SecretString))
	return err
}

// finish moves AWSCURRENT to the pending version.
func (r *Rotator) finish(ctx context.Context, e events.SecretsManagerSecretRotationEvent, versions map[string][]string) error {
	var current string
	for id, stages := range versions {
		if slices.Contains(stages, stageCurrent) {
			current = id
		}
	}
	if _, err := r.API.UpdateSecretVersionStage(ctx, &secretsmanager.UpdateSecretVersionStageInput{
		SecretId: aws.String(e.SecretID), VersionStage: aws.String(stageCurrent),
		MoveToVersionId: aws.String(e.ClientRequestToken), RemoveFromVersionId: aws.String(current),
	}); err != nil {
		return fmt.Errorf("make version %s of %s current: %w", e.ClientRequestToken, e.SecretID, err)
	}
	r.logger().Info("rotation: new version is current", "secret", e.SecretID, "version", e.ClientRequestToken, "previous", current)
	return nil
}

func (r *Rotator) logger() *slog.Logger {
	if r.Logger == nil {
		return slog.Default()
	}
	return r.Logger
}
