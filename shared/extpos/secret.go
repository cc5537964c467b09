package extpos

import (
	"context"
	"errors"
	"fmt"
	"sync"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/secretsmanager"

	"github.com/bookplatform/backend/shared/secretsmgr"
)

// SecretRefresh is how often the client secret is read again from
// Secrets Manager: a new secret put by hand (after it was replaced in
// Square's developer dashboard) reaches every running function within it.
const SecretRefresh = 5 * time.Minute

// SecretRetry is how long a held value is used after a re-read failed
// before the next read: not every call (each under the lock) while
// Secrets Manager fails.
const SecretRetry = 30 * time.Second

// ManagedSecret is the OAuth client's secret read at run time from the
// Secrets Manager secret EXTPOS_CLIENT_SECRET_ARN names (its plain string
// value): the stack passes the ARN, never the value, which anyone who may
// read a function's configuration could read. It is read when first
// needed (the code exchange, a token refresh: connect and the sync's
// listing do without it), then again once SecretRefresh old; a read that
// fails keeps the value held for SecretRetry more, and fails the call
// only when none is.
type ManagedSecret struct {
	API secretsmgr.GetSecretValueAPI
	ARN string
	Now func() time.Time

	mu  sync.Mutex
	val string
	at  time.Time
}

// Get returns the secret's value.
func (m *ManagedSecret) Get(ctx context.Context) (string, error) {
	now := time.Now
	if m.Now != nil {
		now = m.Now
	}
	m.mu.Lock()
	defer m.mu.Unlock()
	if m.val != "" && now().Sub(m.at) < SecretRefresh {
		return m.val, nil
	}
	out, err := m.API.GetSecretValue(ctx, &secretsmanager.GetSecretValueInput{SecretId: aws.String(m.ARN)})
	if err == nil && aws.ToString(out.SecretString) == "" {
		err = errors.New("the value is empty")
	}
	if err != nil {
		if m.val != "" {
			m.at = now().Add(SecretRetry - SecretRefresh)
			return m.val, nil
		}
		return "", fmt.Errorf("%s: read secret %s: %w", EnvClientSecretARN, m.ARN, err)
	}
	m.val, m.at = aws.ToString(out.SecretString), now()
	return m.val, nil
}

// WithManagedSecret is s reading its client secret through api when
// ClientSecretARN is set (one ManagedSecret, shared by the adapter's
// calls), s as it is otherwise.
func (s Settings) WithManagedSecret(api secretsmgr.GetSecretValueAPI, now func() time.Time) Settings {
	if s.ClientSecretARN != "" {
		s.ClientSecretFrom = (&ManagedSecret{API: api, ARN: s.ClientSecretARN, Now: now}).Get
	}
	return s
}
