// Package sesmail is the mail.Sender over Amazon SES (API v2): one
// SendEmail per message, with Simple content (subject, text and HTML
// bodies, extra headers), from MAIL_FROM, under the configuration set
// SES_CONFIGURATION_SET (the stack's, which suppresses bounces and
// complaints). It is apart from shared/mail so that only the functions
// that send email (those with mail actions) link the SES client.
//
// The endpoint comes from the SDK's standard AWS_ENDPOINT_URL_SESV2: the
// local run and the tests point it at local/maillocal, which speaks the
// same calls, so this adapter is what every environment runs.
package sesmail

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"errors"
	"fmt"
	"log/slog"
	netmail "net/mail"
	"slices"
	"strings"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/sesv2"
	"github.com/aws/aws-sdk-go-v2/service/sesv2/types"
	"github.com/bookplatform/backend/shared/callstats"
	"github.com/bookplatform/backend/shared/config"
	"github.com/bookplatform/backend/shared/mail"
)

// EnvSending says whether email is sent: "ses" (the default) sends
// through SES; "off" sends nothing, and each email is logged (recipient,
// subject, kind) and answered with an id starting "unsent-", as sent. The
// stack sets "off" on a deployment without a sending identity (context
// mailFromDomain unset, README "Deploying"): its functions may not call
// SES, and an email that could never leave is better logged once than
// retried until its event ages out.
const EnvSending = "MAIL_SENDING"

// Values of EnvSending.
const (
	SendingSES = "ses"
	SendingOff = "off"
)

// UnsentPrefix starts the id of an email that sending "off" did not send.
const UnsentPrefix = "unsent-"

// charset of every part: the templates write UTF-8, and SES encodes a
// subject with a charset as RFC 2047 asks.
const charset = "UTF-8"

// TagName is the SES message tag carrying mail.Message.Tag (the kind of
// email), which SES's event destinations and the local stand-in show.
const TagName = "kind"

// Settings are the sender's settings.
type Settings struct {
	// From is the sender of a message without its own (MAIL_FROM,
	// default mail.DefaultFrom), as RFC 5322 writes it (a non-ASCII
	// display name encoded).
	From string
	// ConfigurationSet is SES_CONFIGURATION_SET ("" sends without one:
	// the local run).
	ConfigurationSet string
	// Off is MAIL_SENDING=off.
	Off bool
}

// ReadSettings reads the settings through env, recording a bad MAIL_FROM
// or MAIL_SENDING in env's errors (a start-up error, config.Env).
func ReadSettings(env *config.Env) Settings {
	s := Settings{From: mail.DefaultFrom, ConfigurationSet: env.String(mail.EnvConfigurationSet)}
	if v := env.String(mail.EnvFrom); v != "" {
		s.From = v
	}
	if a, err := netmail.ParseAddress(s.From); err != nil {
		env.Fail(fmt.Errorf("%s must be an email address such as %q, got %q", mail.EnvFrom, mail.DefaultFrom, s.From))
	} else {
		s.From = a.String()
	}
	switch v := strings.ToLower(env.String(EnvSending)); v {
	case "", SendingSES:
	case SendingOff:
		s.Off = true
	default:
		env.Fail(fmt.Errorf("%s must be %s or %s, got %q", EnvSending, SendingSES, SendingOff, v))
	}
	return s
}

// API is the subset of the SES v2 client the sender calls.
type API interface {
	SendEmail(ctx context.Context, in *sesv2.SendEmailInput, opts ...func(*sesv2.Options)) (*sesv2.SendEmailOutput, error)
	GetSuppressedDestination(ctx context.Context, in *sesv2.GetSuppressedDestinationInput, opts ...func(*sesv2.Options)) (*sesv2.GetSuppressedDestinationOutput, error)
}

// NewClient builds the SES v2 client. Every call goes through
// callstats.Middleware like every AWS call: recorded with its IAM action
// (ses:<Operation>, mail.Actions), and a send refused in a context that
// may have no side effects.
func NewClient(cfg aws.Config) *sesv2.Client {
	return sesv2.NewFromConfig(cfg, func(o *sesv2.Options) {
		o.APIOptions = append(o.APIOptions, callstats.Middleware("ses", nil))
	})
}

// Sender sends email through SES.
type Sender struct {
	client   API
	settings Settings
	logger   *slog.Logger
}

var _ mail.Sender = (*Sender)(nil)

// New returns a sender over client (NewClient) with settings
// (ReadSettings); logger records what sending "off" did not send.
func New(client API, settings Settings, logger *slog.Logger) *Sender {
	if logger == nil {
		logger = slog.Default()
	}
	return &Sender{client: client, settings: settings, logger: logger}
}

// FromConfig is New over a client built from awsCfg, with the settings
// read through env: what a function that sends email builds (api.Deps
// gives all three).
func FromConfig(awsCfg aws.Config, env *config.Env, logger *slog.Logger) *Sender {
	return New(NewClient(awsCfg), ReadSettings(env), logger)
}

