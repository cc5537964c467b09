package adminapi

import (
	"errors"
	"net/http"

	"github.com/bookplatform/backend/shared/api"
	"github.com/bookplatform/backend/shared/api/applicationjson"
	"github.com/bookplatform/backend/shared/applications"
	"github.com/bookplatform/backend/shared/audit"
	"github.com/bookplatform/backend/shared/billing"
	"github.com/bookplatform/backend/shared/dynamo"
	"github.com/bookplatform/backend/shared/httpapi"
	"github.com/bookplatform/backend/shared/page"
	"github.com/bookplatform/backend/shared/users"
)

// applicationsHandler serves the bookstore applications' queue.
type applicationsHandler struct {
	svc     *applications.Service
	users   *users.Service
	billing *billing.Service
	a       *auditor
}

// applicationRoutes are the bookstore applications' routes and the table
// actions their calls make: the queue is one Query of GSI1, an
// application one GetItem; a decision reads the application (GetItem),
// then writes one TransactWriteItems: the application and the account's
// latest copy (UpdateItem each, conditional on pending), for an approval
// the account's tier (UpdateItem, conditional on the tier read), the
// event's outbox item and the audit entry (PutItem). An approval reads
// the applicant's account (GetItem) and, when their premium
// subscription renews, first stops it at the provider (the premium
// record's GetItem and UpdateItems), as a tier change does (users.go).
func applicationRoutes(d api.Deps, a *auditor) ([]httpapi.Route, []string) {
	h := &applicationsHandler{svc: applications.NewService(dynamo.NewApplications(d.Table), d.Now), users: d.Users, billing: billingService(d), a: a}
	base := httpapi.V1("/admin/bookstore-applications")
	one := base + "/{applicationId}"
	notFound := "no bookstore application has the id."
	decided := "the application was approved or declined already."
	return []httpapi.Route{
		{Method: http.MethodGet, Path: base, Auth: httpapi.AuthBearer, Role: httpapi.Operator, Handler: h.list,
			Doc: httpapi.Doc{Summary: "The bookstore applications of a status: the pending queue oldest first (work it from the top), decided ones newest decision first",
				Query: []httpapi.Param{
					{Name: "status", Type: "string", Enum: []string{string(applications.Pending), string(applications.Approved), string(applications.Declined)},
						Default: string(applications.Pending), About: "the applications of this status"},
					{Name: "cursor", Type: "string", About: "nextCursor of the previous page"},
					httpapi.LimitParam(page.DefaultLimit, page.MaxLimit),
				},
				Response: httpapi.CursorBody[applicationjson.Admin]{}, Errors: []int{400, 403},
				Why: map[int]string{400: "an unknown status, a bad limit or cursor.", 403: "the caller is not an operator."}}},
		{Method: http.MethodGet, Path: one, Auth: httpapi.AuthBearer, Role: httpapi.Operator, Handler: h.get,
			Doc: httpapi.Doc{Summary: "One bookstore application, with its applicant and its decision",
				Response: applicationjson.Admin{}, Errors: []int{403, 404},
				Why: map[int]string{403: "the caller is not an operator.", 404: notFound}}},
		{Method: http.MethodPost, Path: one + "/approve", Auth: httpapi.AuthBearer, Role: httpapi.Operator, Handler: h.approve,
			Doc: httpapi.Doc{Summary: "Approve a pending bookstore application: the applicant gets the bookstore tier (and may create a store) in the same transaction, and is emailed; a premium subscription of theirs that renews is cancelled at the end of its paid period (at once when its renewal is unpaid)",
				Body: decisionRequest{}, OptionalBody: true, Response: applicationjson.Admin{}, Errors: []int{400, 403, 404, 409, 503},
				Why: map[int]string{400: "a bad reason.", 403: "the caller is not an operator.",
					404: notFound + " Or the applicant's account no longer exists.",
					409: decided + " Or the applicant's tier changed between its read and the write (a premium checkout completed meanwhile): retry, and the retry stops the subscription.",
					503: "the applicant's premium subscription renews and payments are not configured on this deployment, or the payment provider is unavailable (retry; nothing changed)."}}},
		{Method: http.MethodPost, Path: one + "/decline", Auth: httpapi.AuthBearer, Role: httpapi.Operator, Handler: h.decline,
			Doc: httpapi.Doc{Summary: "Decline a pending bookstore application with a reason, which the applicant is emailed and sees on the application; the account may apply again",
				Body: decisionRequest{}, Response: applicationjson.Admin{}, Errors: []int{400, 403, 404, 409},
				Why: map[int]string{400: "no reason, or a bad one.", 403: "the caller is not an operator.", 404: notFound, 409: decided}}},
	}, []string{"dynamodb:GetItem", "dynamodb:PutItem", "dynamodb:Query", "dynamodb:UpdateItem"}
}

