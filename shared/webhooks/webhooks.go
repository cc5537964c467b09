// Package webhooks is events out to the stores' own systems: a store's
// owner registers endpoints (a URL and the event types it wants), every
// event of the outbox that concerns the store is fanned out to its
// matching endpoints, one delivery per endpoint, and each delivery is
// sent by the webhooks queue's worker, signed per the Standard Webhooks
// specification, retried on its own with exponential backoff and
// jitter, and recorded (attempts, response codes) for the owner to see
// and redeliver.
//
// The pieces: the endpoints' management (Service, served by
// shared/api/webhooksapi); the fan-out, a consumer of the outbox relay
// (shared/relay); the delivery worker (shared/api/webhookdeliveryapi)
// over a client that refuses private, loopback, link-local and metadata
// addresses on the address it actually connects to (target.go). Storage
// is shared/dynamo's Webhooks.
//
// The package imports no AWS package.
package webhooks

import (
	"crypto/hmac"
	"crypto/rand"
	"crypto/sha256"
	"encoding/base64"
	"encoding/binary"
	"fmt"
	"strconv"
	"strings"
	"time"

	"github.com/bookplatform/backend/shared/apperr"
	"github.com/bookplatform/backend/shared/events"
	"github.com/bookplatform/backend/shared/follows"
	"github.com/bookplatform/backend/shared/inventory"
	"github.com/bookplatform/backend/shared/orders"
)

// Status is an endpoint's standing.
type Status string

// Endpoint statuses: a disabled endpoint receives nothing (its owner
// disabled it, or it kept failing: DisabledReason says which).
const (
	Active   Status = "active"
	Disabled Status = "disabled"
)

// Endpoint is one registered receiver of a store's events.
type Endpoint struct {
	ID      string
	StoreID string
	URL     string
	// Description is the owner's own note ("ERP sync"), up to 200
	// characters.
	Description string
	// Events are the event types it receives; empty means every type
	// (Types).
	Events []events.Type
	Status Status
	// DisabledReason says why a disabled endpoint is ("disabled by the
	// owner", or the failures that disabled it); DisabledAt when.
	DisabledReason string
	DisabledAt     *time.Time
	// Secret signs every delivery ("whsec_" + base64). After a rotation
	// PreviousSecret signs too, until PreviousSecretExpiresAt, so a
	// receiver that has not yet switched keeps verifying.
	Secret                  string
	PreviousSecret          string
	PreviousSecretExpiresAt *time.Time
	// ConsecutiveFailures counts the deliveries in a row that failed
	// for good (every retry spent); a success sets it to 0. At the
	// settings' DisableAfter the endpoint is disabled.
	ConsecutiveFailures  int
	CreatedAt, UpdatedAt time.Time
	// Version increases with every change (optimistic updates).
	Version int
}

// Wants reports whether e receives events of type t: it is active and
// subscribes to t (or to every type).
func (e *Endpoint) Wants(t events.Type) bool {
	if e.Status != Active {
		return false
	}
	if len(e.Events) == 0 {
		return true
	}
	for _, x := range e.Events {
		if x == t {
			return true
		}
	}
	return false
}

// Secrets are the secrets a delivery at now is signed with: the current
// one, and the previous one while its grace lasts.
func (e *Endpoint) Secrets(now time.Time) []string {
	out := []string{e.Secret}
	if e.PreviousSecret != "" && e.PreviousSecretExpiresAt != nil && now.Before(*e.PreviousSecretExpiresAt) {
		out = append(out, e.PreviousSecret)
	}
	return out
}

// DeliveryStatus is where a delivery stands.
type DeliveryStatus string

// Delivery statuses: pending until an attempt succeeds (succeeded) or
// the last retry fails (failed; the owner may redeliver it, which makes
// it pending again).
const (
	Pending   DeliveryStatus = "pending"
	Succeeded DeliveryStatus = "succeeded"
	Failed    DeliveryStatus = "failed"
)

// Attempt is one try of a delivery.
type Attempt struct {
	At time.Time
	// ResponseCode is the receiver's HTTP status (0: no response).
	ResponseCode int
	// Error says why an attempt failed without a 2xx ("timeout",
	// "refused: the address is private", "redirect not followed", "HTTP
	// 500"); empty on success.
	Error      string
	DurationMs int64
}

// Delivery is one event's delivery to one endpoint.
type Delivery struct {
	// ID is DeliveryID(EventID, EndpointID, event time): the same
	// however often the fan-out runs for the event, and ordered by the
	// event's time.
	ID         string
	EndpointID string
	StoreID    string
	EventID    string
	EventType  events.Type
	// Payload is the body sent: the event's envelope as JSON, its data
	// as the store may see it (StoreView).
	Payload []byte
	Status  DeliveryStatus
	// Attempts counts the attempts made; History keeps the newest
	// (at most MaxHistory), newest last.
	Attempts int
	History  []Attempt
	// NextAttemptAt is when the next automatic attempt is due (pending
	// deliveries only).
	NextAttemptAt *time.Time
	CreatedAt     time.Time
	UpdatedAt     time.Time
	// Version increases with every change (optimistic updates).
	Version int
}

