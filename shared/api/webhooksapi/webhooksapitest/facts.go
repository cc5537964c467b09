// Package webhooksapitest declares what the central tests need about
// the webhooks group (shared/api/apitest): its steps of the call
// benchmark's scenario (local/bench) and the rate-limit actions of its
// routes (shared/groups); and, for the group's own tests, a delivery as
// the delivery worker leaves one (DeliveryItem). Test support: no
// function links it.
package webhooksapitest

import (
	"encoding/json"
	"time"

	"github.com/bookplatform/backend/shared/api/apitest"
	"github.com/bookplatform/backend/shared/dynamo"
	"github.com/bookplatform/backend/shared/webhooks"
)

// DeliveryItem is the stored item of a delivery of an event of type
// inventory.updated to endpointID of storeID, at (its event's time),
// with one attempt that ended in status (succeeded: HTTP 200; failed:
// HTTP 500), as the fan-out and the worker write it (shared/dynamo's
// webhookDeliveryItem): the owner's routes read deliveries that no route
// makes. It returns the item and the delivery's id.
func DeliveryItem(storeID, endpointID, eventID string, status webhooks.DeliveryStatus, at time.Time) (map[string]any, string) {
	at = at.UTC()
	id := webhooks.DeliveryID(eventID, endpointID, at)
	k := dynamo.WebhookDeliveryKey(endpointID, id)
	payload, _ := json.Marshal(map[string]any{"id": eventID, "type": "inventory.updated", "version": 1, "time": at,
		"data": map[string]any{"storeId": storeID, "quantity": 3}})
	attempt := map[string]any{"at": at.Add(time.Second), "responseCode": 200, "durationMs": int64(42)}
	if status != webhooks.Succeeded {
		attempt["responseCode"], attempt["error"] = 500, "HTTP 500"
	}
	return map[string]any{
		dynamo.AttrPK: k.PK, dynamo.AttrSK: k.SK, "type": "WebhookDelivery", "id": id, "endpointId": endpointID, "storeId": storeID,
		"eventId": eventID, "eventType": "inventory.updated", "payload": string(payload), "status": string(status), "attempts": 1,
		"history": []any{attempt}, "createdAt": at, "updatedAt": at.Add(time.Second), "version": 2,
		dynamo.AttrTTL: at.Add(dynamo.DeliveryKeep).Unix(),
	}, id
}

