package adminapi

import (
	"context"
	"net/http"
	"time"

	"github.com/bookplatform/backend/shared/api"
	"github.com/bookplatform/backend/shared/api/userjson"
	"github.com/bookplatform/backend/shared/apperr"
	"github.com/bookplatform/backend/shared/audit"
	"github.com/bookplatform/backend/shared/billing"
	"github.com/bookplatform/backend/shared/dynamo"
	"github.com/bookplatform/backend/shared/httpapi"
	"github.com/bookplatform/backend/shared/payments"
	"github.com/bookplatform/backend/shared/ratelimit"
	"github.com/bookplatform/backend/shared/secretsmgr"
	"github.com/bookplatform/backend/shared/users"
)

// usersHandler serves the back office's account routes.
type usersHandler struct {
	users    *users.Service
	counters *dynamo.Counters
	billing  *billing.Service
	a        *auditor
	now      func() time.Time
}

// userRoutes are the back office's account routes and the table actions
// their calls make: reads of the account (and of a claim, to find one);
// the changes' transactions (an UpdateItem of the account, with an
// UpdateItem of the working operators' count for a change of the role
// or of an operator's suspension, or a ConditionCheckItem of the account
// beside the rate bucket's DeleteItem or UpdateItem) with the audit
// entry's PutItem; a suspension's Query of the account's sessions and
// an UpdateItem per live one. A tier change away from premium reads the
// account's premium record (GetItem) and, when its subscription renews,
// stops it at the provider and records that (UpdateItem each).
func userRoutes(d api.Deps, a *auditor) ([]httpapi.Route, []string) {
	now := d.Now
	if now == nil {
		now = time.Now
	}
	h := &usersHandler{users: d.Users, counters: dynamo.NewCounters(d.Table), billing: billingService(d), a: a, now: now}
	path := func(p string) string { return httpapi.V1("/admin/users/{userId}" + p) }
	w403 := "the caller is not an operator."
	w404 := "no account has the id."
	return []httpapi.Route{
			{Method: http.MethodGet, Path: httpapi.V1("/admin/users"), Auth: httpapi.AuthBearer, Role: httpapi.Operator, Handler: h.find,
				Doc: httpapi.Doc{Summary: "Find an account by its email or its username (exact, case-insensitive): none or one item",
					Query: []httpapi.Param{
						{Name: "email", Type: "string", About: "the account's email; give email or username, not both"},
						{Name: "username", Type: "string", About: "the account's username"},
					},
					Response: foundUsers{}, Errors: []int{400, 403},
					Why: map[int]string{400: "neither or both of email and username are given.", 403: w403}}},
			{Method: http.MethodGet, Path: path(""), Auth: httpapi.AuthBearer, Role: httpapi.Operator, Handler: h.get,
				Doc: httpapi.Doc{Summary: "An account as operators see it: its own profile, its store and staff memberships, whether it is an operator, and its suspension",
					Response: adminUser{}, Errors: []int{403, 404},
					Why: map[int]string{403: w403, 404: w404}}},
			{Method: http.MethodPut, Path: path("/tier"), Auth: httpapi.AuthBearer, Role: httpapi.Operator, Handler: h.tier,
				Doc: httpapi.Doc{Summary: "Set an account's tier (free, premium or bookstore); the answer is the account's own profile. Setting free or bookstore over a premium subscription that renews cancels it at the end of its paid period, or at once when its renewal is unpaid (past_due) (through the payment provider: nothing more is charged; the audit entry names it)",
					Body: tierRequest{}, Response: userjson.Own{}, Errors: []int{400, 403, 404, 409, 503},
					Why: map[int]string{400: "tier is not free, premium or bookstore, or the reason is too long.", 403: w403, 404: w404,
						409: "the account's tier changed between its read and the write (a checkout completed meanwhile): retry, and the retry stops the subscription that made it.",
						503: "the account's subscription renews and payments are not configured on this deployment, or the payment provider is unavailable (retry; the tier is unchanged)."}}},
			{Method: http.MethodPut, Path: path("/operator"), Auth: httpapi.AuthBearer, Role: httpapi.Operator, Handler: h.operator,
				Doc: httpapi.Doc{Summary: "Grant or revoke the operator role of an account",
					Body: operatorRequest{}, Response: adminUser{}, Errors: []int{400, 403, 404, 409},
					Why: map[int]string{400: "operator is missing, or the reason is too long.", 403: w403, 404: w404,
						409: "the caller revokes their own role (another operator must), the revoke would leave the platform no working operator, or the account's role or suspension changed meanwhile."}}},
			{Method: http.MethodPost, Path: path("/suspend"), Auth: httpapi.AuthBearer, Role: httpapi.Operator, Handler: h.suspend,
				Doc: httpapi.Doc{Summary: "Suspend an account: from its next request every route refuses its tokens (403), sign-in and refresh refuse it, its sessions are revoked, and its access tokens stay refused after a restore (401); its content stays",
					Body: reasonRequest{}, Response: adminUser{}, Errors: []int{400, 403, 404, 409},
					Why: map[int]string{400: "the reason is missing or too long.", 403: w403, 404: w404,
						409: "the account is already suspended, it is the caller's own, it is the platform's last working operator, or its role changed meanwhile."}}},
			{Method: http.MethodPost, Path: path("/restore"), Auth: httpapi.AuthBearer, Role: httpapi.Operator, Handler: h.restore,
				Doc: httpapi.Doc{Summary: "Lift an account's suspension; its owner signs in again (the tokens issued before stay refused)",
					Body: reasonRequest{}, Response: adminUser{}, Errors: []int{400, 403, 404, 409},
					Why: map[int]string{400: "the reason is too long.", 403: w403, 404: w404, 409: "the account is not suspended, or its role changed meanwhile."}}},
			{Method: http.MethodDelete, Path: path("/rate-limits"), Auth: httpapi.AuthBearer, Role: httpapi.Operator, Handler: h.resetLimits,
				Doc: httpapi.Doc{Summary: "Clear an account's rate-limit counts, of one action or all: its next request counts from zero",
					Query: []httpapi.Param{
						{Name: "action", Type: "string", About: "the action whose counts to clear (create_line, create_review, follow_user, like, report, search, feed, create_line_hourly, or request for the tier rate); all when absent"},
					},
					Response: limitsReset{}, Errors: []int{400, 403, 404},
					Why: map[int]string{400: "action names no rate limit.", 403: w403, 404: w404}}},
		}, []string{"dynamodb:ConditionCheckItem", "dynamodb:DeleteItem", "dynamodb:GetItem", "dynamodb:PutItem",
			"dynamodb:Query", "dynamodb:UpdateItem"}
}

