package secretsmgr

import (
	"context"
	"errors"
	"fmt"
	"sync"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/secretsmanager"
)

// ManagedRefresh is how often a Managed secret is read again: a new value
// put by hand (after the secret was replaced at its issuer: Square's or
// Stripe's dashboard) reaches every running function within it.
const ManagedRefresh = 5 * time.Minute

// ManagedRetry is how long a held value is used after a re-read failed
// before the next read: not every call (each under the lock) while
// Secrets Manager fails.
const ManagedRetry = 30 * time.Second

// Managed is a secret issued by another service (the point-of-sale
// application's client secret, Stripe's API key and webhook signing
// secret), read at run time from the Secrets Manager secret ARN (its
// plain string value): the stack passes the ARN, never the value, which
// anyone who may read a function's configuration could read. It is read
// when first needed, then again once ManagedRefresh old; a read that
// fails keeps the value held for ManagedRetry more, and fails the call
// only when none is. Unlike the Keyring, nothing is read at start: a
// function that never needs the secret never reads it.
type Managed struct {
	API GetSecretValueAPI
	ARN string
	// Name is the variable that named ARN, for the error.
	Name string
	Now  func() time.Time

	mu  sync.Mutex
	val string
	at  time.Time
}

// Get returns the secret's value.
func (m *Managed) Get(ctx context.Context) (string, error) {
	now := time.Now
	if m.Now != nil {
		now = m.Now
	}
	m.mu.Lock()
	defer m.mu.Unlock()
	if m.val != "" && now().Sub(m.at) < ManagedRefresh {
		return m.val, nil
	}
	var out *secretsmanager.GetSecretValueOutput
	err := errors.New("no Secrets Manager client")
	if m.API != nil {
		out, err = m.API.GetSecretValue(ctx, &secretsmanager.GetSecretValueInput{SecretId: aws.String(m.ARN)})
	}
	if err == nil && aws.ToString(out.SecretString) == "" {
		err = errors.New("the value is empty")
	}
	if err != nil {
		if m.val != "" {
			m.at = now().Add(ManagedRetry - ManagedRefresh)
			return m.val, nil
		}
		return "", fmt.Errorf("%s: read secret %s: %w", m.Name, m.ARN, err)
	}
	m.val, m.at = aws.ToString(out.SecretString), now()
	return m.val, nil
}
