package extpos

import (
	"context"
	"fmt"
	"net/url"
	"sort"
	"time"

	"github.com/bookplatform/backend/shared/config"
)

// The integration's settings (config.Env), read by the extpos group (its
// routes) and the possync group (its worker): where the Square-compatible
// service is and the application's OAuth client, so Square's sandbox
// (https://connect.squareupsandbox.com), production or the local stand-in
// work unchanged.
const (
	EnvBaseURL      = "EXTPOS_BASE_URL"      // the service's base URL, default Square's sandbox
	EnvClientID     = "EXTPOS_CLIENT_ID"     // the application's id
	EnvClientSecret = "EXTPOS_CLIENT_SECRET" // the application's secret (the local run)
	// EnvClientSecretARN names a Secrets Manager secret holding the
	// application's secret instead (AWS: the stack sets it), read at run
	// time (ManagedSecret).
	EnvClientSecretARN = "EXTPOS_CLIENT_SECRET_ARN"
	// EnvRedirectURL is this API's callback as registered with the
	// application: <API>/v1/integrations/extpos/callback.
	EnvRedirectURL = "EXTPOS_REDIRECT_URL"
	// EnvKMSKeyID, when set, seals the stored tokens with KMS envelope
	// encryption under that key (AWS); unset, with a local key derived
	// from the signing keys (the local run and the tests).
	EnvKMSKeyID = "EXTPOS_KMS_KEY_ID"
	// EnvCurrency is the currency of exported prices (default USD).
	EnvCurrency = "EXTPOS_CURRENCY"

	DefaultBaseURL     = "https://connect.squareupsandbox.com"
	DefaultRedirectURL = "http://localhost:8080/v1/integrations/extpos/callback"
	DefaultCurrency    = "USD"
)

// Settings are the integration's settings.
type Settings struct {
	BaseURL, ClientID, ClientSecret, RedirectURL string
	// ClientSecretARN, when set, replaces ClientSecret: the groups give
	// the adapter a ManagedSecret reading it (ClientSecretFrom).
	ClientSecretARN string
	// ClientSecretFrom, when set, is where the adapter gets the client
	// secret at the time of each exchange or refresh.
	ClientSecretFrom func(context.Context) (string, error)
	KMSKeyID         string
	Currency         string
	// StateTTL is how long a connect's state may come back (default 10m).
	StateTTL time.Duration
}

// DefaultStateTTL is how long an authorisation may take.
const DefaultStateTTL = 10 * time.Minute

// ReadSettings reads the settings through env (nil: the defaults).
func ReadSettings(env *config.Env) Settings {
	s := Settings{
		BaseURL: env.String(EnvBaseURL), ClientID: env.String(EnvClientID), ClientSecret: env.String(EnvClientSecret),
		RedirectURL: env.String(EnvRedirectURL), KMSKeyID: env.String(EnvKMSKeyID), Currency: env.String(EnvCurrency),
		ClientSecretARN: env.String(EnvClientSecretARN), StateTTL: DefaultStateTTL,
	}
	if s.ClientSecret != "" && s.ClientSecretARN != "" {
		env.Fail(fmt.Errorf("%s replaces %s: set either", EnvClientSecretARN, EnvClientSecret))
	}
	if s.BaseURL == "" {
		s.BaseURL = DefaultBaseURL
	}
	if s.RedirectURL == "" {
		s.RedirectURL = DefaultRedirectURL
	}
	if s.Currency == "" {
		s.Currency = DefaultCurrency
	}
	for name, v := range map[string]string{EnvBaseURL: s.BaseURL, EnvRedirectURL: s.RedirectURL} {
		if u, err := url.Parse(v); err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" {
			env.Fail(fmt.Errorf("%s must be an absolute http(s) URL, got %q", name, v))
		}
	}
	return s
}

func sortedKeys[V any](m map[string]V) []string {
	out := make([]string, 0, len(m))
	for k := range m {
		out = append(out, k)
	}
	sort.Strings(out)
	return out
}