// adminUser is an account as operators see it: its own profile and what
// the back office decides on.
type adminUser struct {
	userjson.Own
	Operator      bool     `json:"operator" doc:"The account is one of the platform's operators."`
	StoreID       *string  `json:"storeId" doc:"The store the account owns; null when none."`
	StaffStoreIDs []string `json:"staffStoreIds" doc:"The stores where the account is staff."`
	SuspendedAt   *string  `json:"suspendedAt" doc:"When an operator suspended the account; null when it is not suspended."`
	SuspendReason *string  `json:"suspendReason" doc:"The operator's reason for the suspension; null when it is not suspended."`
}

func newAdminUser(u *users.User) adminUser {
	out := adminUser{Own: userjson.NewOwn(u), Operator: u.Operator, StaffStoreIDs: u.StaffStoreIDs}
	if out.StaffStoreIDs == nil {
		out.StaffStoreIDs = []string{}
	}
	if u.StoreID != "" {
		out.StoreID = &u.StoreID
	}
	if u.SuspendedAt != nil {
		t := userjson.Time(*u.SuspendedAt)
		out.SuspendedAt, out.SuspendReason = &t, &u.SuspendReason
	}
	return out
}

// foundUsers is the answer of a search: none or one account.
type foundUsers struct {
	Items []adminUser `json:"items" doc:"The account found, if any."`
}

type tierRequest struct {
	Tier   string `json:"tier" doc:"free, premium or bookstore." required:"true"`
	Reason string `json:"reason,omitempty" doc:"Why, for the audit log (at most 500 characters)."`
}

type operatorRequest struct {
	Operator *bool  `json:"operator" doc:"true grants the role, false revokes it." required:"true"`
	Reason   string `json:"reason,omitempty" doc:"Why, for the audit log (at most 500 characters)."`
}

type reasonRequest struct {
	Reason string `json:"reason" doc:"Why, for the audit log and the account (at most 500 characters); required to suspend."`
}

// limitsReset is the answer of a limit reset.
type limitsReset struct {
	UserID  string  `json:"userId" doc:"The account."`
	Action  *string `json:"action" doc:"The action whose counts were cleared; null: all of them."`
	Cleared int     `json:"cleared" doc:"How many live windows had a count."`
}

