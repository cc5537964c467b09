package dynamo

import (
	"context"
	"errors"
	"fmt"

	"github.com/bookplatform/backend/shared/webhooks"
	"github.com/guregu/dynamo/v2"
)

// The fan-out's and the delivery worker's calls (shared/webhooks,
// fanout.go and deliver.go): a store's endpoints, a delivery put once,
// and each attempt recorded with what it changes of its endpoint.

// maxStoreEndpoints bounds the read of a store's endpoints: the
// settings allow at most 100 (webhooks.SettingsFrom).
const maxStoreEndpoints = 100

// StoreEndpoints reads every endpoint of a store, active or not: one
// strongly consistent Query of the store's partition (WEBHOOK# prefix),
// so an endpoint created just before an event is seen by its fan-out.
func (w *Webhooks) StoreEndpoints(ctx context.Context, storeID string) ([]*webhooks.Endpoint, error) {
	var items []webhookEndpointItem
	err := w.t.table.Get(AttrPK, StoreKey(storeID).PK).Range(AttrSK, dynamo.BeginsWith, webhookEndpointPrefix).
		Consistent(true).Limit(maxStoreEndpoints).All(ctx, &items)
	if err != nil {
		return nil, fmt.Errorf("query webhook endpoints of store %s: %w", storeID, err)
	}
	out := make([]*webhooks.Endpoint, len(items))
	for i, it := range items {
		out[i] = it.endpoint()
	}
	return out, nil
}

// PutDelivery puts d unless its delivery exists (its id is the event's
// and the endpoint's: webhooks.DeliveryID): a fan-out run again for an
// event creates nothing twice. It returns the stored delivery (d when
// created, else the one found) and whether it was created.
func (w *Webhooks) PutDelivery(ctx context.Context, d *webhooks.Delivery) (*webhooks.Delivery, bool, error) {
	err := w.t.put(toWebhookDeliveryItem(d)).If("attribute_not_exists(PK)").Run(ctx)
	switch {
	case err == nil:
		return d, true, nil
	case !dynamo.IsCondCheckFailed(err):
		return nil, false, fmt.Errorf("put webhook delivery %s: %w", d.ID, err)
	}
	found, err := w.Delivery(ctx, d.EndpointID, d.ID)
	if err != nil {
		return nil, false, err
	}
	return found, false, nil
}

// SaveDelivery writes d after an attempt (its status, attempts, history,
// next attempt), conditional on the stored delivery being at d.Version,
// and with it, when e is not nil, e's failure count and standing
// (consecutiveFailures, status, disabledReason, disabledAt), conditional
// on the stored endpoint being at e.Version: one transaction, so an
// endpoint's count moves exactly once per delivery that fails for good.
// Both versions are increased (d's and e's fields are updated in
// place). Errors: webhooks.ErrChanged (either was changed meanwhile:
// read again and decide again).
func (w *Webhooks) SaveDelivery(ctx context.Context, d *webhooks.Delivery, e *webhooks.Endpoint) error {
	prev := d.Version
	d.Version++
	d.UpdatedAt = w.t.now().UTC()
	put := w.t.put(toWebhookDeliveryItem(d)).If("$ = ?", "version", prev)
	var err error
	if e == nil {
		err = put.Run(ctx)
		if dynamo.IsCondCheckFailed(err) {
			err = webhooks.ErrChanged
		}
	} else {
		k := WebhookEndpointKey(e.StoreID, e.ID)
		upd := w.t.update(k).Set("consecutiveFailures", e.ConsecutiveFailures).Set("status", string(e.Status)).
			Set("updatedAt", d.UpdatedAt).Add("version", 1).If("$ = ?", "version", e.Version)
		if e.Status == webhooks.Disabled {
			upd = upd.Set("disabledReason", e.DisabledReason).Set("disabledAt", e.DisabledAt)
		}
		err = w.t.tx().put(put, webhooks.ErrChanged).update(upd, webhooks.ErrChanged).run(ctx)
		if err == nil {
			e.Version++
			e.UpdatedAt = d.UpdatedAt
		}
	}
	if err != nil {
		d.Version = prev
		if errors.Is(err, webhooks.ErrChanged) {
			return err
		}
		return fmt.Errorf("save webhook delivery %s: %w", d.ID, err)
	}
	return nil
}
