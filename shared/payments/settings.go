package payments

import (
	"context"
	"fmt"
	"log/slog"
	"net/url"
	"time"

	"github.com/bookplatform/backend/shared/apperr"
	"github.com/bookplatform/backend/shared/config"
	"github.com/bookplatform/backend/shared/secretsmgr"
)

// The provider's settings (config.Env), read by the groups that take
// payments (orders, the webhook receiver): where Stripe is and the
// account's keys, so Stripe (test or live mode) and the local stand-in
// (local/stripelocal) work unchanged.
const (
	// EnvStripeAPIKey is the account's secret key (sk_test_..., sk_live_...;
	// the local run and the tests: the stand-in's).
	EnvStripeAPIKey = "STRIPE_API_KEY"
	// EnvStripeAPIKeySecretARN names a Secrets Manager secret holding the
	// secret key instead (AWS: the stack sets it), read at run time
	// (secretsmgr.Managed): the function's configuration never shows it.
	EnvStripeAPIKeySecretARN = "STRIPE_API_KEY_SECRET_ARN"
	// EnvStripeWebhookSecret is the webhook endpoint's signing secret
	// (whsec_...), which verifies the Stripe-Signature header.
	EnvStripeWebhookSecret = "STRIPE_WEBHOOK_SECRET"
	// EnvStripeWebhookSecretARN names a Secrets Manager secret holding it
	// instead, read at run time.
	EnvStripeWebhookSecretARN = "STRIPE_WEBHOOK_SECRET_ARN"
	// EnvStripeAPIBase is the API's base URL; unset, Stripe's
	// (https://api.stripe.com). The local run and the tests set the
	// stand-in's.
	EnvStripeAPIBase = "STRIPE_API_BASE"
)

// Settings are the provider's settings.
type Settings struct {
	APIKey, APIKeySecretARN               string
	WebhookSecret, WebhookSecretSecretARN string
	// APIBase is "" for Stripe's own.
	APIBase string
}

// ReadSettings reads the settings through env (nil: unset, so not
// configured). A value and its ARN together, or an API base that is no
// absolute http(s) URL, are recorded on env as bad settings.
func ReadSettings(env *config.Env) Settings { return readSettings(env, true) }

// readSettings is ReadSettings; webhooks false leaves the webhook
// secret's settings unread, so a function that verifies no webhook is
// neither told the secret's ARN nor granted reading it (the stack gives
// a function the settings its group reads: groups.Function.Settings).
func readSettings(env *config.Env, webhooks bool) Settings {
	s := Settings{
		APIKey: env.String(EnvStripeAPIKey), APIKeySecretARN: env.String(EnvStripeAPIKeySecretARN),
		APIBase: env.String(EnvStripeAPIBase),
	}
	if webhooks {
		s.WebhookSecret, s.WebhookSecretSecretARN = env.String(EnvStripeWebhookSecret), env.String(EnvStripeWebhookSecretARN)
	}
	if s.APIKey != "" && s.APIKeySecretARN != "" {
		env.Fail(fmt.Errorf("%s replaces %s: set either", EnvStripeAPIKeySecretARN, EnvStripeAPIKey))
	}
	if s.WebhookSecret != "" && s.WebhookSecretSecretARN != "" {
		env.Fail(fmt.Errorf("%s replaces %s: set either", EnvStripeWebhookSecretARN, EnvStripeWebhookSecret))
	}
	if s.APIBase != "" {
		if u, err := url.Parse(s.APIBase); err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" {
			env.Fail(fmt.Errorf("%s must be an absolute http(s) URL, got %q", EnvStripeAPIBase, s.APIBase))
		}
	}
	return s
}

// Configured reports whether an API key is configured (its value or its
// secret's ARN): without one there is no provider.
func (s Settings) Configured() bool { return s.APIKey != "" || s.APIKeySecretARN != "" }

// ErrNotConfigured answers the routes that take payments on a deployment
// with no provider configured (503, not a crash at start: the rest of
// the API serves on).
var ErrNotConfigured = apperr.New(apperr.CodeUnavailable, "Payments are not configured on this deployment")

// Runtime is what a provider built from the settings uses beside them.
type Runtime struct {
	// Secrets reads the secrets the *_SECRET_ARN settings name
	// (secretsmgr.NewClient(d.AWS)); needed only when one is set.
	Secrets secretsmgr.GetSecretValueAPI
	// Logger receives stripe-go's own log lines (nil: slog.Default()).
	Logger *slog.Logger
	// Now is the clock secrets are refreshed by (nil: time.Now).
	Now func() time.Time
	// Webhooks: the provider verifies webhooks (ParseWebhook), so the
	// webhook secret's settings are read; false leaves them unread and
	// ParseWebhook answers ErrNotConfigured.
	Webhooks bool
}

// FromEnv is the provider the settings in env configure: Stripe's
// (NewStripe) when an API key is configured, else nil and
// ErrNotConfigured, which a group answers its payment routes with. Bad
// settings are recorded on env (the group's builder reports them at
// start).
func FromEnv(env *config.Env, rt Runtime) (Provider, error) {
	s := readSettings(env, rt.Webhooks)
	if !s.Configured() {
		return nil, ErrNotConfigured
	}
	return NewStripe(s, rt), nil
}

// secretSource is a secret's value: the setting's, or read through
// secretsmgr.Managed when its ARN is set; nil when neither is.
func secretSource(value, arn, arnEnv string, rt Runtime) func(context.Context) (string, error) {
	switch {
	case arn != "":
		m := &secretsmgr.Managed{API: rt.Secrets, ARN: arn, Name: arnEnv, Now: rt.Now}
		return m.Get
	case value != "":
		return func(context.Context) (string, error) { return value, nil }
	}
	return nil
}
