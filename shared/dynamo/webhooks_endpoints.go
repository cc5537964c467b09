package dynamo

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/bookplatform/backend/shared/events"
	"github.com/bookplatform/backend/shared/page"
	"github.com/bookplatform/backend/shared/webhooks"
	"github.com/guregu/dynamo/v2"
)

// The owner's management of endpoints (webhooks.Store): the routes of
// shared/api/webhooksapi.

// webhookCountItem is how many endpoints a store has.
type webhookCountItem struct {
	PK    string `dynamo:"PK"`
	SK    string `dynamo:"SK"`
	Type  string `dynamo:"type"`
	Count int    `dynamo:"count"`
}

// Create stores e and counts it in one transaction: the count's
// condition keeps a store at max however many creations race, and the
// store's check refuses a store being deleted (its deletion removes the
// endpoints it finds; one created after its mark would stay behind).
// Errors: webhooks.ErrLimit, storehost.ErrStoreNotFound (from the
// check).
func (w *Webhooks) Create(ctx context.Context, e *webhooks.Endpoint, max int) error {
	x := w.t.tx()
	w.t.storeNotDeleting(x, e.StoreID)
	x.put(w.t.put(toWebhookEndpointItem(e)).If("attribute_not_exists(PK)"), errIDTaken).
		update(w.t.update(WebhookCountKey(e.StoreID)).Add("count", 1).Set("type", typeWebhookCount).
			If("attribute_not_exists(PK) OR $ < ?", "count", max), webhooks.ErrLimit)
	if err := x.run(ctx); err != nil {
		return fmt.Errorf("create webhook endpoint: %w", err)
	}
	return nil
}

// Endpoints reads every endpoint of a store: one strongly consistent
// Query of its partition (the limit keeps it to a page).
func (w *Webhooks) Endpoints(ctx context.Context, storeID string) ([]*webhooks.Endpoint, error) {
	var items []webhookEndpointItem
	err := w.t.table.Get(AttrPK, StoreKey(storeID).PK).Range(AttrSK, dynamo.BeginsWith, webhookEndpointPrefix).
		Consistent(true).All(ctx, &items)
	if err != nil {
		return nil, fmt.Errorf("list webhook endpoints of store %s: %w", storeID, err)
	}
	out := make([]*webhooks.Endpoint, len(items))
	for i, it := range items {
		out[i] = it.endpoint()
	}
	return out, nil
}

// Replace writes e over the stored endpoint if that is still at
// e.Version-1 (optimistic: the delivery worker counts failures on the
// same item). Errors: webhooks.ErrEndpointNotFound, webhooks.ErrChanged.
func (w *Webhooks) Replace(ctx context.Context, e *webhooks.Endpoint) error {
	err := w.t.put(toWebhookEndpointItem(e)).If("attribute_exists(PK) AND version = ?", e.Version-1).Run(ctx)
	if dynamo.IsCondCheckFailed(err) {
		if _, rerr := w.Endpoint(ctx, e.StoreID, e.ID); errors.Is(rerr, webhooks.ErrEndpointNotFound) {
			return rerr
		}
		return webhooks.ErrChanged
	}
	if err != nil {
		return fmt.Errorf("write webhook endpoint %s: %w", e.ID, err)
	}
	return nil
}

// Delete removes an endpoint and uncounts it in one transaction. Its
// deliveries stay until their TTL (DeliveryKeep): nothing reads them once
// the endpoint is gone. Errors: webhooks.ErrEndpointNotFound.
func (w *Webhooks) Delete(ctx context.Context, storeID, id string) error {
	err := w.t.tx().
		delete(w.t.del(WebhookEndpointKey(storeID, id)).If("attribute_exists(PK)"), webhooks.ErrEndpointNotFound).
		update(w.t.update(WebhookCountKey(storeID)).Add("count", -1), nil).
		run(ctx)
	if err != nil {
		return fmt.Errorf("delete webhook endpoint %s: %w", id, err)
	}
	return nil
}