// Settings are the sender's settings.
func (s *Sender) Settings() Settings { return s.settings }

// Send sends m: one check of the suppression list (Suppressed), then one
// SendEmail. It returns SES's message id.
//
// Errors: mail.ErrSuppressed (nothing was sent), a message without a
// recipient, subject or body, and SES's failures (an SES refusal, such as
// an unverified identity, is an smithy.APIError).
func (s *Sender) Send(ctx context.Context, m mail.Message) (string, error) {
	to, err := netmail.ParseAddress(m.To)
	if err != nil {
		return "", fmt.Errorf("mail: recipient %q: %w", m.To, err)
	}
	if strings.TrimSpace(m.Subject) == "" || (m.Text == "" && m.HTML == "") {
		return "", fmt.Errorf("mail: a message to %s needs a subject and a body", to.Address)
	}
	from := s.settings.From
	if m.From != "" {
		a, err := netmail.ParseAddress(m.From)
		if err != nil {
			return "", fmt.Errorf("mail: sender %q: %w", m.From, err)
		}
		from = a.String()
	}
	if s.settings.Off {
		id := UnsentPrefix + randomHex(12)
		s.logger.InfoContext(ctx, "email not sent: sending is off on this deployment ("+EnvSending+"="+SendingOff+")",
			"messageId", id, "to", to.Address, "subject", m.Subject, "kind", m.Tag)
		return id, nil
	}
	suppressed, err := s.Suppressed(ctx, to.Address)
	if err != nil {
		return "", err
	}
	if suppressed {
		return "", fmt.Errorf("%w: %s", mail.ErrSuppressed, to.Address)
	}
	msg := &types.Message{
		Subject: &types.Content{Data: aws.String(m.Subject), Charset: aws.String(charset)},
		Body:    &types.Body{},
		Headers: headers(m.Headers),
	}
	if m.Text != "" {
		msg.Body.Text = &types.Content{Data: aws.String(m.Text), Charset: aws.String(charset)}
	}
	if m.HTML != "" {
		msg.Body.Html = &types.Content{Data: aws.String(m.HTML), Charset: aws.String(charset)}
	}
	in := &sesv2.SendEmailInput{
		FromEmailAddress: aws.String(from),
		Destination:      &types.Destination{ToAddresses: []string{to.String()}},
		Content:          &types.EmailContent{Simple: msg},
	}
	if s.settings.ConfigurationSet != "" {
		in.ConfigurationSetName = aws.String(s.settings.ConfigurationSet)
	}
	if tag := tagValue(m.Tag); tag != "" {
		in.EmailTags = []types.MessageTag{{Name: aws.String(TagName), Value: aws.String(tag)}}
	}
	out, err := s.client.SendEmail(ctx, in)
	if err != nil {
		return "", fmt.Errorf("ses send email to %s: %w", to.Address, err)
	}
	return aws.ToString(out.MessageId), nil
}

// Suppressed reports whether address is on the account's suppression
// list (GetSuppressedDestination; SES answers NotFoundException for an
// address that is not). Sending "off" checks nothing: false.
func (s *Sender) Suppressed(ctx context.Context, address string) (bool, error) {
	if s.settings.Off {
		return false, nil
	}
	if a, err := netmail.ParseAddress(address); err == nil {
		address = a.Address
	}
	_, err := s.client.GetSuppressedDestination(ctx, &sesv2.GetSuppressedDestinationInput{EmailAddress: aws.String(address)})
	var nf *types.NotFoundException
	switch {
	case err == nil:
		return true, nil
	case errors.As(err, &nf):
		return false, nil
	default:
		return false, fmt.Errorf("ses suppression list, %s: %w", address, err)
	}
}

// headers are m's extra headers in name order (a stable message).
func headers(h map[string]string) []types.MessageHeader {
	if len(h) == 0 {
		return nil
	}
	names := make([]string, 0, len(h))
	for n := range h {
		names = append(names, n)
	}
	slices.Sort(names)
	out := make([]types.MessageHeader, 0, len(names))
	for _, n := range names {
		out = append(out, types.MessageHeader{Name: aws.String(n), Value: aws.String(h[n])})
	}
	return out
}

// tagValue is tag as SES accepts a tag value: ASCII letters, digits, _,
// - and . only, at most 256 characters (others become _).
func tagValue(tag string) string {
	var b strings.Builder
	for _, r := range tag {
		switch {
		case r >= 'a' && r <= 'z', r >= 'A' && r <= 'Z', r >= '0' && r <= '9', r == '_', r == '-', r == '.':
			b.WriteRune(r)
		default:
			b.WriteByte('_')
		}
		if b.Len() >= 256 {
			break
		}
	}
	return b.String()
}

func randomHex(n int) string {
	b := make([]byte, n)
	_, _ = rand.Read(b)
	return hex.EncodeToString(b)
}
