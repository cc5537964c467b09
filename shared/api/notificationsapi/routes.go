// Package notificationsapi is the notifications endpoint group: a
// store's email settings (how it hears of new orders: at once, in a
// daily digest, or not at all, and at which address), and the digest's
// unsubscribe link, which needs no sign-in: its token names the store
// (shared/notify, Tokens). What is mailed and when is shared/notify's,
// in the relay's "email" consumer and the emaildigest job.
//
// Who may call a settings route is declared on the route (the store's
// owner) and checked by the router; no handler here checks a role.
package notificationsapi

import (
	"encoding/json"
	"net/http"
	"time"

	"github.com/bookplatform/backend/shared/api"
	"github.com/bookplatform/backend/shared/api/userjson"
	"github.com/bookplatform/backend/shared/apperr"
	"github.com/bookplatform/backend/shared/dynamo"
	"github.com/bookplatform/backend/shared/httpapi"
	"github.com/bookplatform/backend/shared/notify"
	"github.com/bookplatform/backend/shared/notify/notifydeps"
)

// handler serves the notifications group.
type handler struct {
	store  *dynamo.Notifications
	tokens notify.Tokens
	now    func() time.Time
}

var owner = httpapi.StoreOwner(httpapi.SlugInPath("slug"))

// Group is the notifications group. Its calls: GetItem of the settings;
// a PUT's (and an unsubscribe's) TransactWriteItems of a ConditionCheck
// of the store (it exists, it is not being deleted) and the settings'
// Put.
func Group(d api.Deps) api.Group {
	now := d.Now
	if now == nil {
		now = time.Now
	}
	h := &handler{store: dynamo.NewNotifications(d.Table), tokens: notifydeps.Tokens(d), now: now}
	token := []httpapi.Param{{Name: "token", Type: "string", Required: true, About: "the token of the digest's unsubscribe link"}}
	ownerWhy := map[int]string{403: "the caller is not the store's owner (staff included).", 404: "no store has the slug."}
	putWhy := map[int]string{400: "newOrderEmail is not immediate, daily or off, or email is not an address or null (details name the field).",
		403: ownerWhy[403], 404: ownerWhy[404]}
	unsubscribeWhy := map[int]string{400: "the token is missing, altered, or signed with a key that has since rotated out (change the setting with PUT /v1/stores/{slug}/notification-settings)."}
	return api.Group{
		Name:  "notifications",
		Table: []string{"dynamodb:ConditionCheckItem", "dynamodb:GetItem", "dynamodb:PutItem"},
		Routes: []httpapi.Route{
			{Method: http.MethodGet, Path: httpapi.V1("/stores/{slug}/notification-settings"), Auth: httpapi.AuthBearer, Role: owner, Handler: h.get,
				Doc: httpapi.Doc{Summary: "The store's email settings: how it hears of new orders (immediate, daily digest or off) and where",
					Response: settingsJSON{}, Errors: []int{403, 404}, Why: ownerWhy}},
			{Method: http.MethodPut, Path: httpapi.V1("/stores/{slug}/notification-settings"), Auth: httpapi.AuthBearer, Role: owner, Handler: h.put,
				Doc: httpapi.Doc{Summary: "Change the store's email settings; a field left out stays as it is, email null goes back to the owner's account email",
					Body: settingsRequest{}, Response: settingsJSON{}, Errors: []int{400, 403, 404}, Why: putWhy}},
			// A GET with a side effect: it starts once admitted.
			{Method: http.MethodGet, Path: httpapi.V1("/notifications/unsubscribe"), Auth: httpapi.AuthNone, AfterAdmission: true, Handler: h.unsubscribe,
				Doc: httpapi.Doc{Summary: "Unsubscribe the store from its daily new-order digest (the digest's link): a store on daily is set to off",
					Query: token, Response: unsubscribed{}, Errors: []int{400}, Why: unsubscribeWhy}},
			{Method: http.MethodPost, Path: httpapi.V1("/notifications/unsubscribe"), Auth: httpapi.AuthNone, Handler: h.unsubscribe,
				Doc: httpapi.Doc{Summary: "One-click unsubscribe from the daily digest (RFC 8058: the mail client's POST of List-Unsubscribe=One-Click)",
					Query: token, Response: unsubscribed{}, Errors: []int{400}, Why: unsubscribeWhy}},
		},
	}
}

