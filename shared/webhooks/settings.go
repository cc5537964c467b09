package webhooks

import (
	"fmt"
	"strings"
	"time"

	"github.com/bookplatform/backend/shared/config"
)

// Configuration variables of webhooks, read by the groups that manage
// endpoints (webhooksapi), fan events out (the relay's consumer) and
// deliver them (webhookdeliveryapi).
const (
	// EnvMaxEndpoints is how many endpoints one store may register
	// (default 10, 1 to 100).
	EnvMaxEndpoints = "WEBHOOK_MAX_ENDPOINTS"
	// EnvAllowPrivateTargets, true on the local run alone (make run sets
	// it; never in AWS), lets endpoints use http:// and private,
	// loopback and link-local addresses, so a receiver on 127.0.0.1
	// works. Otherwise only https:// to public addresses is accepted and
	// connected to.
	EnvAllowPrivateTargets = "WEBHOOK_ALLOW_PRIVATE_TARGETS"
	// EnvSecretGrace is how long a rotated-out secret keeps signing
	// deliveries beside the new one (default 24h).
	EnvSecretGrace = "WEBHOOK_SECRET_GRACE"
	// EnvTimeout is one attempt's deadline, connection to response
	// (default 10s).
	EnvTimeout = "WEBHOOK_TIMEOUT"
	// EnvRetrySchedule is the waits before each automatic retry after
	// the first attempt, comma-separated Go durations (default
	// DefaultRetrySchedule: 8 attempts over about 27 hours); each wait is
	// jittered by up to a fifth either way.
	EnvRetrySchedule = "WEBHOOK_RETRY_SCHEDULE"
	// EnvDisableAfter is how many deliveries in a row may fail for good
	// (every retry spent) before their endpoint is disabled (default 5).
	EnvDisableAfter = "WEBHOOK_DISABLE_AFTER_FAILURES"
)

// DefaultRetrySchedule is Standard Webhooks' recommended schedule: after
// the first attempt, retries 5 seconds, 5 minutes, 30 minutes, 2, 5, 10
// and 10 hours apart.
const DefaultRetrySchedule = "5s,5m,30m,2h,5h,10h,10h"

// Settings are webhooks' settings.
type Settings struct {
	MaxEndpoints        int
	AllowPrivateTargets bool
	SecretGrace         time.Duration
	Timeout             time.Duration
	// RetrySchedule are the waits before each retry: len+1 attempts in
	// all.
	RetrySchedule []time.Duration
	DisableAfter  int
}

// SettingsFrom reads the settings from env, each checked.
func SettingsFrom(env *config.Env) Settings {
	s := Settings{
		MaxEndpoints:        int(env.Int(EnvMaxEndpoints, 10, 1, 100)),
		AllowPrivateTargets: env.Bool(EnvAllowPrivateTargets, false),
		SecretGrace:         env.Duration(EnvSecretGrace, 24*time.Hour),
		Timeout:             env.Duration(EnvTimeout, 10*time.Second),
		DisableAfter:        int(env.Int(EnvDisableAfter, 5, 1, 1000)),
	}
	sched := env.String(EnvRetrySchedule)
	if sched == "" {
		sched = DefaultRetrySchedule
	}
	for _, p := range strings.Split(sched, ",") {
		d, err := time.ParseDuration(strings.TrimSpace(p))
		if err != nil || d <= 0 {
			env.Fail(fmt.Errorf("%s must be comma-separated positive Go durations such as %s, got %q", EnvRetrySchedule, DefaultRetrySchedule, sched))
			s.RetrySchedule = nil
			break
		}
		s.RetrySchedule = append(s.RetrySchedule, d)
	}
	if s.RetrySchedule == nil {
		s.RetrySchedule = []time.Duration{5 * time.Second}
	}
	if len(s.RetrySchedule) > 20 {
		env.Fail(fmt.Errorf("%s may list at most 20 waits, got %d", EnvRetrySchedule, len(s.RetrySchedule)))
	}
	return s
}