func (h *usersHandler) find(w http.ResponseWriter, r *http.Request) error {
	q := r.URL.Query()
	email, username := q.Get("email"), q.Get("username")
	if (email == "") == (username == "") {
		return apperr.Validation("give email or username", map[string]string{"email": "give email or username, not both"})
	}
	var (
		u   *users.User
		err error
	)
	if email != "" {
		u, err = h.users.FindByEmail(r.Context(), email)
	} else {
		u, err = h.users.FindByUsername(r.Context(), username)
	}
	out := foundUsers{Items: []adminUser{}}
	switch {
	case err == nil:
		out.Items = append(out.Items, newAdminUser(u))
	case apperr.CodeOf(err) != apperr.CodeNotFound:
		return err
	}
	return httpapi.JSON(w, http.StatusOK, out)
}

func (h *usersHandler) get(w http.ResponseWriter, r *http.Request) error {
	u, err := h.users.Get(r.Context(), r.PathValue("userId"))
	if err != nil {
		return err
	}
	return httpapi.JSON(w, http.StatusOK, newAdminUser(u))
}

func (h *usersHandler) tier(w http.ResponseWriter, r *http.Request) error {
	var req tierRequest
	if err := httpapi.Decode(w, r, &req); err != nil {
		return err
	}
	tier := users.Tier(req.Tier)
	if !tier.Valid() {
		return apperr.Validation("unknown tier", map[string]string{"tier": "must be free, premium or bookstore"})
	}
	reason, err := users.CheckReason(req.Reason, false)
	if err != nil {
		return err
	}
	id, err := pathID(r, "userId", users.ErrNotFound)
	if err != nil {
		return err
	}
	prev, err := h.users.Get(r.Context(), id)
	if err != nil {
		return err
	}
	detail := map[string]string{"from": string(prev.Tier), "to": string(tier)}
	if tier != users.TierPremium {
		if err := noteRenewal(r.Context(), h.billing, id, detail); err != nil {
			return err
		}
	}
	ctx := h.a.begin(r, audit.Entry{Action: audit.ActionUserTier, TargetType: audit.TargetUser, TargetID: id, Reason: reason, Detail: detail})
	u, err := h.users.SetTierOf(ctx, prev, tier)
	if err != nil {
		return err
	}
	if tier != users.TierPremium {
		if err := stopRenewal(r.Context(), h.billing, id); err != nil {
			return err
		}
	}
	return httpapi.JSON(w, http.StatusOK, userjson.NewOwn(u))
}

func (h *usersHandler) operator(w http.ResponseWriter, r *http.Request) error {
	var req operatorRequest
	if err := httpapi.Decode(w, r, &req); err != nil {
		return err
	}
	if req.Operator == nil {
		return apperr.Validation("operator is required", map[string]string{"operator": "is required"})
	}
	reason, err := users.CheckReason(req.Reason, false)
	if err != nil {
		return err
	}
	id, err := pathID(r, "userId", users.ErrNotFound)
	if err != nil {
		return err
	}
	if !*req.Operator && id == httpapi.CallerOf(r).ID {
		// An operator leaves the role by another's hand. (The count of
		// working operators in the transaction is what keeps the
		// platform one when two revoke each other at once.)
		return apperr.Conflict("An operator cannot revoke their own role; another operator must")
	}
	prev, err := h.users.Get(r.Context(), id)
	if err != nil {
		return err
	}
	ctx := h.a.begin(r, audit.Entry{Action: audit.ActionUserOperator, TargetType: audit.TargetUser, TargetID: id, Reason: reason,
		Detail: map[string]string{"from": boolString(prev.Operator), "to": boolString(*req.Operator)}})
	u, err := h.users.SetOperator(ctx, prev, *req.Operator)
	if err != nil {
		return err
	}
	return httpapi.JSON(w, http.StatusOK, newAdminUser(u))
}

// noteRenewal names in detail, for the audit entry of a tier change
// away from premium, the subscription stopRenewal will stop after it.
func noteRenewal(ctx context.Context, b *billing.Service, userID string, detail map[string]string) error {
	plan, err := b.Renewal(ctx, userID)
	if err != nil {
		return err
	}
	if plan.SubscriptionID != "" {
		detail["subscription"], detail["subscriptionRenewal"] = plan.SubscriptionID, renewal(plan)
	}
	return nil
}