// settingsJSON is a store's email settings.
type settingsJSON struct {
	StoreID       string  `json:"storeId"`
	NewOrderEmail string  `json:"newOrderEmail" doc:"immediate: an email per new order; daily: one digest of the day's new orders, sent the next morning (07:00 UTC); off: none."`
	Email         *string `json:"email" doc:"Where the store's emails go; null: the owner's account email."`
	UpdatedAt     *string `json:"updatedAt" doc:"null until the settings are first saved (the defaults: immediate, the owner's email)."`
}

func newSettingsJSON(s notify.Settings) settingsJSON {
	out := settingsJSON{StoreID: s.StoreID, NewOrderEmail: string(s.NewOrderEmail)}
	if s.Email != "" {
		out.Email = &s.Email
	}
	if !s.UpdatedAt.IsZero() {
		t := userjson.Time(s.UpdatedAt)
		out.UpdatedAt = &t
	}
	return out
}

// settingsRequest is PUT /v1/stores/{slug}/notification-settings.
type settingsRequest struct {
	NewOrderEmail *string         `json:"newOrderEmail,omitempty" doc:"How the store hears of a new order."`
	Email         json.RawMessage `json:"email,omitempty" openapi:"string,null" doc:"An address for the store's emails, or null for the owner's account email."`
}

// unsubscribed answers an unsubscribe.
type unsubscribed struct {
	StoreID       string `json:"storeId"`
	NewOrderEmail string `json:"newOrderEmail" doc:"The setting after: off, unless the store chose immediate since the digest was sent."`
	Message       string `json:"message"`
}

func (h *handler) get(w http.ResponseWriter, r *http.Request) error {
	s, err := h.store.Settings(r.Context(), httpapi.CallerOf(r).Store().ID)
	if err != nil {
		return err
	}
	return httpapi.JSON(w, http.StatusOK, newSettingsJSON(s))
}

func (h *handler) put(w http.ResponseWriter, r *http.Request) error {
	var req settingsRequest
	if err := httpapi.Decode(w, r, &req); err != nil {
		return err
	}
	c := notify.Change{NewOrderEmail: req.NewOrderEmail}
	if len(req.Email) > 0 {
		var e *string
		if err := json.Unmarshal(req.Email, &e); err != nil {
			return apperr.Validation("Invalid notification settings", map[string]string{"email": "must be an email address or null"})
		}
		if e == nil {
			e = new(string)
		}
		c.Email = e
	}
	ctx := r.Context()
	storeID := httpapi.CallerOf(r).Store().ID
	s, err := h.store.Settings(ctx, storeID)
	if err != nil {
		return err
	}
	if s, err = c.Apply(s, h.now()); err != nil {
		return err
	}
	if err := h.store.PutSettings(ctx, s); err != nil {
		return err
	}
	return httpapi.JSON(w, http.StatusOK, newSettingsJSON(s))
}

// unsubscribe serves GET and POST /v1/notifications/unsubscribe: both
// turn the digest off (an email's link is a GET; a mail client's
// one-click unsubscribe a POST), and both again change nothing more.
func (h *handler) unsubscribe(w http.ResponseWriter, r *http.Request) error {
	storeID, err := h.tokens.Open(r.URL.Query().Get("token"))
	if err != nil {
		return err
	}
	s, err := notify.Unsubscribe(r.Context(), h.store, storeID, h.now())
	if err != nil {
		return err
	}
	msg := "The store's daily new-order digest is off."
	if s.NewOrderEmail == notify.Immediate {
		msg = "The store is not on the daily digest: it gets an email per new order (change it in its notification settings)."
	}
	return httpapi.JSON(w, http.StatusOK, unsubscribed{StoreID: storeID, NewOrderEmail: string(s.NewOrderEmail), Message: msg})
}
