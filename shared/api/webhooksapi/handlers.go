package webhooksapi

import (
	"encoding/json"
	"net/http"

	"github.com/bookplatform/backend/shared/api/userjson"
	"github.com/bookplatform/backend/shared/httpapi"
	"github.com/bookplatform/backend/shared/webhooks"
)

// createRequest is POST /v1/stores/{slug}/webhooks.
type createRequest struct {
	URL         string   `json:"url" doc:"Where deliveries are POSTed: an absolute https URL of a public host, at most 2048 characters, without user info or fragment."`
	Events      []string `json:"events,omitempty" doc:"The event types to deliver (order.created, order.updated, inventory.updated, store.followed); none, or an empty list, means every type."`
	Description string   `json:"description,omitempty" doc:"The owner's own note (\"ERP sync\"), at most 200 characters."`
}

// updateRequest is PUT /v1/stores/{slug}/webhooks/{id}: every field is
// optional, one left out stays as it is.
type updateRequest struct {
	URL         *string   `json:"url,omitempty" doc:"As on registration."`
	Events      *[]string `json:"events,omitempty" doc:"Replaces the list; an empty list means every type."`
	Description *string   `json:"description,omitempty"`
	Enabled     *bool     `json:"enabled,omitempty" doc:"false disables the endpoint (it receives nothing; reason \"disabled by the owner\"); true enables it again and clears its consecutive failures."`
}

// webhookEndpoint is an endpoint as the owner sees it: never its secret
// (but on registration and rotation, webhookEndpointWithSecret).
type webhookEndpoint struct {
	ID                      string   `json:"id"`
	StoreID                 string   `json:"storeId"`
	URL                     string   `json:"url"`
	Description             string   `json:"description" doc:"\"\" when none."`
	Events                  []string `json:"events" doc:"The event types delivered; [] means every type."`
	Status                  string   `json:"status" doc:"active, or disabled: it receives nothing (disabledReason says why)."`
	DisabledReason          *string  `json:"disabledReason" doc:"\"disabled by the owner\", or the failures that disabled it; null while active."`
	DisabledAt              *string  `json:"disabledAt"`
	ConsecutiveFailures     int      `json:"consecutiveFailures" doc:"Deliveries in a row that failed after every retry; at the configured number the endpoint is disabled. A success sets it to 0."`
	PreviousSecretExpiresAt *string  `json:"previousSecretExpiresAt" doc:"After a rotation, until when the previous secret still signs deliveries beside the new one; null otherwise."`
	CreatedAt               string   `json:"createdAt"`
	UpdatedAt               string   `json:"updatedAt"`
}

// webhookEndpointWithSecret answers a registration and a rotation: the
// endpoint and its signing secret.
type webhookEndpointWithSecret struct {
	webhookEndpoint
	Secret string `json:"secret" doc:"The signing secret (whsec_ and base64, as Standard Webhooks' libraries take it); shown here only: keep it."`
}

func newEndpoint(e *webhooks.Endpoint) webhookEndpoint {
	out := webhookEndpoint{ID: e.ID, StoreID: e.StoreID, URL: e.URL, Description: e.Description, Events: make([]string, len(e.Events)),
		Status: string(e.Status), ConsecutiveFailures: e.ConsecutiveFailures, CreatedAt: userjson.Time(e.CreatedAt), UpdatedAt: userjson.Time(e.UpdatedAt)}
	for i, t := range e.Events {
		out.Events[i] = string(t)
	}
	if e.Status != webhooks.Active {
		reason := e.DisabledReason
		out.DisabledReason = &reason
		if e.DisabledAt != nil {
			at := userjson.Time(*e.DisabledAt)
			out.DisabledAt = &at
		}
	}
	if e.PreviousSecretExpiresAt != nil && e.PreviousSecret != "" {
		at := userjson.Time(*e.PreviousSecretExpiresAt)
		out.PreviousSecretExpiresAt = &at
	}
	return out
}

// listResponse answers GET /v1/stores/{slug}/webhooks: every endpoint
// (a store has few: the limit is configuration, at most 100).
type listResponse struct {
	Data []webhookEndpoint `json:"data" doc:"Newest first."`
}

// testResponse answers POST .../test.
type testResponse struct {
	EventID    string `json:"eventId" doc:"The webhook.test event's id: the webhook-id header of its delivery."`
	DeliveryID string `json:"deliveryId" doc:"The id its delivery to the endpoint has (GET .../deliveries/{deliveryId}) once the event is fanned out, in a moment."`
}

