package sesmail_test

import (
	"context"
	"log/slog"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/credentials"
	"github.com/bookplatform/backend/local/maillocal"
	"github.com/bookplatform/backend/shared/callstats"
	"github.com/bookplatform/backend/shared/config"
	"github.com/bookplatform/backend/shared/effects"
	"github.com/bookplatform/backend/shared/mail"
	"github.com/bookplatform/backend/shared/mail/sesmail"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// standIn is the SES stand-in over real HTTP and a sender reading vars,
// as a function reads its environment: the adapter's calls go through
// the SDK's own serialization, so what passes here is what SES is sent.
func standIn(t *testing.T, vars map[string]string) (*maillocal.Server, *sesmail.Sender, *config.Env) {
	t.Helper()
	ses := maillocal.New()
	srv := httptest.NewServer(ses)
	t.Cleanup(srv.Close)
	cfg := aws.Config{Region: "us-east-1", Credentials: credentials.NewStaticCredentialsProvider("test", "test", ""), BaseEndpoint: aws.String(srv.URL)}
	env := config.NewEnv(func(k string) string { return vars[k] })
	return ses, sesmail.FromConfig(cfg, env, slog.New(slog.DiscardHandler)), env
}

func order() mail.Message {
	return mail.Message{
		To: "Reader Example <reader@example.com>", Subject: "Your order BP-1042 is confirmed – thank you",
		Text: "Items:\n- Middlemarch ×1\nTotal: €12.50\n", HTML: `<p>Items: <b>Middlemarch</b> &times;1</p><p>Total: &euro;12.50</p>`,
		Headers: map[string]string{"List-Unsubscribe": "<https://api.example/v1/notifications/unsubscribe?token=t>", "List-Unsubscribe-Post": "List-Unsubscribe=One-Click"},
		Tag:     "order-confirmation",
	}
}

// A message is sent as SES receives it: from MAIL_FROM, under the
// configuration set, with both bodies in UTF-8, its headers and its kind
// as a message tag; the id is SES's.
func TestSend(t *testing.T) {
	// GIVEN a sender with a sending identity and a configuration set
	ses, s, env := standIn(t, map[string]string{mail.EnvFrom: "Böökplatform <no-reply@mail.bookplatform.example>", mail.EnvConfigurationSet: "bookplatform-mail"})
	require.NoError(t, env.Err())
	// WHEN it sends an order confirmation
	id, err := s.Send(context.Background(), order())
	// THEN SES recorded it once, as sent
	require.NoError(t, err)
	msgs := ses.Messages()
	require.Len(t, msgs, 1)
	m := msgs[0]
	assert.Equal(t, id, m.ID)
	assert.Equal(t, []string{"\"Reader Example\" <reader@example.com>"}, m.To)
	assert.True(t, m.SentTo("reader@example.com"))
	assert.Equal(t, maillocal.StatusDelivered, m.Recipients[0].Status)
	assert.Equal(t, "=?utf-8?q?B=C3=B6=C3=B6kplatform?= <no-reply@mail.bookplatform.example>", m.From, "a non-ASCII display name is RFC 2047 encoded, as SES requires")
	assert.Equal(t, order().Subject, m.Subject)
	assert.Equal(t, order().Text, m.Text)
	assert.Equal(t, order().HTML, m.HTML)
	assert.Equal(t, "bookplatform-mail", m.ConfigurationSet)
	assert.Equal(t, "order-confirmation", m.Kind())
	assert.Equal(t, "List-Unsubscribe=One-Click", m.Header("List-Unsubscribe-Post"))
	assert.Equal(t, "<https://api.example/v1/notifications/unsubscribe?token=t>", m.Header("list-unsubscribe"))
}

// Without MAIL_FROM the sender is mail.DefaultFrom, and without a
// configuration set none is named (the local run); a message's own From
// wins.
func TestSend_defaults(t *testing.T) {
	ses, s, _ := standIn(t, nil)
	_, err := s.Send(context.Background(), order())
	require.NoError(t, err)
	m := ses.Messages()[0]
	assert.Equal(t, `"Book Platform" <no-reply@bookplatform.example>`, m.From)
	assert.Empty(t, m.ConfigurationSet)

	own := order()
	own.From = "Store <store@bookplatform.example>"
	_, err = s.Send(context.Background(), own)
	require.NoError(t, err)
	assert.Equal(t, `"Store" <store@bookplatform.example>`, ses.Messages()[1].From)
}

// An address that bounced is on the suppression list: Suppressed says
// so, and Send refuses it with mail.ErrSuppressed and sends nothing; an
// address SES does not know (NotFoundException) is not suppressed.
func TestSuppressed(t *testing.T) {
	ctx := context.Background()
	ses, s, _ := standIn(t, nil)

	// GIVEN a message to SES's simulated bouncing mailbox, which is delivered as a bounce
	bounce := order()
	bounce.To = maillocal.SimulatorBounce
	_, err := s.Send(ctx, bounce)
	require.NoError(t, err)
	assert.Equal(t, maillocal.StatusBounced, ses.Messages()[0].Recipients[0].Status)

	// THEN the address is suppressed, and a reader's is not
	got, err := s.Suppressed(ctx, maillocal.SimulatorBounce)
	require.NoError(t, err)
	assert.True(t, got)
	got, err = s.Suppressed(ctx, "Reader <reader@example.com>")
	require.NoError(t, err)
	assert.False(t, got)

	// AND a second message to it is refused before SES is asked to send
	_, err = s.Send(ctx, bounce)
	assert.ErrorIs(t, err, mail.ErrSuppressed)
	assert.Len(t, ses.Messages(), 1)

	// AND so is one to an address a test marked bounced, after its first bounce; and to a complaint's
	for _, addr := range []string{"gone@example.com", maillocal.SimulatorComplaint} {
		ses.MarkBounced("gone@example.com")
		m := order()
		m.To = addr
		_, err = s.Send(ctx, m)
		require.NoError(t, err)
		_, err = s.Send(ctx, m)
		assert.ErrorIs(t, err, mail.ErrSuppressed, addr)
	}
	// AND SES's suppression-list address is refused at once
	m := order()
	m.To = maillocal.SimulatorSuppressed
	_, err = s.Send(ctx, m)
	assert.ErrorIs(t, err, mail.ErrSuppressed)
}

// The sender's calls are recorded with the IAM actions that mail.Actions
// grants (the stack grants exactly those to a function with mail
// actions), and a send is a side effect: refused in a read-only context.
func TestCallsAndActions(t *testing.T) {
	_, s, _ := standIn(t, nil)
	ctx, rec := callstats.With(context.Background())
	_, err := s.Send(ctx, order())
	require.NoError(t, err)
	var actions []string
	for _, c := range rec.Calls() {
		actions = append(actions, c.Actions...)
	}
	assert.ElementsMatch(t, mail.Actions, actions)

	_, err = s.Send(effects.ReadOnly(context.Background()), order())
	assert.ErrorIs(t, err, effects.ErrReadOnly)
}

// MAIL_SENDING=off (a deployment without a sending identity) sends
// nothing and asks SES nothing: the email is logged and answered as sent
// with an "unsent-" id. Bad settings are start-up errors naming their
// variable.
func TestSendingOff(t *testing.T) {
	ses, s, env := standIn(t, map[string]string{sesmail.EnvSending: "off"})
	require.NoError(t, env.Err())
	id, err := s.Send(context.Background(), order())
	require.NoError(t, err)
	assert.True(t, strings.HasPrefix(id, sesmail.UnsentPrefix), id)
	sup, err := s.Suppressed(context.Background(), maillocal.SimulatorSuppressed)
	require.NoError(t, err)
	assert.False(t, sup)
	assert.Empty(t, ses.Messages())

	_, _, env = standIn(t, map[string]string{sesmail.EnvSending: "maybe", mail.EnvFrom: "not an address"})
	err = env.Err()
	require.Error(t, err)
	assert.Contains(t, err.Error(), sesmail.EnvSending)
	assert.Contains(t, err.Error(), mail.EnvFrom)
}

// A message without a recipient, subject or body is refused before any
// call.
func TestSend_invalid(t *testing.T) {
	ses, s, _ := standIn(t, nil)
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	for name, edit := range map[string]func(*mail.Message){
		"no recipient": func(m *mail.Message) { m.To = "" },
		"no subject":   func(m *mail.Message) { m.Subject = " " },
		"no body":      func(m *mail.Message) { m.Text, m.HTML = "", "" },
		"bad from":     func(m *mail.Message) { m.From = "nobody" },
	} {
		m := order()
		edit(&m)
		_, err := s.Send(ctx, m)
		assert.Error(t, err, name)
	}
	assert.Empty(t, ses.Messages())
}
