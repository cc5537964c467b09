// Package possyncapi is the possync worker group: the consumer of the
// pos-sync queue, which runs the external point-of-sale syncs the extpos
// group records and sends (shared/extpos: Service.RunJob). It has no
// routes: its function is an SQS-triggered Lambda in AWS and a poller on
// the local run, with the same handler (shared/worker).
package possyncapi

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"slices"

	"github.com/bookplatform/backend/shared/api"
	"github.com/bookplatform/backend/shared/dynamo"
	"github.com/bookplatform/backend/shared/extpos"
	"github.com/bookplatform/backend/shared/extpos/kmsseal"
	"github.com/bookplatform/backend/shared/inventory"
	"github.com/bookplatform/backend/shared/queues"
	"github.com/bookplatform/backend/shared/secretsmgr"
	"github.com/bookplatform/backend/shared/worker"
)

// Group is the possync worker group. Its calls: GetItem for the job, the
// connection, a store item and a book; PutItem for the job's outcome;
// UpdateItem for refreshed tokens; Query for the store's items (export);
// BatchGetItem for books by ISBN and by id and the store's items by book;
// and Set's transactions (PutItem, UpdateItem, ConditionCheckItem), with
// inventory.updated events in the outbox. KMS (Decrypt, GenerateDataKey)
// when EXTPOS_KMS_KEY_ID is set; Secrets Manager (GetSecretValue) for the
// client secret when EXTPOS_CLIENT_SECRET_ARN is (a token refresh).
func Group(d api.Deps) api.Group {
	settings := extpos.ReadSettings(d.Env).WithManagedSecret(secretsmgr.NewClient(d.AWS), d.Now)
	keys := func() [][]byte {
		if d.Keys == nil {
			return nil
		}
		return d.Keys.Keys().Secrets()
	}
	store := dynamo.NewExtPos(d.Table)
	svc := extpos.NewService(extpos.Deps{
		Square: extpos.NewSquare(settings, nil, d.Now),
		States: &extpos.States{Keys: keys, TTL: settings.StateTTL, Used: store, Now: d.Now},
		Sealer: kmsseal.Choose(settings, d.AWS, keys), Store: store,
		Stock: dynamo.NewInventory(d.Table), Books: dynamo.NewBooks(d.Table), Currency: settings.Currency, Now: d.Now,
	})
	return api.Group{
		Name: "possync",
		Table: []string{"dynamodb:GetItem", "dynamodb:PutItem", "dynamodb:UpdateItem", "dynamodb:Query", "dynamodb:BatchGetItem",
			"dynamodb:ConditionCheckItem"},
		Emits: inventory.Events,
		Seals: append(slices.Clone(kmsseal.SealActions), kmsseal.OpenActions...),
		Worker: &api.Worker{Queue: queues.POSSync, BatchSize: 1, Handle: func(ctx context.Context, m worker.Message) error {
			var msg extpos.Message
			if err := json.Unmarshal(m.Body, &msg); err != nil || msg.StoreID == "" || msg.JobID == "" {
				// A malformed message never succeeds: keep it out of the
				// queue's way by failing it to the dead-letter queue.
				return fmt.Errorf("possync: malformed message %s: %q", m.ID, m.Body)
			}
			err := svc.RunJob(ctx, msg)
			if err != nil && m.ReceiveCount >= queues.MaxReceiveCount {
				// The last receipt: the job says it failed, rather
				// than queued for ever once the message is dead-lettered.
				if ferr := svc.GiveUp(context.WithoutCancel(ctx), msg, "The sync failed after repeated attempts: "+err.Error()); ferr != nil {
					return errors.Join(err, ferr)
				}
			}
			return err
		}},
	}
}