// decisionRequest is the body of an approval (reason optional, the body
// too) or a decline (reason required).
type decisionRequest struct {
	Reason string `json:"reason,omitempty" doc:"Why: required to decline (the applicant reads it), optional to approve. At most 1000 characters."`
}

func (h *applicationsHandler) list(w http.ResponseWriter, r *http.Request) error {
	status, err := applications.ParseStatus(r.URL.Query().Get("status"))
	if err != nil {
		return err
	}
	c, err := httpapi.CursorPage(r)
	if err != nil {
		return err
	}
	p, err := h.svc.List(r.Context(), status, c)
	if err != nil {
		return err
	}
	return httpapi.JSON(w, http.StatusOK, httpapi.NewCursorBody(r, p, applicationjson.NewAdmin))
}

func (h *applicationsHandler) get(w http.ResponseWriter, r *http.Request) error {
	id, err := pathID(r, "applicationId", applications.ErrNotFound)
	if err != nil {
		return err
	}
	a, err := h.svc.Get(r.Context(), id)
	if err != nil {
		return err
	}
	return httpapi.JSON(w, http.StatusOK, applicationjson.NewAdmin(a))
}

func (h *applicationsHandler) approve(w http.ResponseWriter, r *http.Request) error {
	return h.decide(w, r, applications.Approved)
}

func (h *applicationsHandler) decline(w http.ResponseWriter, r *http.Request) error {
	return h.decide(w, r, applications.Declined)
}

// decide reads the application, checks the request, then starts the
// audit entry and records the decision, whose transaction carries it.
func (h *applicationsHandler) decide(w http.ResponseWriter, r *http.Request, to applications.Status) error {
	var req decisionRequest
	if err := httpapi.Decode(w, r, &req); err != nil {
		return err
	}
	reason, err := applications.CheckReason(req.Reason, to == applications.Declined)
	if err != nil {
		return err
	}
	id, err := pathID(r, "applicationId", applications.ErrNotFound)
	if err != nil {
		return err
	}
	app, err := h.svc.Get(r.Context(), id)
	if err != nil {
		return err
	}
	if app.Status != applications.Pending {
		return applications.ErrDecided
	}
	action, detail := audit.ActionApplicationNo, map[string]string{"userId": app.UserID, "status": string(to)}
	var from users.Tier
	if to == applications.Approved {
		action, detail["tier"] = audit.ActionApplicationOK, "bookstore"
		applicant, err := h.users.Get(r.Context(), app.UserID)
		if errors.Is(err, users.ErrNotFound) {
			return applications.ErrApplicantGone
		}
		if err != nil {
			return err
		}
		from = applicant.Tier
		// The bookstore tier replaces premium: a subscription left
		// renewing would bill the account for it. It is stopped after
		// the decision (users.go, stopRenewal; the tier write is
		// conditional on from, as there).
		if err := noteRenewal(r.Context(), h.billing, app.UserID, detail); err != nil {
			return err
		}
	}
	ctx := h.a.begin(r, audit.Entry{Action: action, TargetType: audit.TargetApplication, TargetID: app.ID, Reason: reason, Detail: detail})
	operator := httpapi.CallerOf(r).ID
	if to == applications.Approved {
		app, err = h.svc.Approve(ctx, app, from, operator, reason)
		if err == nil {
			err = stopRenewal(r.Context(), h.billing, app.UserID)
		}
	} else {
		app, err = h.svc.Decline(ctx, app, operator, reason)
	}
	if err != nil {
		return err
	}
	return httpapi.JSON(w, http.StatusOK, applicationjson.NewAdmin(app))
}