// webhookDelivery is a delivery in the endpoint's list.
type webhookDelivery struct {
	ID            string  `json:"id"`
	EndpointID    string  `json:"endpointId"`
	EventID       string  `json:"eventId" doc:"The event's id: the webhook-id header receivers deduplicate by."`
	EventType     string  `json:"eventType"`
	Status        string  `json:"status" doc:"pending (attempts under way), succeeded (a 2xx answer), or failed (every retry spent; redeliver it)."`
	Attempts      int     `json:"attempts"`
	ResponseCode  *int    `json:"responseCode" doc:"The last attempt's HTTP status; null before any attempt or when the last got no response."`
	Error         *string `json:"error" doc:"Why the last attempt failed (\"HTTP 500\", \"timeout\", ...); null when it succeeded or none was made."`
	LastAttemptAt *string `json:"lastAttemptAt"`
	NextAttemptAt *string `json:"nextAttemptAt" doc:"When the next attempt is due; null unless pending."`
	CreatedAt     string  `json:"createdAt"`
	UpdatedAt     string  `json:"updatedAt"`
}

func newDelivery(d *webhooks.Delivery) webhookDelivery {
	out := webhookDelivery{ID: d.ID, EndpointID: d.EndpointID, EventID: d.EventID, EventType: string(d.EventType), Status: string(d.Status),
		Attempts: d.Attempts, CreatedAt: userjson.Time(d.CreatedAt), UpdatedAt: userjson.Time(d.UpdatedAt)}
	if n := len(d.History); n > 0 {
		last := d.History[n-1]
		if last.ResponseCode != 0 {
			code := last.ResponseCode
			out.ResponseCode = &code
		}
		if last.Error != "" {
			e := last.Error
			out.Error = &e
		}
		at := userjson.Time(last.At)
		out.LastAttemptAt = &at
	}
	if d.Status == webhooks.Pending && d.NextAttemptAt != nil {
		at := userjson.Time(*d.NextAttemptAt)
		out.NextAttemptAt = &at
	}
	return out
}

// webhookAttempt is one attempt of a delivery.
type webhookAttempt struct {
	At           string  `json:"at"`
	ResponseCode *int    `json:"responseCode" doc:"null: no response (refused, timed out)."`
	Error        *string `json:"error" doc:"null when the attempt succeeded."`
	DurationMs   int64   `json:"durationMs"`
}

// webhookDeliveryDetail is one delivery with its payload and attempts.
type webhookDeliveryDetail struct {
	webhookDelivery
	Payload json.RawMessage  `json:"payload" openapi:"object" doc:"The body sent: the event's envelope (id, type, version, time, data) as the store may see it."`
	History []webhookAttempt `json:"history" doc:"Its attempts, oldest first (the last 20)."`
}

func newDeliveryDetail(d *webhooks.Delivery) webhookDeliveryDetail {
	out := webhookDeliveryDetail{webhookDelivery: newDelivery(d), Payload: json.RawMessage(d.Payload), History: make([]webhookAttempt, len(d.History))}
	if !json.Valid(out.Payload) {
		out.Payload = json.RawMessage("{}")
	}
	for i, a := range d.History {
		h := webhookAttempt{At: userjson.Time(a.At), DurationMs: a.DurationMs}
		if a.ResponseCode != 0 {
			code := a.ResponseCode
			h.ResponseCode = &code
		}
		if a.Error != "" {
			e := a.Error
			h.Error = &e
		}
		out.History[i] = h
	}
	return out
}

// storeID is the store the role check read (the path's slug).
func storeID(r *http.Request) string { return httpapi.CallerOf(r).Store().ID }

// create serves POST /v1/stores/{slug}/webhooks: 201 with the secret.
func (h *handler) create(w http.ResponseWriter, r *http.Request) error {
	var req createRequest
	if err := httpapi.Decode(w, r, &req); err != nil {
		return err
	}
	e, err := h.svc.Create(r.Context(), storeID(r), webhooks.NewEndpoint{URL: req.URL, Events: req.Events, Description: req.Description})
	if err != nil {
		return err
	}
	return httpapi.JSON(w, http.StatusCreated, webhookEndpointWithSecret{webhookEndpoint: newEndpoint(e), Secret: e.Secret})
}

