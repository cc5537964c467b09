package extpos

import (
	"time"

	"github.com/bookplatform/backend/shared/secretsmgr"
)

// SecretRefresh and SecretRetry are secretsmgr.Managed's: how often the
// client secret is read again, and how soon after a failed read.
const (
	SecretRefresh = secretsmgr.ManagedRefresh
	SecretRetry   = secretsmgr.ManagedRetry
)

// ManagedSecret is the OAuth client's secret read at run time from the
// Secrets Manager secret EXTPOS_CLIENT_SECRET_ARN names: read when first
// needed (the code exchange, a token refresh: connect and the sync's
// listing do without it), then as secretsmgr.Managed says.
type ManagedSecret = secretsmgr.Managed

// WithManagedSecret is s reading its client secret through api when
// ClientSecretARN is set (one ManagedSecret, shared by the adapter's
// calls), s as it is otherwise.
func (s Settings) WithManagedSecret(api secretsmgr.GetSecretValueAPI, now func() time.Time) Settings {
	if s.ClientSecretARN != "" {
		s.ClientSecretFrom = (&ManagedSecret{API: api, ARN: s.ClientSecretARN, Name: EnvClientSecretARN, Now: now}).Get
	}
	return s
}