// RecordTest puts ev (webhook.test) in the outbox in a transaction that
// checks the endpoint is still there and active: a test of an endpoint
// deleted or disabled meanwhile records nothing. Errors:
// webhooks.ErrEndpointNotFound, webhooks.ErrDisabled.
func (w *Webhooks) RecordTest(ctx context.Context, e *webhooks.Endpoint, ev events.Event) error {
	err := w.t.tx().
		check(w.t.check(WebhookEndpointKey(e.StoreID, e.ID)).If("$ = ?", "status", string(webhooks.Active)), webhooks.ErrDisabled).
		emit(ev).
		run(ctx)
	if errors.Is(err, webhooks.ErrDisabled) {
		if _, rerr := w.Endpoint(ctx, e.StoreID, e.ID); errors.Is(rerr, webhooks.ErrEndpointNotFound) {
			return rerr
		}
	}
	if err != nil {
		return fmt.Errorf("record test event of webhook endpoint %s: %w", e.ID, err)
	}
	return nil
}

// endpointDeliveries is an endpoint's deliveries, newest first (their
// ids are version-7 UUIDs of their events' times), of one status when
// status is not empty.
func endpointDeliveries(endpointID string, status webhooks.DeliveryStatus) list {
	l := list{index: Primary, pk: WebhookDeliveryKey(endpointID, "").PK, prefix: webhookDeliveryPrefix, desc: true, consistent: true}
	if status != "" {
		l.filter, l.filterArgs = "$ = ?", []any{"status", string(status)}
	}
	return l
}

// Deliveries reads a page of an endpoint's deliveries, newest first: a
// Query of the endpoint's partition (filtered on status when given).
func (w *Webhooks) Deliveries(ctx context.Context, endpointID string, status webhooks.DeliveryStatus, c page.Cursor) (page.Page[*webhooks.Delivery], error) {
	return queryMapped(ctx, w.t, endpointDeliveries(endpointID, status), c, webhookDeliveryItem.delivery)
}

// MarkRedelivery makes d pending, its next attempt due at now, if it is
// still as read (its version and status): two redeliveries of one
// delivery at once queue one attempt. It returns the delivery as marked.
// Errors: webhooks.ErrChanged.
func (w *Webhooks) MarkRedelivery(ctx context.Context, d *webhooks.Delivery, now time.Time) (*webhooks.Delivery, error) {
	m := *d
	m.Status, m.NextAttemptAt, m.UpdatedAt, m.Version = webhooks.Pending, &now, now, d.Version+1
	err := w.t.update(WebhookDeliveryKey(d.EndpointID, d.ID)).
		Set("status", string(m.Status)).Set("nextAttemptAt", now.UTC()).Set("updatedAt", now.UTC()).
		Set("version", m.Version).Set(AttrTTL, now.Add(DeliveryKeep).Unix()).
		If("version = ? AND $ = ?", d.Version, "status", string(d.Status)).Run(ctx)
	if dynamo.IsCondCheckFailed(err) {
		return nil, webhooks.ErrChanged
	}
	if err != nil {
		return nil, fmt.Errorf("mark webhook delivery %s for redelivery: %w", d.ID, err)
	}
	return &m, nil
}

// UnmarkRedelivery puts a delivery marked for redelivery back as it was
// before (status and next attempt; the version moves on), if nothing
// touched it since the mark. Errors: webhooks.ErrChanged.
func (w *Webhooks) UnmarkRedelivery(ctx context.Context, before, marked *webhooks.Delivery) error {
	u := w.t.update(WebhookDeliveryKey(marked.EndpointID, marked.ID)).
		Set("status", string(before.Status)).Set("version", marked.Version+1)
	if before.NextAttemptAt != nil {
		u = u.Set("nextAttemptAt", before.NextAttemptAt.UTC())
	} else {
		u = u.Remove("nextAttemptAt")
	}
	err := u.If("version = ?", marked.Version).Run(ctx)
	if dynamo.IsCondCheckFailed(err) {
		return webhooks.ErrChanged
	}
	if err != nil {
		return fmt.Errorf("unmark webhook delivery %s: %w", marked.ID, err)
	}
	return nil
}

// webhookCountKeyPrefix begins the sort keys of a store's endpoints
// (WEBHOOK#<id>) and of their count (WEBHOOKCOUNT) alike: the store's
// deletion removes both with one prefix.
const webhookCountKeyPrefix = "WEBHOOK"
