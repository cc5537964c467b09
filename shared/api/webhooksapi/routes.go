// Package webhooksapi is the webhooks endpoint group: a store's owner
// registers the endpoints the store's events are delivered to (a URL and
// the event types it wants), lists, changes, disables and deletes them,
// rotates an endpoint's signing secret, sends it a test event, and reads
// and redelivers its recent deliveries. The deliveries themselves are
// made elsewhere (the outbox relay's fan-out and the webhooks queue's
// worker); this group writes a test event to the outbox and queues a
// redelivery, nothing more.
//
// Every route is the store owner's (httpapi.StoreOwner by the slug in
// the path), checked by the router; no handler here checks a role.
package webhooksapi

import (
	"context"
	"encoding/json"
	"net/http"

	"github.com/bookplatform/backend/shared/api"
	"github.com/bookplatform/backend/shared/dynamo"
	"github.com/bookplatform/backend/shared/events"
	"github.com/bookplatform/backend/shared/httpapi"
	"github.com/bookplatform/backend/shared/page"
	"github.com/bookplatform/backend/shared/queues"
	"github.com/bookplatform/backend/shared/queues/sqsqueue"
	"github.com/bookplatform/backend/shared/webhooks"
)

// handler serves the webhooks group.
type handler struct {
	svc *webhooks.Service
}

// owner: the owner of the store the path names.
var owner = httpapi.StoreOwner(httpapi.SlugInPath("slug"))

