// Package mail is the service's outgoing email: one Message type, one
// Sender interface, served by Amazon SES v2 in AWS (shared/mail/sesmail)
// and by the local mail stand-in on the local run and in the tests
// (local/maillocal speaks the same SES API, so the SES adapter is what
// both use). What is sent, to whom and when is shared/notify's.
//
// The package imports no AWS package.
package mail

import (
	"context"
	"errors"
)

// Message is one email.
type Message struct {
	// From is the sender ("Book Platform <no-reply@...>"); empty: the
	// sender's configured address (EnvFrom).
	From string
	To   string
	// Subject, and the body in plain text and in HTML (both always).
	Subject string
	Text    string
	HTML    string
	// Headers are extra headers: List-Unsubscribe and
	// List-Unsubscribe-Post on a digest (RFC 8058).
	Headers map[string]string
	// Tag names the kind of email (order-confirmation, order-shipped,
	// ready-for-pickup, store-new-order, store-digest), for the
	// stand-in's list and SES's event tags.
	Tag string
}

// Sender sends email.
type Sender interface {
	// Send sends m and returns the provider's message id. Errors:
	// ErrSuppressed when the recipient is on the suppression list.
	Send(ctx context.Context, m Message) (string, error)
	// Suppressed reports whether address is on the suppression list (it
	// bounced or complained): nothing is sent to it.
	Suppressed(ctx context.Context, address string) (bool, error)
}

// ErrSuppressed is a recipient nothing may be sent to.
var ErrSuppressed = errors.New("mail: the address is on the suppression list (it bounced or complained)")

// Configuration variables of email.
const (
	// EnvFrom is the sender of every email (default DefaultFrom); in AWS
	// its domain must be a verified SES identity.
	EnvFrom = "MAIL_FROM"
	// EnvConfigurationSet is the SES configuration set emails are sent
	// with (the stack's, with bounce and complaint suppression).
	EnvConfigurationSet = "SES_CONFIGURATION_SET"
)

// DefaultFrom is the sender when MAIL_FROM is unset.
const DefaultFrom = "Book Platform <no-reply@bookplatform.example>"

// Actions are the SES actions of a sender (shared/mail/sesmail): sending,
// and reading the account's suppression list.
var Actions = []string{"ses:GetSuppressedDestination", "ses:SendEmail"}
