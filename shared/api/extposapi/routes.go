// Package extposapi is the extpos endpoint group: connecting a store to
// its external point-of-sale system (a Square-compatible service, OAuth
// 2) and asking for a sync of its stock with it. The sync itself runs in
// the possync worker group (shared/api/possyncapi) on the pos-sync
// queue; this group records the job, sends it and waits a short while for
// its outcome.
package extposapi

import (
	"context"
	"fmt"
	"log/slog"
	"net/http"
	"net/url"
	"time"

	"github.com/bookplatform/backend/shared/api"
	"github.com/bookplatform/backend/shared/dynamo"
	"github.com/bookplatform/backend/shared/extpos"
	"github.com/bookplatform/backend/shared/extpos/kmsseal"
	"github.com/bookplatform/backend/shared/httpapi"
	"github.com/bookplatform/backend/shared/queues"
	"github.com/bookplatform/backend/shared/queues/sqsqueue"
	"github.com/bookplatform/backend/shared/secretsmgr"
)

// The group's own settings beside the integration's (extpos.Settings).
const (
	// EnvAppURL is the app's base URL: the callback sends the owner's
	// browser back to APP_URL/settings/integrations.
	EnvAppURL = "APP_URL"
	// EnvSyncWait is how long POST /inventory/sync-extpos waits for its
	// job before answering 202 with the job to poll (default 5s, at
	// most 20s: API Gateway ends a request at 30 s).
	EnvSyncWait = "EXTPOS_SYNC_WAIT"

	DefaultAppURL   = "http://localhost:3000"
	DefaultSyncWait = 5 * time.Second
	MaxSyncWait     = 20 * time.Second
)

// handler serves the extpos group.
type handler struct {
	svc      *extpos.Service
	appURL   string
	wait     time.Duration
	send     func(r *http.Request, body []byte, key string) error
	now      func() time.Time
	pollStep time.Duration
	logger   *slog.Logger
	// The binding cookie's path (the callback's, from EXTPOS_REDIRECT_URL),
	// whether it is Secure (an https callback) and its life (the state's).
	cookiePath   string
	cookieSecure bool
	stateTTL     time.Duration
}

// Group is the extpos group. Its calls: GetItem for the connection, a
// job and the store's owner (the callback checks it again), PutItem for a used state (conditional), the connection and a job;
// the queue pos-sync; KMS (GenerateDataKey) when EXTPOS_KMS_KEY_ID is set;
// Secrets Manager (GetSecretValue) for the client secret when
// EXTPOS_CLIENT_SECRET_ARN is (the callback's code exchange).
func Group(d api.Deps) api.Group {
	h := newHandler(d)
	store := httpapi.IDInQuery("storeId")
	owner := httpapi.StoreOwner(store)
	storeParam := httpapi.Param{Name: "storeId", Type: "string", Required: true, About: "the store's id; the caller must own it"}
	return api.Group{
		Name:  "extpos",
		Table: []string{"dynamodb:GetItem", "dynamodb:PutItem"},
		Sends: []queues.Name{queues.POSSync},
		Seals: kmsseal.SealActions,
		Routes: []httpapi.Route{
			{Method: http.MethodGet, Path: httpapi.V1("/integrations/extpos/connect"), Auth: httpapi.AuthBearer, Role: owner, Handler: h.connect,
				Doc: httpapi.Doc{Summary: "Start connecting the store to its point-of-sale system: a redirect to its authorisation page",
					Query: []httpapi.Param{storeParam}, Status: http.StatusFound, Errors: []int{403, 404},
					Why: map[int]string{http.StatusForbidden: "the caller does not own the store (its staff included).", http.StatusNotFound: "no store has the storeId.", http.StatusFound: "Location is the point-of-sale system's authorisation page, with a signed state that expires in 10 minutes and is good once; Set-Cookie binds the state to the browser that follows it (the callback connects only with that cookie)"}}},
			{Method: http.MethodGet, Path: httpapi.V1("/integrations/extpos/callback"), Auth: httpapi.AuthNone, AfterAdmission: true, Handler: h.callback,
				Doc: httpapi.Doc{Summary: "Where the point-of-sale system's authorisation page sends the owner back: a redirect to the app",
					Query: []httpapi.Param{
						{Name: "code", Type: "string", About: "the authorisation code"},
						{Name: "state", Type: "string", About: "the state connect sent"},
						{Name: "error", Type: "string", About: "set instead of code when the owner declined"},
					},
					Status: http.StatusFound,
					Why:    map[int]string{http.StatusFound: "Location is APP_URL/settings/integrations?extpos=connected, or ?extpos=error&reason= one of invalid_state, expired_state, state_reused, browser_mismatch (not the browser that started the connect: its cookie is missing or another's), not_owner (the user no longer owns the store), access_denied, exchange_failed, server_error: never an error status"}}},
			{Method: http.MethodPost, Path: httpapi.V1("/inventory/sync-extpos"), Auth: httpapi.AuthBearer, Role: owner, Handler: h.sync,
				Doc: httpapi.Doc{Summary: "Sync the store's inventory with its point-of-sale system (import, export or two-way)",
					Query: []httpapi.Param{storeParam}, Body: extPosSyncRequest{}, Response: extPosSyncAnswer{}, Also: []int{http.StatusAccepted}, Errors: []int{400, 403, 404, 409},
					Why: map[int]string{
						http.StatusOK:        "the sync finished within the wait: its counts and item errors",
						http.StatusAccepted:  "the sync is still running: poll GET /v1/inventory/sync-extpos/{jobId}",
						http.StatusForbidden: "not the store's owner, or the store has not connected its point-of-sale system",
						http.StatusNotFound:  "no store has the storeId",
						http.StatusConflict:  "another sync of the store is queued or running (one at a time): details.jobId names it; ask again once it is done",
					}}},
			{Method: http.MethodGet, Path: httpapi.V1("/inventory/sync-extpos/{jobId}"), Auth: httpapi.AuthBearer, Role: owner, Handler: h.job,
				Doc: httpapi.Doc{Summary: "A sync's status and, once done, its counts and item errors",
					Query: []httpapi.Param{storeParam}, Response: extPosSyncAnswer{}, Errors: []int{403, 404},
					Why: map[int]string{403: "the caller does not own the store (its staff included).", 404: "no store has the storeId, or the store has no sync job with this id."}}},
		},
	}
}

