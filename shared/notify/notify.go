// Package notify is what the service mails, when and to whom: from the
// order events of the outbox (shared/orders/events.go), the buyer's
// order confirmation, a shipped notice and a ready-for-pickup notice per
// store part, and the store's new-order email, sent at once or gathered
// into one daily digest by the store's setting (Settings); and from a
// bookstore application's decision (shared/applications), the
// applicant's approval or decline (applications.go). It is a relay
// consumer (Consumer, named "email") and the digest's scheduled job
// (Digest); the transport is a mail.Sender (SES in AWS, the local
// stand-in on the local run and in the tests).
//
// Each email is sent at most once to completion per kind, order (and
// store part) and recipient, under an idempotency record (worker.Once):
// an event's data is a snapshot of the order, not a transition, so the
// key names what the email is about rather than the event that showed
// it, which also makes it once per event (docs/decisions.md, "Email:
// once per order, part and recipient"). Nothing is sent to an address on
// the suppression list: that send is skipped and logged, not retried.
//
// The package imports neither AWS nor shared/dynamo: its storage is the
// Store interface (dynamo.Notifications), its wiring shared/notify/notifydeps.
package notify

import (
	"context"
	"errors"
	"time"

	"github.com/bookplatform/backend/shared/apperr"
)

// NewOrderEmail is how a store hears of a new order by email.
type NewOrderEmail string

// The store's choices; Immediate is the default.
const (
	Immediate NewOrderEmail = "immediate"
	Daily     NewOrderEmail = "daily"
	Off       NewOrderEmail = "off"
)

// Valid reports whether n is one of the choices.
func (n NewOrderEmail) Valid() bool { return n == Immediate || n == Daily || n == Off }

// Settings are a store's email settings (GET/PUT
// /v1/stores/{slug}/notification-settings). A store that never saved
// them has DefaultSettings.
type Settings struct {
	StoreID       string
	NewOrderEmail NewOrderEmail
	// Email is where the store's emails go; empty: its owner's account
	// email.
	Email     string
	UpdatedAt time.Time
}

// DefaultSettings are a store's settings before it saves any.
func DefaultSettings(storeID string) Settings {
	return Settings{StoreID: storeID, NewOrderEmail: Immediate}
}

// Kinds of email: the Tag of each message, and the first part of its
// once-key.
const (
	KindConfirmation   = "order-confirmation"
	KindShipped        = "order-shipped"
	KindReadyForPickup = "ready-for-pickup"
	KindStoreNewOrder  = "store-new-order"
	KindStoreDigest    = "store-digest"
	// kindDigestEntry is no email: the entry of a daily store's digest,
	// put once per order part.
	kindDigestEntry = "digest-entry"
)

// DigestEntry is one new order in a store's digest of a day.
type DigestEntry struct {
	StoreID     string
	Day         string // YYYY-MM-DD, UTC: the day the order was confirmed
	OrderID     string
	OrderNumber string
	// Items and TotalCents are the store's part of the order.
	Items      int
	TotalCents int64
	Fulfilment string
	At         time.Time
}

// Recipient is where a store's emails go, and the store as they name it.
type Recipient struct {
	StoreID, StoreName, StoreSlug string
	Email                         string
	Settings                      Settings
}

// Store is the storage notifications read and write (dynamo.Notifications).
type Store interface {
	// Settings reads a store's settings, DefaultSettings when it saved
	// none.
	Settings(ctx context.Context, storeID string) (Settings, error)
	// PutSettings saves a store's settings.
	PutSettings(ctx context.Context, s Settings) error
	// UserEmail is a user's account email; "" for a guest or a user that
	// no longer exists.
	UserEmail(ctx context.Context, userID string) (string, error)
	// StoreRecipient is where a store's emails go: its settings' email,
	// else its owner's account email (ErrNoStore when the store is gone).
	StoreRecipient(ctx context.Context, storeID string) (Recipient, error)
	// AddDigestEntry puts an entry in its store's digest of its day and
	// lists the store among that day's (both puts are idempotent).
	AddDigestEntry(ctx context.Context, e DigestEntry) error
	// DigestStores lists the stores with a digest on day.
	DigestStores(ctx context.Context, day string) ([]string, error)
	// DigestEntries lists a store's entries of day, oldest first.
	DigestEntries(ctx context.Context, storeID, day string) ([]DigestEntry, error)
}

// ErrNoStore is a store that no longer exists: nothing is mailed for it.
var ErrNoStore = errors.New("notify: the store no longer exists")

// ErrBadSettings is a PUT of settings with a bad value.
func errBadSettings(field, why string) error {
	return apperr.Validation("Invalid notification settings", map[string]string{field: why})
}
