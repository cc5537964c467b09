package notifydeps

import (
	"context"
	"log/slog"

	"github.com/bookplatform/backend/shared/api"
	"github.com/bookplatform/backend/shared/mail"
)

// Sender is the functions' mail sender. MERGE: this branch was built
// beside the SES adapter (shared/mail/sesmail, part C of issue 21); the
// merge replaces this body with that adapter built from d (d.AWS reads
// AWS_ENDPOINT_URL_SESV2, the local stand-in's on the local run). Until
// then every message is logged, not sent, and no address is suppressed.
func Sender(d api.Deps) mail.Sender {
	l := d.Logger
	if l == nil {
		l = slog.Default()
	}
	return logSender{l}
}

type logSender struct{ l *slog.Logger }

func (s logSender) Send(_ context.Context, m mail.Message) (string, error) {
	s.l.Info("mail: not sent (no transport in this build)", "tag", m.Tag, "subject", m.Subject)
	return "", nil
}

func (s logSender) Suppressed(context.Context, string) (bool, error) { return false, nil }
