package dynamo

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"time"

	"github.com/bookplatform/backend/shared/events"
	"github.com/bookplatform/backend/shared/webhooks"
	"github.com/guregu/dynamo/v2"
)

// Webhooks is the storage of webhook endpoints and deliveries
// (shared/webhooks): a store's endpoints are items of its partition
// (WebhookEndpointKey) beside their count (WebhookCountKey); an
// endpoint's deliveries are a partition of their own
// (WebhookDeliveryKey), kept DeliveryKeep after their last change (TTL).
//
// Its methods are in webhooks_endpoints.go (the owner's routes) and
// webhooks_deliveries.go (the fan-out and the delivery worker).
type Webhooks struct{ t *table }

// NewWebhooks is the webhooks store.
func NewWebhooks(h Handle) *Webhooks { return &Webhooks{h.table()} }

// Item types of webhooks (data-model.md).
const (
	typeWebhookEndpoint = "WebhookEndpoint"
	typeWebhookCount    = "WebhookCount"
	typeWebhookDelivery = "WebhookDelivery"
)

// DeliveryKeep is how long a delivery is kept after its last change:
// the owner's list of recent deliveries reaches this far back.
const DeliveryKeep = 30 * 24 * time.Hour

// webhookEndpointItem is an endpoint as stored.
type webhookEndpointItem struct {
	PK                      string     `dynamo:"PK"`
	SK                      string     `dynamo:"SK"`
	Type                    string     `dynamo:"type"`
	ID                      string     `dynamo:"id"`
	StoreID                 string     `dynamo:"storeId"`
	URL                     string     `dynamo:"url"`
	Description             string     `dynamo:"description,omitempty"`
	Events                  []string   `dynamo:"events,omitempty"`
	Status                  string     `dynamo:"status"`
	DisabledReason          string     `dynamo:"disabledReason,omitempty"`
	DisabledAt              *time.Time `dynamo:"disabledAt,omitempty"`
	Secret                  string     `dynamo:"secret"`
	PreviousSecret          string     `dynamo:"previousSecret,omitempty"`
	PreviousSecretExpiresAt *time.Time `dynamo:"previousSecretExpiresAt,omitempty"`
	ConsecutiveFailures     int        `dynamo:"consecutiveFailures"`
	CreatedAt               time.Time  `dynamo:"createdAt"`
	UpdatedAt               time.Time  `dynamo:"updatedAt"`
	Version                 int        `dynamo:"version"`
}

func toWebhookEndpointItem(e *webhooks.Endpoint) webhookEndpointItem {
	k := WebhookEndpointKey(e.StoreID, e.ID)
	evs := make([]string, len(e.Events))
	for i, t := range e.Events {
		evs[i] = string(t)
	}
	return webhookEndpointItem{
		PK: k.PK, SK: k.SK, Type: typeWebhookEndpoint, ID: e.ID, StoreID: e.StoreID, URL: e.URL, Description: e.Description,
		Events: evs, Status: string(e.Status), DisabledReason: e.DisabledReason, DisabledAt: e.DisabledAt, Secret: e.Secret,
		PreviousSecret: e.PreviousSecret, PreviousSecretExpiresAt: e.PreviousSecretExpiresAt, ConsecutiveFailures: e.ConsecutiveFailures,
		CreatedAt: e.CreatedAt.UTC(), UpdatedAt: e.UpdatedAt.UTC(), Version: e.Version,
	}
}

func (it webhookEndpointItem) endpoint() *webhooks.Endpoint {
	evs := make([]events.Type, len(it.Events))
	for i, t := range it.Events {
		evs[i] = events.Type(t)
	}
	return &webhooks.Endpoint{
		ID: it.ID, StoreID: it.StoreID, URL: it.URL, Description: it.Description, Events: evs, Status: webhooks.Status(it.Status),
		DisabledReason: it.DisabledReason, DisabledAt: it.DisabledAt, Secret: it.Secret, PreviousSecret: it.PreviousSecret,
		PreviousSecretExpiresAt: it.PreviousSecretExpiresAt, ConsecutiveFailures: it.ConsecutiveFailures,
		CreatedAt: it.CreatedAt, UpdatedAt: it.UpdatedAt, Version: it.Version,
	}
}

// webhookAttemptItem is one attempt in a delivery's history.
type webhookAttemptItem struct {
	At           time.Time `dynamo:"at"`
	ResponseCode int       `dynamo:"responseCode"`
	Error        string    `dynamo:"error,omitempty"`
	DurationMs   int64     `dynamo:"durationMs"`
}