// MaxHistory is how many attempts a delivery keeps.
const MaxHistory = 20

// Message is the body of a webhooks queue message (JSON): one attempt
// of one delivery. The message's key (queues.KeyAttribute), for the
// worker's idempotency record, is MessageKey.
type Message struct {
	DeliveryID string `json:"deliveryId"`
	EndpointID string `json:"endpointId"`
	// Attempt is the attempt this message makes (1 for the first).
	Attempt int `json:"attempt"`
	// NotBefore, when set, is when the attempt is due: SQS delays a
	// message 15 minutes at most, so a later retry travels in hops, each
	// delayed up to 15 minutes, until it is due. Hop counts them.
	NotBefore *time.Time `json:"notBefore,omitempty"`
	Hop       int        `json:"hop,omitempty"`
	// Manual marks an owner's redelivery: one attempt, no automatic
	// retries after it.
	Manual bool `json:"manual,omitempty"`
}

// MessageKey is m's idempotency key: one per delivery, attempt and hop,
// so a duplicate of a message is skipped and the next one is not.
func (m Message) MessageKey() string {
	k := m.DeliveryID + ":" + strconv.Itoa(m.Attempt) + ":" + strconv.Itoa(m.Hop)
	if m.Manual {
		k += ":manual"
	}
	return k
}

// DeliveryID is the id of eventID's delivery to endpointID: a UUID of
// version 7 whose time is the event's (at, to the millisecond) and whose
// other bits are a hash of the two ids, so the fan-out run again for the
// event finds the same delivery, and an endpoint's deliveries sort by
// their events' time.
func DeliveryID(eventID, endpointID string, at time.Time) string {
	var u [16]byte
	h := sha256.Sum256([]byte(eventID + "/" + endpointID))
	copy(u[:], h[:16])
	ms := uint64(at.UnixMilli())
	var t [8]byte
	binary.BigEndian.PutUint64(t[:], ms)
	copy(u[0:6], t[2:8])
	u[6] = 0x70 | (u[6] & 0x0f) // version 7
	u[8] = 0x80 | (u[8] & 0x3f) // RFC 9562 variant
	return fmt.Sprintf("%x-%x-%x-%x-%x", u[0:4], u[4:6], u[6:8], u[8:10], u[10:16])
}

// SecretPrefix begins every signing secret, as Standard Webhooks'
// libraries expect.
const SecretPrefix = "whsec_"

// NewSecret is a new signing secret: "whsec_" and the base64 of 32
// random bytes.
func NewSecret() string {
	b := make([]byte, 32)
	if _, err := rand.Read(b); err != nil {
		panic("webhooks: no randomness: " + err.Error())
	}
	return SecretPrefix + base64.StdEncoding.EncodeToString(b)
}

// The headers of a delivery (Standard Webhooks).
const (
	HeaderID        = "webhook-id"
	HeaderTimestamp = "webhook-timestamp"
	HeaderSignature = "webhook-signature"
)

// Sign is the webhook-signature header of a message: for each secret,
// "v1," and the base64 HMAC-SHA256, keyed by the secret's decoded bytes,
// of "id.timestamp.body" (timestamp in Unix seconds), space-separated.
// The id is the event's id (receivers deduplicate by it).
func Sign(secrets []string, id string, at time.Time, body []byte) (string, error) {
	var sigs []string
	for _, s := range secrets {
		key, err := base64.StdEncoding.DecodeString(strings.TrimPrefix(s, SecretPrefix))
		if err != nil {
			return "", fmt.Errorf("webhooks: a secret is not base64: %w", err)
		}
		mac := hmac.New(sha256.New, key)
		fmt.Fprintf(mac, "%s.%d.", id, at.Unix())
		mac.Write(body)
		sigs = append(sigs, "v1,"+base64.StdEncoding.EncodeToString(mac.Sum(nil)))
	}
	return strings.Join(sigs, " "), nil
}

// TestEvent is the event an owner sends to one endpoint to try it (POST
// /v1/stores/{slug}/webhooks/{id}/test): it goes through the outbox and
// the delivery path as every other event, to that endpoint alone.
var TestEvent = events.Declaration{
	Type: "webhook.test", Version: 1, Data: TestData{},
	Summary: "A test event the store's owner sent to one endpoint (POST /v1/stores/{slug}/webhooks/{id}/test)",
}

// TestData is the data of webhook.test.
type TestData struct {
	StoreID    string    `json:"storeId"`
	EndpointID string    `json:"endpointId"`
	Message    string    `json:"message"`
	SentAt     time.Time `json:"sentAt"`
}

// Types are the event types an endpoint may subscribe to, in the order
// the API lists them. webhook.test is not among them: it is sent to the
// endpoint it names whatever its subscriptions.
var Types = []events.Type{
	orders.CreatedEvent.Type, orders.UpdatedEvent.Type, inventory.UpdatedEvent.Type, follows.StoreFollowed.Type,
}

// Errors of endpoints and deliveries.
var (
	ErrEndpointNotFound = apperr.NotFound("Webhook endpoint not found")
	ErrDeliveryNotFound = apperr.NotFound("Webhook delivery not found")
)
