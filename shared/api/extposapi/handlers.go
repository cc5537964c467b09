package extposapi

import (
	"context"
	"encoding/json"
	"errors"
	"net/http"
	"net/url"
	"strings"
	"time"

	"github.com/bookplatform/backend/shared/apperr"
	"github.com/bookplatform/backend/shared/extpos"
	"github.com/bookplatform/backend/shared/httpapi"
	"github.com/bookplatform/backend/shared/ids"
)

// BindingCookie is the cookie connect sets and the callback requires: the
// browser binding of the state (extpos.States.New), so a state comes back
// only with the browser that started the connect.
const BindingCookie = "extpos_connect"

// bindingCookie is the binding cookie with value (maxAge < 0: cleared).
// It is sent only to the callback's path, for the state's life; HttpOnly
// (no script reads it); SameSite=Lax, which a top-level GET redirect from
// the authorisation page carries and a cross-site subrequest does not;
// Secure when the callback is HTTPS (the local run's is plain HTTP).
func (h *handler) bindingCookie(value string, maxAge int) *http.Cookie {
	return &http.Cookie{Name: BindingCookie, Value: value, Path: h.cookiePath, MaxAge: maxAge,
		HttpOnly: true, Secure: h.cookieSecure, SameSite: http.SameSiteLaxMode}
}

// connect answers 302 to the authorisation page with a fresh state for
// the store the role named (its owner is the caller), and sets the
// state's binding cookie: the callback connects only in the browser that
// holds it (docs/decisions.md, "The OAuth state is bound to the browser").
func (h *handler) connect(w http.ResponseWriter, r *http.Request) error {
	c := httpapi.CallerOf(r)
	u, binding, err := h.svc.ConnectURL(c.Store().ID, c.ID)
	if err != nil {
		return err
	}
	http.SetCookie(w, h.bindingCookie(binding, int(h.stateTTL/time.Second)))
	w.Header().Set("Cache-Control", "no-store")
	http.Redirect(w, r, u, http.StatusFound)
	return nil
}

// callback finishes a connect and sends the browser back to the app:
// never an error status, since a person, not a client, reads the answer.
// The binding cookie is cleared whatever the outcome: a state is good
// once.
func (h *handler) callback(w http.ResponseWriter, r *http.Request) error {
	q := r.URL.Query()
	binding := ""
	if ck, err := r.Cookie(BindingCookie); err == nil {
		binding = ck.Value
	}
	http.SetCookie(w, h.bindingCookie("", -1))
	_, err := h.svc.Callback(r.Context(), q.Get("code"), q.Get("state"), binding, q.Get("error"))
	back := url.Values{"extpos": {"connected"}}
	var ce *extpos.CallbackError
	switch {
	case errors.As(err, &ce):
		back = url.Values{"extpos": {"error"}, "reason": {ce.Reason}}
	case err != nil:
		h.logger.Error("extpos callback failed", "error", err.Error())
		back = url.Values{"extpos": {"error"}, "reason": {"server_error"}}
	}
	http.Redirect(w, r, strings.TrimSuffix(h.appURL, "/")+"/settings/integrations?"+back.Encode(), http.StatusFound)
	return nil
}

// extPosSyncRequest is POST /inventory/sync-extpos's body.
type extPosSyncRequest struct {
	Mode string `json:"mode" doc:"import: the point-of-sale system's items create and update the store's inventory by ISBN; export: the store's items, prices and counts are pushed to it; two-way: both, and for an item on both sides the side changed last wins."`
}

// extPosSyncError is one item a sync could not apply.
type extPosSyncError struct {
	ExternalItemID string `json:"externalItemId,omitempty" doc:"The item's variation id in the point-of-sale system."`
	InventoryID    string `json:"inventoryId,omitempty" doc:"The store's inventory item, for an item the export could not push."`
	ISBN           string `json:"isbn,omitempty" doc:"The ISBN (or the code that is not one) the item carries."`
	Reason         string `json:"reason"`
}

// extPosSyncAnswer is a sync's outcome: the spec's { success, synced, created,
// updated, errors }, with the job that ran it.
type extPosSyncAnswer struct {
	Success bool              `json:"success" doc:"True once the sync ran to its end (items may still have failed: errors)."`
	JobID   string            `json:"jobId" doc:"The sync job, for GET /v1/inventory/sync-extpos/{jobId}."`
	Mode    string            `json:"mode"`
	Status  string            `json:"status" doc:"queued until the worker finished it; done; failed when the point-of-sale system refused the store's authorisation (connect again), or after repeated failures (message says why)."`
	Synced  int               `json:"synced" doc:"Items compared without error."`
	Created int               `json:"created" doc:"Items created: in the store's inventory (import) or in the point-of-sale catalog (export)."`
	Updated int               `json:"updated" doc:"Items changed on either side."`
	Errors  []extPosSyncError `json:"errors" doc:"The items the sync could not apply (at most 100)."`
	Message string            `json:"message,omitempty" doc:"Why a failed sync failed."`
}

