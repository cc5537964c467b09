// Package notifydeps builds shared/notify's consumer and digest job from
// a function's api.Deps: its storage (dynamo.Notifications), its
// once-records (the idempotency store), its mail sender and its
// settings. It is apart from shared/notify, which imports neither
// shared/dynamo nor shared/api, so the storage can implement notify's
// types; the relay's registration (shared/relay/consumers.go) and the
// digest's function (functions/emaildigest) call it.
package notifydeps

import (
	"strings"

	"github.com/bookplatform/backend/shared/api"
	"github.com/bookplatform/backend/shared/dynamo"
	"github.com/bookplatform/backend/shared/mail"
	"github.com/bookplatform/backend/shared/notify"
)

// Settings of notifications.
const (
	// EnvPublicURL is the API's public base URL, which the digest's
	// unsubscribe link points at (https://api.example.com; on the local
	// run the local server's).
	EnvPublicURL = "NOTIFY_PUBLIC_URL"
	// DefaultPublicURL is its value when unset.
	DefaultPublicURL = "https://api.bookplatform.example"
)

// Table lists the IAM actions of the consumer's own calls (the relay
// adds its dedupe records' Get/Put/Delete and its UpdateItem): reads of
// the buyer, the store, its settings and its owner (GetItem), the
// digest entry's transaction of two puts and the emails' once-records
// (PutItem; a release is a DeleteItem, a duplicate's read a GetItem).
var Table = []string{"dynamodb:DeleteItem", "dynamodb:GetItem", "dynamodb:PutItem"}

// DigestTable lists the digest job's: the day's stores and each
// store's entries (Query of the table), the store, its settings and
// owner (GetItem), the digests' once-records (GetItem, PutItem,
// DeleteItem).
var DigestTable = []string{"dynamodb:DeleteItem", "dynamodb:GetItem", "dynamodb:PutItem", "dynamodb:Query"}

// Deps are notify's collaborators from a function's, sending through
// sender (sesmail.FromConfig in the functions). The sender is its
// caller's, so that the notifications group, which builds the tokens
// here, does not link SES.
func Deps(d api.Deps, sender mail.Sender) notify.Deps {
	from := ""
	if d.Env != nil {
		from = d.Env.String(mail.EnvFrom)
	}
	return notify.Deps{Store: dynamo.NewNotifications(d.Table), Sender: sender, Records: dynamo.NewIdempotency(d.Table),
		From: from, Now: d.Now, Logger: d.Logger}
}

// Consumer is the relay's "email" consumer.
func Consumer(d api.Deps, sender mail.Sender) *notify.Consumer {
	return notify.NewConsumer(Deps(d, sender))
}

// Tokens are the unsubscribe tokens, from the signing keys.
func Tokens(d api.Deps) notify.Tokens {
	return notify.Tokens{Keys: func() [][]byte {
		if d.Keys == nil {
			return nil
		}
		return d.Keys.Keys().Secrets()
	}}
}

// PublicURL is the API's base URL (EnvPublicURL), without a trailing slash.
func PublicURL(d api.Deps) string {
	u := DefaultPublicURL
	if d.Env != nil {
		if v := d.Env.String(EnvPublicURL); v != "" {
			u = v
		}
	}
	return strings.TrimRight(u, "/")
}

// Digest is the daily digest job.
func Digest(d api.Deps, sender mail.Sender) *notify.Digest {
	tokens, base := Tokens(d), PublicURL(d)
	return notify.NewDigest(Deps(d, sender), func(storeID string) string {
		t, err := tokens.Sign(storeID)
		if err != nil {
			// No key: the link is the page without a token, which
			// answers 400; the job started without keys only by a
			// misconfiguration (the stack grants it the keys).
			return notify.UnsubscribeURL(base, "")
		}
		return notify.UnsubscribeURL(base, t)
	})
}