// Facts are the webhooks group's steps and its routes' rate-limit
// actions: the bookseller registers an endpoint on their store, reads,
// changes, disables and enables it, rotates its secret, sends it a test
// event, reads its deliveries (one arranged as the worker leaves a
// failed one), redelivers one, and deletes it.
func Facts() apitest.Facts {
	var id, deliveryID, pendingID string
	base := func(s *apitest.State) string { return "/v1/stores/" + s.StoreSlug + "/webhooks" }
	one := func(s *apitest.State) string { return base(s) + "/" + id }
	register := map[string]any{"url": "https://erp.bench.example.com/hooks/books", "events": []string{"order.created", "inventory.updated"},
		"description": "ERP sync"}
	return apitest.Facts{
		Steps: []apitest.Step{
			{Stage: apitest.Store, Route: "POST /v1/stores/{slug}/webhooks", Want: 201, Do: func(c *apitest.Client, s *apitest.State) *apitest.Response {
				res := c.Keyed("bench-webhook-1").Do("POST", base(s), register, s.SellerToken)
				id, _ = res.JSON["id"].(string)
				return res
			}},
			{Stage: apitest.Store, Route: "POST /v1/stores/{slug}/webhooks", Note: "unknown event type", Want: 400, Do: func(c *apitest.Client, s *apitest.State) *apitest.Response {
				return c.Do("POST", base(s), map[string]any{"url": "https://erp.bench.example.com/hooks", "events": []string{"order.shipped"}}, s.SellerToken)
			}},
			{Stage: apitest.Store, Route: "POST /v1/stores/{slug}/webhooks", Note: "private address", Want: 400, Do: func(c *apitest.Client, s *apitest.State) *apitest.Response {
				return c.Do("POST", base(s), map[string]any{"url": "https://169.254.169.254/latest/meta-data"}, s.SellerToken)
			}},
			{Stage: apitest.Store, Route: "POST /v1/stores/{slug}/webhooks", Note: "not the owner", Want: 403, Do: func(c *apitest.Client, s *apitest.State) *apitest.Response {
				return c.Do("POST", base(s), register, s.Token)
			}},
			{Stage: apitest.Store, Route: "GET /v1/stores/{slug}/webhooks", Want: 200, Do: func(c *apitest.Client, s *apitest.State) *apitest.Response {
				return c.Do("GET", base(s), nil, s.SellerToken)
			}},
			{Stage: apitest.Store, Route: "GET /v1/stores/{slug}/webhooks/{id}", Want: 200, Do: func(c *apitest.Client, s *apitest.State) *apitest.Response {
				return c.Do("GET", one(s), nil, s.SellerToken)
			}},
			{Stage: apitest.Store, Route: "GET /v1/stores/{slug}/webhooks/{id}", Note: "no such endpoint", Want: 404, Do: func(c *apitest.Client, s *apitest.State) *apitest.Response {
				return c.Do("GET", base(s)+"/00000000-0000-4000-8000-000000000000", nil, s.SellerToken)
			}},
			{Stage: apitest.Store, Route: "PUT /v1/stores/{slug}/webhooks/{id}", Want: 200, Do: func(c *apitest.Client, s *apitest.State) *apitest.Response {
				return c.Do("PUT", one(s), map[string]any{"events": []string{}, "description": "ERP sync (every event)"}, s.SellerToken)
			}},
			{Stage: apitest.Store, Route: "PUT /v1/stores/{slug}/webhooks/{id}", Note: "disable", Want: 200, Do: func(c *apitest.Client, s *apitest.State) *apitest.Response {
				return c.Do("PUT", one(s), map[string]any{"enabled": false}, s.SellerToken)
			}},
			{Stage: apitest.Store, Route: "POST /v1/stores/{slug}/webhooks/{id}/test", Note: "disabled", Want: 400, Do: func(c *apitest.Client, s *apitest.State) *apitest.Response {
				return c.Do("POST", one(s)+"/test", nil, s.SellerToken)
			}},
			{Stage: apitest.Store, Route: "PUT /v1/stores/{slug}/webhooks/{id}", Note: "enable", Want: 200, Do: func(c *apitest.Client, s *apitest.State) *apitest.Response {
				return c.Do("PUT", one(s), map[string]any{"enabled": true}, s.SellerToken)
			}},
			{Stage: apitest.Store, Route: "POST /v1/stores/{slug}/webhooks/{id}/rotate-secret", Want: 200, Do: func(c *apitest.Client, s *apitest.State) *apitest.Response {
				return c.Do("POST", one(s)+"/rotate-secret", nil, s.SellerToken)
			}},
			{Stage: apitest.Store, Route: "POST /v1/stores/{slug}/webhooks/{id}/test", Want: 202, Do: func(c *apitest.Client, s *apitest.State) *apitest.Response {
				return c.Do("POST", one(s)+"/test", nil, s.SellerToken)
			}},
			// The fan-out and the delivery worker make deliveries, no
			// route does: one that failed after its retries is arranged.
			{Stage: apitest.Store, Route: "GET /v1/stores/{slug}/webhooks/{id}/deliveries", Want: 200,
				Before: func(s *apitest.State) error {
					item, d := DeliveryItem(s.StoreID, id, "0190f5a4-7c1e-4000-8000-00000000be0c", webhooks.Failed, time.Now().Add(-time.Hour))
					deliveryID = d
					return s.PutItem(item)
				},
				Do: func(c *apitest.Client, s *apitest.State) *apitest.Response {
					return c.Do("GET", one(s)+"/deliveries", nil, s.SellerToken)
				}},
			{Stage: apitest.Store, Route: "GET /v1/stores/{slug}/webhooks/{id}/deliveries", Note: "failed ones", Want: 200, Do: func(c *apitest.Client, s *apitest.State) *apitest.Response {
				return c.Do("GET", one(s)+"/deliveries?status=failed&limit=10", nil, s.SellerToken)
			}},
			{Stage: apitest.Store, Route: "GET /v1/stores/{slug}/webhooks/{id}/deliveries/{deliveryId}", Want: 200, Do: func(c *apitest.Client, s *apitest.State) *apitest.Response {
				return c.Do("GET", one(s)+"/deliveries/"+deliveryID, nil, s.SellerToken)
			}},
			{Stage: apitest.Store, Route: "POST /v1/stores/{slug}/webhooks/{id}/deliveries/{deliveryId}/redeliver", Want: 202, Do: func(c *apitest.Client, s *apitest.State) *apitest.Response {
				return c.Do("POST", one(s)+"/deliveries/"+deliveryID+"/redeliver", nil, s.SellerToken)
			}},
			// A delivery whose attempts are under way, arranged: the one
			// just redelivered may have been tried and failed again by the
			// delivery worker before this step (its host does not
			// resolve), which would make the step's answer a race.
			{Stage: apitest.Store, Route: "POST /v1/stores/{slug}/webhooks/{id}/deliveries/{deliveryId}/redeliver", Note: "still pending", Want: 409,
				Before: func(s *apitest.State) error {
					item, d := DeliveryItem(s.StoreID, id, "0190f5a4-7c1e-4000-8000-00000000be0d", webhooks.Pending, time.Now().Add(-time.Minute))
					pendingID = d
					return s.PutItem(item)
				},
				Do: func(c *apitest.Client, s *apitest.State) *apitest.Response {
					return c.Do("POST", one(s)+"/deliveries/"+pendingID+"/redeliver", nil, s.SellerToken)
				}},
			{Stage: apitest.Store, Route: "DELETE /v1/stores/{slug}/webhooks/{id}", Want: 200, Do: func(c *apitest.Client, s *apitest.State) *apitest.Response {
				return c.Do("DELETE", one(s), nil, s.SellerToken)
			}},
		},
		// The spec names no action for webhooks; the tier rate applies.
		Actions: map[string][]string{
			"POST /v1/stores/{slug}/webhooks":                                        nil,
			"GET /v1/stores/{slug}/webhooks":                                         nil,
			"GET /v1/stores/{slug}/webhooks/{id}":                                    nil,
			"PUT /v1/stores/{slug}/webhooks/{id}":                                    nil,
			"DELETE /v1/stores/{slug}/webhooks/{id}":                                 nil,
			"POST /v1/stores/{slug}/webhooks/{id}/rotate-secret":                     nil,
			"POST /v1/stores/{slug}/webhooks/{id}/test":                              nil,
			"GET /v1/stores/{slug}/webhooks/{id}/deliveries":                         nil,
			"GET /v1/stores/{slug}/webhooks/{id}/deliveries/{deliveryId}":            nil,
			"POST /v1/stores/{slug}/webhooks/{id}/deliveries/{deliveryId}/redeliver": nil,
		},
	}
}