// Group is the webhooks group. Its calls, after the role check's read of
// the store: a creation is one TransactWriteItems (a ConditionCheck that
// the store is not being deleted, the endpoint's Put, the count's
// Update bounded by the limit); the list one Query of the store's
// partition; a read, a change (a GetItem, then a Put conditional on the
// version), a deletion (a TransactWriteItems of the Delete and the
// count's Update) and a rotation read or write one endpoint; a test
// event is the endpoint's GetItem, then a TransactWriteItems of a
// ConditionCheck (still active) and the outbox's Put; the deliveries'
// routes read the endpoint and then its deliveries (a Query, or a
// GetItem), and a redelivery updates the delivery (UpdateItem) before it
// sends the attempt to the webhooks queue.
func Group(d api.Deps) api.Group {
	settings := webhooks.SettingsFrom(d.Env)
	h := &handler{svc: webhooks.NewService(dynamo.NewWebhooks(d.Table), queueOf(d), settings, d.Now)}
	cursor := []httpapi.Param{
		{Name: "status", Type: "string", Enum: []string{string(webhooks.Pending), string(webhooks.Succeeded), string(webhooks.Failed)},
			About: "only the deliveries of this status"},
		{Name: "cursor", Type: "string", About: "nextCursor of the previous page"},
		httpapi.LimitParam(page.DefaultLimit, page.MaxLimit),
	}
	notFound := map[int]string{404: "no store has the slug, or it has no endpoint with this id."}
	base := httpapi.V1("/stores/{slug}/webhooks")
	one := base + "/{id}"
	return api.Group{
		Name: "webhooks",
		Table: []string{"dynamodb:ConditionCheckItem", "dynamodb:DeleteItem", "dynamodb:GetItem", "dynamodb:PutItem", "dynamodb:Query",
			"dynamodb:UpdateItem"},
		Sends: []queues.Name{queues.Webhooks},
		Emits: []events.Declaration{webhooks.TestEvent},
		Routes: []httpapi.Route{
			{Method: http.MethodPost, Path: base, Auth: httpapi.AuthBearer, Role: owner, Idempotent: true, Handler: h.create,
				Doc: httpapi.Doc{Summary: "Register a webhook endpoint: the store's events of the listed types (all when none) are delivered to its URL, signed with its secret (shown in full here and on rotation only)",
					Body: createRequest{}, Response: webhookEndpointWithSecret{}, Status: http.StatusCreated, Errors: []int{400},
					Why: map[int]string{400: "a bad url (not https, a private address, ...) or description, an unknown event type (named), or the store already has as many endpoints as it may (details.limit)."}}},
			{Method: http.MethodGet, Path: base, Auth: httpapi.AuthBearer, Role: owner, Handler: h.list,
				Doc: httpapi.Doc{Summary: "The store's webhook endpoints, newest first (without their secrets)", Response: listResponse{}}},
			{Method: http.MethodGet, Path: one, Auth: httpapi.AuthBearer, Role: owner, Handler: h.get,
				Doc: httpapi.Doc{Summary: "One webhook endpoint (without its secret)", Response: webhookEndpoint{}, Errors: []int{404}, Why: notFound}},
			{Method: http.MethodPut, Path: one, Auth: httpapi.AuthBearer, Role: owner, Handler: h.update,
				Doc: httpapi.Doc{Summary: "Change a webhook endpoint: its URL, event types, description, or enable or disable it (fields left out stay as they are; enabling clears its failures)",
					Body: updateRequest{}, Response: webhookEndpoint{}, Errors: []int{400, 404, 409},
					Why: map[int]string{404: notFound[404], 409: "other changes of the endpoint kept coming between its read and its write; retry."}}},
			{Method: http.MethodDelete, Path: one, Auth: httpapi.AuthBearer, Role: owner, Handler: h.delete,
				Doc: httpapi.Doc{Summary: "Delete a webhook endpoint: nothing more is delivered to it, and its deliveries are no longer listed",
					Response: httpapi.Success{}, Errors: []int{404}, Why: notFound}},
			{Method: http.MethodPost, Path: one + "/rotate-secret", Auth: httpapi.AuthBearer, Role: owner, Handler: h.rotate,
				Doc: httpapi.Doc{Summary: "Give a webhook endpoint a new signing secret (shown in full here only); the old one keeps signing beside it until previousSecretExpiresAt",
					Response: webhookEndpointWithSecret{}, Errors: []int{404, 409},
					Why: map[int]string{404: notFound[404], 409: "other changes of the endpoint kept coming between its read and its write; retry."}}},
			{Method: http.MethodPost, Path: one + "/test", Auth: httpapi.AuthBearer, Role: owner, Handler: h.test,
				Doc: httpapi.Doc{Summary: "Send a webhook.test event to one endpoint, through the same outbox and delivery as every event; its delivery appears in the endpoint's deliveries",
					Response: testResponse{}, Status: http.StatusAccepted, Errors: []int{400, 404},
					Why: map[int]string{400: "the endpoint is disabled (it receives nothing).", 404: notFound[404]}}},
			{Method: http.MethodGet, Path: one + "/deliveries", Auth: httpapi.AuthBearer, Role: owner, Handler: h.deliveries,
				Doc: httpapi.Doc{Summary: "An endpoint's recent deliveries (the last 30 days), newest first: status, attempts, the last response code and error",
					Query: cursor, Response: httpapi.CursorBody[webhookDelivery]{}, Errors: []int{400, 404}, Why: notFound}},
			{Method: http.MethodGet, Path: one + "/deliveries/{deliveryId}", Auth: httpapi.AuthBearer, Role: owner, Handler: h.delivery,
				Doc: httpapi.Doc{Summary: "One delivery: the payload sent and each attempt (time, response code, error, duration)",
					Response: webhookDeliveryDetail{}, Errors: []int{404},
					Why: map[int]string{404: "no store has the slug, it has no endpoint with this id, or the endpoint no delivery with deliveryId."}}},
			{Method: http.MethodPost, Path: one + "/deliveries/{deliveryId}/redeliver", Auth: httpapi.AuthBearer, Role: owner, Handler: h.redeliver,
				Doc: httpapi.Doc{Summary: "Try a delivery that succeeded or failed once more, now (one attempt, no automatic retries after it); it is pending until that attempt ends",
					Response: webhookDelivery{}, Status: http.StatusAccepted, Errors: []int{400, 404, 409},
					Why: map[int]string{
						400: "the endpoint is disabled (it receives nothing).",
						404: "no store has the slug, it has no endpoint with this id, or the endpoint no delivery with deliveryId.",
						409: "the delivery is still pending (its attempts are under way), or it changed meanwhile.",
					}}},
		},
	}
}

// queueOf sends a redelivery's attempt to the webhooks queue. The
// queue's URL is read when the group is built, from what the
// configuration was read from; a missing one fails the request that
// needs it, naming the variable (the local run creates its queues after
// it checks the groups' settings), as extposapi's sender does.
func queueOf(d api.Deps) webhooks.AttemptQueue {
	var s *sqsqueue.Sender
	var err error
	if d.Table.DB != nil {
		getenv := func(n string) string { return d.Config.Env().String(n) }
		s, err = sqsqueue.NewSender(sqsqueue.NewClient(d.AWS), getenv, queues.Webhooks)
	}
	return func(ctx context.Context, m webhooks.Message) error {
		if s == nil {
			return err
		}
		body, merr := json.Marshal(m)
		if merr != nil {
			return merr
		}
		return s.Send(ctx, queues.Webhooks, body, m.MessageKey())
	}
}