func newHandler(d api.Deps) *handler {
	settings := extpos.ReadSettings(d.Env).WithManagedSecret(secretsmgr.NewClient(d.AWS), d.Now)
	appURL := d.Env.String(EnvAppURL)
	if appURL == "" {
		appURL = DefaultAppURL
	}
	wait := d.Env.Duration(EnvSyncWait, DefaultSyncWait)
	if wait > MaxSyncWait {
		d.Env.Fail(fmt.Errorf("%s must be at most %s, got %s", EnvSyncWait, MaxSyncWait, wait))
		wait = DefaultSyncWait
	}
	now := d.Now
	if now == nil {
		now = time.Now
	}
	keys := func() [][]byte {
		if d.Keys == nil {
			return nil
		}
		return d.Keys.Keys().Secrets()
	}
	store := dynamo.NewExtPos(d.Table)
	logger := d.Logger
	if logger == nil {
		logger = slog.Default()
	}
	cookiePath, cookieSecure := "/", false
	if u, err := url.Parse(settings.RedirectURL); err == nil { // ReadSettings checked it
		cookiePath, cookieSecure = u.EscapedPath(), u.Scheme == "https"
	}
	bookstores := dynamo.NewBookstores(d.Table)
	h := &handler{appURL: appURL, wait: wait, now: now, pollStep: 100 * time.Millisecond, logger: logger,
		cookiePath: cookiePath, cookieSecure: cookieSecure, stateTTL: settings.StateTTL,
		svc: extpos.NewService(extpos.Deps{
			Square: extpos.NewSquare(settings, nil, now),
			States: &extpos.States{Keys: keys, TTL: settings.StateTTL, Used: store, Now: now},
			Sealer: kmsseal.Choose(settings, d.AWS, keys), Store: store, Currency: settings.Currency, Now: now,
			OwnerOf: func(ctx context.Context, storeID string) (string, error) {
				_, _, owner, err := bookstores.StoreHeader(ctx, false, storeID)
				return owner, err
			},
		})}
	h.send = senderOf(d)
	return h
}

// senderOf sends to the pos-sync queue. The queue's URL is read when the
// group is built, from what the configuration was read from; a missing
// one fails the request that needs it, naming the variable (the local
// run creates its queues after it checks the groups' settings).
func senderOf(d api.Deps) func(r *http.Request, body []byte, key string) error {
	getenv := func(n string) string { return d.Config.Env().String(n) }
	var s *sqsqueue.Sender
	var err error
	if d.Table.DB != nil {
		s, err = sqsqueue.NewSender(sqsqueue.NewClient(d.AWS), getenv, queues.POSSync)
	}
	return func(r *http.Request, body []byte, key string) error {
		if s == nil {
			return err
		}
		return s.Send(r.Context(), queues.POSSync, body, key)
	}
}
