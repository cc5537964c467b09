package adminapi

import (
	"net/http"
	"time"

	"github.com/bookplatform/backend/shared/api"
	"github.com/bookplatform/backend/shared/api/userjson"
	"github.com/bookplatform/backend/shared/apperr"
	"github.com/bookplatform/backend/shared/audit"
	"github.com/bookplatform/backend/shared/dynamo"
	"github.com/bookplatform/backend/shared/httpapi"
	"github.com/bookplatform/backend/shared/page"
)

// auditHandler serves the audit log.
type auditHandler struct{ log *dynamo.Audit }

// auditRoutes are the back office's routes of the audit log and the
// table actions their calls make: one Query (of the log's partition, or
// of an actor's or a target's index list).
func auditRoutes(d api.Deps, a *auditor) ([]httpapi.Route, []string) {
	h := &auditHandler{log: a.log}
	return []httpapi.Route{
		{Method: http.MethodGet, Path: httpapi.V1("/admin/audit"), Auth: httpapi.AuthBearer, Role: httpapi.Operator, Handler: h.list,
			Doc: httpapi.Doc{Summary: "The audit log: every operator action (who, when, what, on what, why), newest first, by actor, target, action and time",
				Query: []httpapi.Param{
					{Name: "actorId", Type: "string", NotUUID: true, About: "the operator's user id (or cli:<name> for the operator command)"},
					{Name: "targetType", Type: "string", About: "what the action was on: user, report, line, reply, review, club, bookstore_application, payout, order"},
					{Name: "targetId", Type: "string", NotUUID: true, About: "the target's id; needs targetType"},
					{Name: "action", Type: "string", About: "the action, e.g. user.tier, user.suspend, report.takedown"},
					{Name: "from", Type: "string", About: "RFC 3339 time: entries at or after it"},
					{Name: "to", Type: "string", About: "RFC 3339 time: entries at or before it"},
					httpapi.LimitParam(page.DefaultLimit, page.MaxLimit),
					{Name: "cursor", Type: "string", About: "nextCursor of the previous page"},
				},
				Response: httpapi.CursorBody[auditJSON]{}, Errors: []int{400, 403},
				Why: map[int]string{400: "targetId without targetType, a time that is not RFC 3339, from after to, or a bad cursor or limit.",
					403: "the caller is not an operator."}}},
	}, []string{"dynamodb:Query"}
}

// auditJSON is one audit entry.
type auditJSON struct {
	ID         string            `json:"id" doc:"The entry's id."`
	At         string            `json:"at" doc:"When the action was taken."`
	ActorID    string            `json:"actorId" doc:"The operator's user id, or cli:<name> for the operator command."`
	Action     string            `json:"action" doc:"What was done (user.tier, user.suspend, report.takedown...)."`
	TargetType string            `json:"targetType" doc:"What it was done to."`
	TargetID   string            `json:"targetId" doc:"The target's id."`
	Reason     *string           `json:"reason" doc:"The operator's reason; null when none was given."`
	Detail     map[string]string `json:"detail" doc:"What changed (e.g. from and to of a tier)."`
	Apart      bool              `json:"apart" doc:"Written after its action instead of in its transaction (a defect; none expected)."`
}

func newAuditJSON(e audit.Entry) auditJSON {
	out := auditJSON{ID: e.ID, At: userjson.Time(e.At), ActorID: e.ActorID, Action: e.Action, TargetType: e.TargetType,
		TargetID: e.TargetID, Detail: e.Detail, Apart: e.Apart}
	if e.Reason != "" {
		out.Reason = &e.Reason
	}
	if out.Detail == nil {
		out.Detail = map[string]string{}
	}
	return out
}

// maxAuditFilterBytes bounds each of the audit log's filters: ids,
// cli:<name> actors and action names are far shorter.
const maxAuditFilterBytes = 256

func (h *auditHandler) list(w http.ResponseWriter, r *http.Request) error {
	q := r.URL.Query()
	f := dynamo.AuditFilter{ActorID: q.Get("actorId"), TargetType: q.Get("targetType"), TargetID: q.Get("targetId"), Action: q.Get("action")}
	var fields apperr.Fields
	if f.TargetID != "" && f.TargetType == "" {
		fields.Add("targetType", "is required with targetId")
	}
	// Each names an index partition: a value no entry can have (DynamoDB
	// refuses a key over 2,048 bytes) is the client's mistake, not a 500.
	for name, v := range map[string]string{"actorId": f.ActorID, "targetType": f.TargetType, "targetId": f.TargetID, "action": f.Action} {
		if len(v) > maxAuditFilterBytes {
			fields.Add(name, "is too long")
		}
	}
	for _, t := range []struct {
		name string
		at   *time.Time
	}{{"from", &f.From}, {"to", &f.To}} {
		if v := q.Get(t.name); v != "" {
			at, err := time.Parse(time.RFC3339Nano, v)
			if err != nil {
				fields.Add(t.name, "must be an RFC 3339 time")
			}
			*t.at = at
		}
	}
	if !f.From.IsZero() && !f.To.IsZero() && f.From.After(f.To) {
		fields.Add("from", "must not be after to")
	}
	if err := fields.Err(); err != nil {
		return err
	}
	c, err := httpapi.CursorPage(r)
	if err != nil {
		return err
	}
	p, err := h.log.ListAudit(r.Context(), f, c)
	if err != nil {
		return err
	}
	return httpapi.JSON(w, http.StatusOK, httpapi.NewCursorBody(r, p, newAuditJSON))
}