// list serves GET /v1/stores/{slug}/webhooks.
func (h *handler) list(w http.ResponseWriter, r *http.Request) error {
	list, err := h.svc.List(r.Context(), storeID(r))
	if err != nil {
		return err
	}
	out := listResponse{Data: make([]webhookEndpoint, len(list))}
	for i, e := range list {
		out.Data[i] = newEndpoint(e)
	}
	return httpapi.JSON(w, http.StatusOK, out)
}

// get serves GET /v1/stores/{slug}/webhooks/{id}.
func (h *handler) get(w http.ResponseWriter, r *http.Request) error {
	e, err := h.svc.Get(r.Context(), storeID(r), r.PathValue("id"))
	if err != nil {
		return err
	}
	return httpapi.JSON(w, http.StatusOK, newEndpoint(e))
}

// update serves PUT /v1/stores/{slug}/webhooks/{id}.
func (h *handler) update(w http.ResponseWriter, r *http.Request) error {
	var req updateRequest
	if err := httpapi.Decode(w, r, &req); err != nil {
		return err
	}
	e, err := h.svc.Update(r.Context(), storeID(r), r.PathValue("id"),
		webhooks.Change{URL: req.URL, Events: req.Events, Description: req.Description, Enabled: req.Enabled})
	if err != nil {
		return err
	}
	return httpapi.JSON(w, http.StatusOK, newEndpoint(e))
}

// delete serves DELETE /v1/stores/{slug}/webhooks/{id}.
func (h *handler) delete(w http.ResponseWriter, r *http.Request) error {
	if err := h.svc.Delete(r.Context(), storeID(r), r.PathValue("id")); err != nil {
		return err
	}
	return httpapi.JSON(w, http.StatusOK, httpapi.Success{Success: true, Message: "Webhook endpoint deleted"})
}

// rotate serves POST /v1/stores/{slug}/webhooks/{id}/rotate-secret.
func (h *handler) rotate(w http.ResponseWriter, r *http.Request) error {
	e, err := h.svc.RotateSecret(r.Context(), storeID(r), r.PathValue("id"))
	if err != nil {
		return err
	}
	return httpapi.JSON(w, http.StatusOK, webhookEndpointWithSecret{webhookEndpoint: newEndpoint(e), Secret: e.Secret})
}

// test serves POST /v1/stores/{slug}/webhooks/{id}/test: 202, the event
// is in the outbox.
func (h *handler) test(w http.ResponseWriter, r *http.Request) error {
	sent, err := h.svc.SendTest(r.Context(), storeID(r), r.PathValue("id"))
	if err != nil {
		return err
	}
	return httpapi.JSON(w, http.StatusAccepted, testResponse{EventID: sent.EventID, DeliveryID: sent.DeliveryID})
}

// deliveries serves GET /v1/stores/{slug}/webhooks/{id}/deliveries. It
// starts beside the role check (an early GET): the store is awaited
// only for the endpoint's read.
func (h *handler) deliveries(w http.ResponseWriter, r *http.Request) error {
	c, err := httpapi.CursorPage(r)
	if err != nil {
		return err
	}
	p, err := h.svc.Deliveries(r.Context(), func() string { return storeID(r) }, r.PathValue("id"), r.URL.Query().Get("status"), c)
	if err != nil {
		return err
	}
	return httpapi.JSON(w, http.StatusOK, httpapi.NewCursorBody(r, p, newDelivery))
}

// delivery serves GET /v1/stores/{slug}/webhooks/{id}/deliveries/{deliveryId}.
func (h *handler) delivery(w http.ResponseWriter, r *http.Request) error {
	d, err := h.svc.Delivery(r.Context(), func() string { return storeID(r) }, r.PathValue("id"), r.PathValue("deliveryId"))
	if err != nil {
		return err
	}
	return httpapi.JSON(w, http.StatusOK, newDeliveryDetail(d))
}

// redeliver serves POST .../deliveries/{deliveryId}/redeliver: 202, the
// attempt is queued.
func (h *handler) redeliver(w http.ResponseWriter, r *http.Request) error {
	d, err := h.svc.Redeliver(r.Context(), func() string { return storeID(r) }, r.PathValue("id"), r.PathValue("deliveryId"))
	if err != nil {
		return err
	}
	return httpapi.JSON(w, http.StatusAccepted, newDelivery(d))
}
