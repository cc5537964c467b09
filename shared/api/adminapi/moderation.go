package adminapi

import (
	"net/http"

	"github.com/bookplatform/backend/shared/api"
	"github.com/bookplatform/backend/shared/api/userjson"
	"github.com/bookplatform/backend/shared/audit"
	"github.com/bookplatform/backend/shared/dynamo"
	"github.com/bookplatform/backend/shared/httpapi"
	"github.com/bookplatform/backend/shared/page"
	"github.com/bookplatform/backend/shared/reports"
)

// moderationHandler serves the reports queue and its takedowns.
type moderationHandler struct {
	queue *reports.Queue
	a     *auditor
}

// moderationRoutes are the reports queue's routes and the table actions
// their calls make: Query of the queue (GSI1), of a report's id (GSI2)
// and of a target's reports, GetItem of a report and of each listed
// report's target, and a resolution's transaction (UpdateItem of the
// reports, PutItem of the audit entry; a takedown's also DeleteItem and
// UpdateItem of the content and its counters and a PutItem of its copy),
// then a takedown's removal of the content's likes, replies or members
// (Query, BatchWriteItem) and of reports it had no room for (UpdateItem).
func moderationRoutes(d api.Deps, a *auditor) ([]httpapi.Route, []string) {
	h := &moderationHandler{queue: reports.NewQueue(dynamo.NewReports(d.Table), d.Now), a: a}
	list := []httpapi.Param{
		{Name: "status", Type: "string", Enum: reports.Statuses, About: "the reports of this status; open by default"},
		{Name: "cursor", Type: "string", About: "nextCursor of the previous page"},
		httpapi.LimitParam(page.DefaultLimit, page.MaxLimit),
	}
	notOperator := "the caller is not an operator."
	return []httpapi.Route{
		{Method: http.MethodGet, Path: httpapi.V1("/admin/reports"), Auth: httpapi.AuthBearer, Role: httpapi.Operator, Handler: h.list,
			Doc: httpapi.Doc{Summary: "The reports queue: reports of one status (open by default), newest first, each with a summary of what it reports",
				Query: list, Response: httpapi.CursorBody[adminReport]{}, Errors: []int{400, 403},
				Why: map[int]string{400: "an unknown status, a bad limit or cursor.", 403: notOperator}}},
		{Method: http.MethodGet, Path: httpapi.V1("/admin/reports/{reportId}"), Auth: httpapi.AuthBearer, Role: httpapi.Operator, Handler: h.get,
			Doc: httpapi.Doc{Summary: "One report, with a summary of what it reports and its resolution",
				Response: adminReport{}, Errors: []int{403, 404},
				Why: map[int]string{403: notOperator, 404: "no report has the id."}}},
		{Method: http.MethodPost, Path: httpapi.V1("/admin/reports/{reportId}/resolve"), Auth: httpapi.AuthBearer, Role: httpapi.Operator, Handler: h.resolve,
			Doc: httpapi.Doc{Summary: "Resolve an open report: dismiss it (the content stays), or take the content down (it leaves every list and counter and answers 404 to everyone but its author, who still reads it with the reason; the target's other open reports are resolved with it); the resolution and an audit entry are written together",
				Body: resolveReportRequest{}, Response: adminReport{}, Errors: []int{400, 403, 404, 409, 503},
				Why: map[int]string{400: "an unknown action, or no reason.", 403: notOperator, 404: "no report has the id.",
					409: "the report is resolved already, or (takedown) its content no longer exists.",
					503: "(takedown) the content kept changing during the takedown; retry."}}},
	}, []string{"dynamodb:BatchWriteItem", "dynamodb:DeleteItem", "dynamodb:GetItem", "dynamodb:PutItem", "dynamodb:Query", "dynamodb:UpdateItem"}
}

// resolveReportRequest is the body of POST /v1/admin/reports/{reportId}/resolve.
type resolveReportRequest struct {
	Action string `json:"action" doc:"What to do about the report: dismiss (nothing wrong; the content stays) or takedown (the content leaves every list and counter and answers 404 to everyone but its author; the target's other open reports are resolved with it)."`
	Reason string `json:"reason" doc:"Why, for the audit log and the report's record (1-1000 characters)."`
}