func answerOf(j *extpos.Job) extPosSyncAnswer {
	a := extPosSyncAnswer{Success: j.Status == extpos.JobDone, JobID: j.ID, Mode: string(j.Mode), Status: string(j.Status),
		Synced: j.Result.Synced, Created: j.Result.Created, Updated: j.Result.Updated, Errors: []extPosSyncError{}, Message: j.Error}
	for _, e := range j.Result.Errors {
		a.Errors = append(a.Errors, extPosSyncError{ExternalItemID: e.ExternalItemID, InventoryID: e.InventoryID, ISBN: e.ISBN, Reason: e.Reason})
	}
	return a
}

// errNotConnected is the 403 of a store without a connection.
var errNotConnected = apperr.Forbidden("The store has not connected its point-of-sale system: GET /v1/integrations/extpos/connect first")

// sync records a job, sends it to the pos-sync worker and waits up to
// EXTPOS_SYNC_WAIT for it: 200 with its outcome when it finished, 202 with
// the job to poll otherwise.
func (h *handler) sync(w http.ResponseWriter, r *http.Request) error {
	var req extPosSyncRequest
	if err := httpapi.Decode(w, r, &req); err != nil {
		return err
	}
	mode := extpos.Mode(req.Mode)
	if !mode.Valid() {
		return apperr.Validation("mode must be import, export or two-way", map[string]string{"mode": "must be import, export or two-way"})
	}
	c := httpapi.CallerOf(r)
	j, err := h.svc.RequestSync(r.Context(), c.Store().ID, c.ID, mode)
	if errors.Is(err, extpos.ErrNotConnected) {
		return errNotConnected
	}
	var running *extpos.RunningError
	if errors.As(err, &running) {
		// One sync of a store at a time: the client polls the running
		// one (details.jobId) and asks again once it is done.
		return apperr.Conflict("Another sync of the store is running: GET /v1/inventory/sync-extpos/%s, then ask again once it is done", running.JobID).
			WithDetails(map[string]any{"jobId": running.JobID})
	}
	if err != nil {
		return err
	}
	body, err := json.Marshal(extpos.Message{StoreID: j.StoreID, JobID: j.ID})
	if err != nil {
		return err
	}
	if err := h.send(r, body, j.ID); err != nil {
		// No message will run the job: it says it failed rather than
		// queued for ever, and the request answers the error (500).
		if ferr := h.svc.GiveUp(context.WithoutCancel(r.Context()), extpos.Message{StoreID: j.StoreID, JobID: j.ID}, "The sync could not be queued: ask for it again"); ferr != nil {
			return errors.Join(err, ferr)
		}
		return err
	}
	if done := h.await(r.Context(), j); done != nil {
		j = done
	}
	status := http.StatusOK
	if j.Status == extpos.JobQueued {
		status = http.StatusAccepted
		w.Header().Set("Location", jobLocation(j.ID, j.StoreID))
	}
	return httpapi.JSON(w, status, answerOf(j))
}

// jobLocation is the job endpoint of store storeID's job id.
func jobLocation(id, storeID string) string {
	return httpapi.V1("/inventory/sync-extpos/"+id) + "?storeId=" + url.QueryEscape(storeID)
}

// await polls the job until it is finished or the wait is over (nil
// then), backing off from pollStep: a small sync is answered with its
// outcome in a few reads.
func (h *handler) await(ctx context.Context, j *extpos.Job) *extpos.Job {
	deadline := time.Now().Add(h.wait)
	step := h.pollStep
	for {
		wait := min(step, time.Until(deadline))
		if wait <= 0 {
			return nil
		}
		t := time.NewTimer(wait)
		select {
		case <-ctx.Done():
			t.Stop()
			return nil
		case <-t.C:
		}
		got, err := h.svc.Job(ctx, j.StoreID, j.ID)
		if err == nil && got.Status != extpos.JobQueued {
			return got
		}
		step = min(step*2, time.Second)
	}
}

// errJobNotFound is the 404 of a job the store does not have.
var errJobNotFound = apperr.NotFound("Sync job not found")

// job answers a sync job of the store the role named. A job id is a UUID
// (ids.New); anything else is no job, checked before it becomes a key
// (a long one would be a key the table refuses: a 500).
func (h *handler) job(w http.ResponseWriter, r *http.Request) error {
	id, ok := ids.Parse(r.PathValue("jobId"))
	if !ok {
		return errJobNotFound
	}
	j, err := h.svc.Job(r.Context(), httpapi.CallerOf(r).Store().ID, id)
	if errors.Is(err, extpos.ErrJobNotFound) {
		return errJobNotFound
	}
	if err != nil {
		return err
	}
	return httpapi.JSON(w, http.StatusOK, answerOf(j))
}