// webhookDeliveryItem is a delivery as stored; Payload is the body sent,
// as a string (the envelope's JSON).
type webhookDeliveryItem struct {
	PK            string               `dynamo:"PK"`
	SK            string               `dynamo:"SK"`
	Type          string               `dynamo:"type"`
	ID            string               `dynamo:"id"`
	EndpointID    string               `dynamo:"endpointId"`
	StoreID       string               `dynamo:"storeId"`
	EventID       string               `dynamo:"eventId"`
	EventType     string               `dynamo:"eventType"`
	Payload       string               `dynamo:"payload"`
	Status        string               `dynamo:"status"`
	Attempts      int                  `dynamo:"attempts"`
	History       []webhookAttemptItem `dynamo:"history,omitempty"`
	NextAttemptAt *time.Time           `dynamo:"nextAttemptAt,omitempty"`
	CreatedAt     time.Time            `dynamo:"createdAt"`
	UpdatedAt     time.Time            `dynamo:"updatedAt"`
	Version       int                  `dynamo:"version"`
	ExpiresAt     int64                `dynamo:"expiresAt"` // AttrTTL: UpdatedAt + DeliveryKeep
}

func toWebhookDeliveryItem(d *webhooks.Delivery) webhookDeliveryItem {
	k := WebhookDeliveryKey(d.EndpointID, d.ID)
	hist := make([]webhookAttemptItem, len(d.History))
	for i, a := range d.History {
		hist[i] = webhookAttemptItem{At: a.At.UTC(), ResponseCode: a.ResponseCode, Error: a.Error, DurationMs: a.DurationMs}
	}
	return webhookDeliveryItem{
		PK: k.PK, SK: k.SK, Type: typeWebhookDelivery, ID: d.ID, EndpointID: d.EndpointID, StoreID: d.StoreID, EventID: d.EventID,
		EventType: string(d.EventType), Payload: string(d.Payload), Status: string(d.Status), Attempts: d.Attempts, History: hist,
		NextAttemptAt: d.NextAttemptAt, CreatedAt: d.CreatedAt.UTC(), UpdatedAt: d.UpdatedAt.UTC(), Version: d.Version,
		ExpiresAt: d.UpdatedAt.Add(DeliveryKeep).Unix(),
	}
}

func (it webhookDeliveryItem) delivery() *webhooks.Delivery {
	hist := make([]webhooks.Attempt, len(it.History))
	for i, a := range it.History {
		hist[i] = webhooks.Attempt{At: a.At, ResponseCode: a.ResponseCode, Error: a.Error, DurationMs: a.DurationMs}
	}
	return &webhooks.Delivery{
		ID: it.ID, EndpointID: it.EndpointID, StoreID: it.StoreID, EventID: it.EventID, EventType: events.Type(it.EventType),
		Payload: json.RawMessage(it.Payload), Status: webhooks.DeliveryStatus(it.Status), Attempts: it.Attempts, History: hist,
		NextAttemptAt: it.NextAttemptAt, CreatedAt: it.CreatedAt, UpdatedAt: it.UpdatedAt, Version: it.Version,
	}
}

// Endpoint reads one endpoint of a store, strongly consistent. Errors:
// webhooks.ErrEndpointNotFound.
func (w *Webhooks) Endpoint(ctx context.Context, storeID, id string) (*webhooks.Endpoint, error) {
	var it webhookEndpointItem
	err := w.t.get(WebhookEndpointKey(storeID, id)).Consistent(true).One(ctx, &it)
	switch {
	case errors.Is(err, dynamo.ErrNotFound):
		return nil, webhooks.ErrEndpointNotFound
	case err != nil:
		return nil, fmt.Errorf("read webhook endpoint %s: %w", id, err)
	}
	return it.endpoint(), nil
}

// Delivery reads one delivery to an endpoint, strongly consistent.
// Errors: webhooks.ErrDeliveryNotFound.
func (w *Webhooks) Delivery(ctx context.Context, endpointID, id string) (*webhooks.Delivery, error) {
	var it webhookDeliveryItem
	err := w.t.get(WebhookDeliveryKey(endpointID, id)).Consistent(true).One(ctx, &it)
	switch {
	case errors.Is(err, dynamo.ErrNotFound):
		return nil, webhooks.ErrDeliveryNotFound
	case err != nil:
		return nil, fmt.Errorf("read webhook delivery %s: %w", id, err)
	}
	return it.delivery(), nil
}