// adminReport is a report as operators see it.
type adminReport struct {
	ID         string            `json:"id"`
	ReporterID string            `json:"reporterId" doc:"The reader who filed the report."`
	Reason     string            `json:"reason" doc:"The reporter's reason."`
	Status     string            `json:"status" doc:"open or resolved."`
	CreatedAt  string            `json:"createdAt"`
	Target     reportTarget      `json:"target"`
	Resolution *reportResolution `json:"resolution" doc:"How an operator resolved the report; null while it is open."`
}

// reportTarget is what a report is about, summarized for moderation.
type reportTarget struct {
	Type      string  `json:"type" doc:"line, reply, review or club."`
	ID        string  `json:"id"`
	LineID    *string `json:"lineId" doc:"A reply's line; null for any other target."`
	BookID    *string `json:"bookId" doc:"The book of a line or a review; null otherwise."`
	AuthorID  *string `json:"authorId" doc:"Who wrote it (a club: its host); null when it no longer exists."`
	Excerpt   *string `json:"excerpt" doc:"The start of its text (a club: its name), at most 200 characters; null when it no longer exists."`
	Exists    bool    `json:"exists" doc:"False when the content is no longer there: deleted by its author since it was reported, or taken down."`
	TakenDown bool    `json:"takenDown" doc:"True when an operator took it down: its copy is kept for its author, and authorId, bookId and excerpt are the copy's."`
}

// reportResolution is a resolved report's resolution.
type reportResolution struct {
	Action     string `json:"action"`
	Reason     string `json:"reason"`
	ResolvedAt string `json:"resolvedAt"`
	ResolvedBy string `json:"resolvedBy" doc:"The operator who resolved it."`
}

func optional(s string) *string {
	if s == "" {
		return nil
	}
	return &s
}

func newAdminReport(q reports.Queued) adminReport {
	out := adminReport{
		ID: q.ID, ReporterID: q.ReporterID, Reason: q.Reason, Status: q.Status, CreatedAt: userjson.Time(q.CreatedAt),
		Target: reportTarget{Type: string(q.Target.Type), ID: q.Target.ID, LineID: optional(q.Target.LineID),
			Exists: !q.Summary.Missing, TakenDown: q.Summary.TakenDown},
	}
	if !q.Summary.Missing || q.Summary.TakenDown {
		out.Target.BookID, out.Target.AuthorID = optional(q.Summary.BookID), optional(q.Summary.AuthorID)
		out.Target.Excerpt = &q.Summary.Excerpt
	}
	if res := q.Resolution; res != nil {
		out.Resolution = &reportResolution{Action: res.Action, Reason: res.Reason, ResolvedAt: userjson.Time(res.ResolvedAt), ResolvedBy: res.ResolvedBy}
	}
	return out
}

func (h *moderationHandler) list(w http.ResponseWriter, r *http.Request) error {
	c, err := httpapi.CursorPage(r)
	if err != nil {
		return err
	}
	p, err := h.queue.List(r.Context(), r.URL.Query().Get("status"), c)
	if err != nil {
		return err
	}
	return httpapi.JSON(w, http.StatusOK, httpapi.NewCursorBody(r, p, newAdminReport))
}

func (h *moderationHandler) get(w http.ResponseWriter, r *http.Request) error {
	q, err := h.queue.Get(r.Context(), r.PathValue("reportId"))
	if err != nil {
		return err
	}
	return httpapi.JSON(w, http.StatusOK, newAdminReport(*q))
}

// resolve serves POST /v1/admin/reports/{reportId}/resolve: the audit
// entry (report.dismiss or report.takedown, on the report) starts once
// the request is valid and rides the resolution's transaction.
func (h *moderationHandler) resolve(w http.ResponseWriter, r *http.Request) error {
	var req resolveReportRequest
	if err := httpapi.Decode(w, r, &req); err != nil {
		return err
	}
	reason, err := reports.Check(req.Action, req.Reason)
	if err != nil {
		return err
	}
	id, err := pathID(r, "reportId", reports.ErrReportNotFound)
	if err != nil {
		return err
	}
	action := audit.ActionReportDismiss
	if req.Action == reports.ResolutionTakedown {
		action = audit.ActionReportTakedown
	}
	ctx := h.a.begin(r, audit.Entry{Action: action, TargetType: audit.TargetReport, TargetID: id, Reason: reason,
		Detail: map[string]string{"resolution": req.Action}})
	q, err := h.queue.Resolve(ctx, id, httpapi.CallerOf(r).ID, req.Action, reason)
	if err != nil {
		return err
	}
	return httpapi.JSON(w, http.StatusOK, newAdminReport(*q))
}