// stopRenewal stops, once the tier was changed away from premium, a
// subscription that would bill the account for a tier it no longer has
// (billing.StopRenewal, idempotent). It runs after the tier write, never
// before: a stop followed by a refused write (a concurrent decision, a
// tier changed meanwhile) would leave a premium account that nothing
// bills, for good. The other way round a failure here (503) leaves a
// subscription renewing over the new tier until the operator's retry,
// which finds the tier set and stops it; and the tier write, conditional
// on the tier read, is 409 when a checkout completed meanwhile made the
// account premium, so the retry sees that subscription too.
func stopRenewal(ctx context.Context, b *billing.Service, userID string) error {
	_, err := b.StopRenewal(ctx, userID)
	return err
}

// renewal is an audit entry's word on a subscription StopRenewal
// stops.
func renewal(s billing.Stopped) string {
	if s.AtOnce {
		return "canceled at once (past due)"
	}
	return "canceled at period end"
}

func boolString(b bool) string {
	if b {
		return "true"
	}
	return "false"
}

func (h *usersHandler) suspend(w http.ResponseWriter, r *http.Request) error {
	return h.changeAccount(w, r, audit.ActionUserSuspend, true, "An operator cannot suspend their own account", h.users.Suspend)
}

func (h *usersHandler) restore(w http.ResponseWriter, r *http.Request) error {
	return h.changeAccount(w, r, audit.ActionUserRestore, false, "", func(ctx context.Context, id, _ string) (*users.User, error) {
		return h.users.Restore(ctx, id)
	})
}

// changeAccount serves a change of one account's state (suspend,
// restore): the body's reason (required or not), the account's id, a
// refusal of the operator's own account when self names one, then the
// audit entry, which rides change's transaction.
func (h *usersHandler) changeAccount(w http.ResponseWriter, r *http.Request, action string, reasonRequired bool, self string,
	change func(ctx context.Context, id, reason string) (*users.User, error)) error {
	var req reasonRequest
	if err := httpapi.Decode(w, r, &req); err != nil {
		return err
	}
	reason, err := users.CheckReason(req.Reason, reasonRequired)
	if err != nil {
		return err
	}
	id, err := pathID(r, "userId", users.ErrNotFound)
	if err != nil {
		return err
	}
	if self != "" && id == httpapi.CallerOf(r).ID {
		return apperr.Conflict("%s", self)
	}
	ctx := h.a.begin(r, audit.Entry{Action: action, TargetType: audit.TargetUser, TargetID: id, Reason: reason})
	u, err := change(ctx, id, reason)
	if err != nil {
		return err
	}
	return httpapi.JSON(w, http.StatusOK, newAdminUser(u))
}

// resettable are the rule names a limit reset takes: the spec's actions
// and the tier's request rate.
func resettable(action string) bool {
	_, ok := ratelimit.Actions[action]
	return ok || action == ratelimit.RequestAction
}

func (h *usersHandler) resetLimits(w http.ResponseWriter, r *http.Request) error {
	action := r.URL.Query().Get("action")
	if r.URL.Query().Has("action") && !resettable(action) {
		return apperr.Validation("unknown action", map[string]string{"action": "names no rate limit"})
	}
	id, err := pathID(r, "userId", users.ErrNotFound)
	if err != nil {
		return err
	}
	detail := map[string]string{"action": "all"}
	if action != "" {
		detail["action"] = action
	}
	ctx := h.a.begin(r, audit.Entry{Action: audit.ActionRateLimitsReset, TargetType: audit.TargetUser, TargetID: id, Detail: detail})
	n, err := h.counters.ResetUser(ctx, id, action, h.now())
	if err != nil {
		return err
	}
	out := limitsReset{UserID: id, Cleared: n}
	if action != "" {
		out.Action = &action
	}
	return httpapi.JSON(w, http.StatusOK, out)
}

// billingService is the premium subscriptions' service, as the billing
// group builds it (provider nil when payments are not configured): built
// here, not imported from billingapi, so this function links no other
// group.
func billingService(d api.Deps) *billing.Service {
	p, err := payments.SubscriptionsFromEnv(d.Env, payments.Runtime{Secrets: secretsmgr.NewClient(d.AWS), Logger: d.Logger, Now: d.Now})
	if err != nil {
		p = nil
	}
	return billing.NewService(billing.Deps{Store: dynamo.NewBilling(d.Table), Users: dynamo.NewUsers(d.Table), Provider: p,
		UpgradeURL: d.Config.UpgradeURL, Now: d.Now})
}
