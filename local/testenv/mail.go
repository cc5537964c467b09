package testenv

import (
	"net/http/httptest"
	"testing"

	"github.com/bookplatform/backend/local/devserver"
	"github.com/bookplatform/backend/local/maillocal"
)

// unreachableSES is the SES endpoint of an environment without WithMail:
// a port nothing listens on, so a send fails at once instead of reaching
// AWS with the test's dummy credentials.
const unreachableSES = "http://127.0.0.1:1"

// WithMail gives the environment the SES stand-in (local/maillocal): the
// app's SES client (shared/mail/sesmail, built from Env.AWS) sends to it,
// Env.Mail holds what was sent, and the server serves its list at
// maillocal.Prefix, as `make run` does. Without it, a send fails.
func WithMail() Option {
	return func(s *settings) { s.mail = true }
}

// setUpMail starts the stand-in when s asks for it, and returns it, the
// SES endpoint the app's clients use, and the server's mount of the
// stand-in's pages.
func setUpMail(tb testing.TB, s settings) (*maillocal.Server, string, []devserver.Mount) {
	if !s.mail {
		return nil, unreachableSES, nil
	}
	var opts []maillocal.Option
	if s.now != nil {
		opts = append(opts, maillocal.WithClock(s.now))
	}
	m := maillocal.New(opts...)
	srv := httptest.NewServer(m)
	tb.Cleanup(srv.Close)
	return m, srv.URL, []devserver.Mount{{Prefix: maillocal.Prefix, Handler: m}}
}
