// Package reportsapi is the reports endpoint group (designed: the spec
// names the report limit only): a signed-in reader reports a line, a
// reply, a review or a club with a reason, once per target; reports are
// stored for moderation (docs/decisions.md, "Reports").
package reportsapi

import (
	"net/http"

	"github.com/bookplatform/backend/shared/api"
	"github.com/bookplatform/backend/shared/dynamo"
	"github.com/bookplatform/backend/shared/httpapi"
	"github.com/bookplatform/backend/shared/lines"
	"github.com/bookplatform/backend/shared/page"
	"github.com/bookplatform/backend/shared/reports"
)

// handler serves the reports group.
type handler struct {
	reports *reports.Service
}

// Group is the reports group. Its calls: GetItem of a reported line (or
// a reply's line) and, for a line in a club or a reported club, of the
// club and the reporter's membership, to answer a target the reporter may
// not see as missing; TransactWriteItems for a report with the check of
// its target (parts: PutItem, ConditionCheckItem); GetItem of the target
// when that check fails, to tell a missing target from one's own. The
// lines service is built on the lines and clubs stores alone: reports
// uses only its visibility rule (lines.Service.Readable). One's content
// taken down is a Query of GSI1.
func Group(d api.Deps) api.Group {
	clubStore := dynamo.NewClubs(d.Table)
	h := &handler{reports: reports.NewService(reports.Deps{
		Store: dynamo.NewReports(d.Table),
		Lines: lines.NewService(lines.Deps{Store: dynamo.NewLines(d.Table), Clubs: clubStore}),
		Clubs: clubStore,
		Now:   d.Now,
	})}
	return api.Group{
		Name:  "reports",
		Table: []string{"dynamodb:GetItem", "dynamodb:PutItem", "dynamodb:ConditionCheckItem", "dynamodb:Query"},
		Routes: []httpapi.Route{
			{Method: http.MethodPost, Path: httpapi.V1("/reports"), Auth: httpapi.AuthBearer, Actions: []string{"report"}, Idempotent: true, Handler: h.create,
				Doc: httpapi.Doc{Summary: "Report a line, a reply, a review or a club to moderation", Body: createRequest{}, Response: report{}, Status: http.StatusCreated, Errors: []int{400, 404, 409},
					Why: map[int]string{404: "no such line, reply, review or club, or one the caller may not see (a private club's).", 409: "the caller has already reported this target."}}},
			{Method: http.MethodGet, Path: httpapi.V1("/users/me/taken-down"), Auth: httpapi.AuthBearer, Handler: h.takenDown,
				Doc: httpapi.Doc{Summary: "The caller's lines, replies, reviews and clubs that operators took down from a report, most recent first, each with what it was and the operator's reason",
					Query: []httpapi.Param{
						{Name: "cursor", Type: "string", About: "nextCursor of the previous page"},
						httpapi.LimitParam(page.DefaultLimit, page.MaxLimit),
					},
					Response: httpapi.CursorBody[takenDown]{}, Errors: []int{400}, Why: map[int]string{400: "a bad limit or cursor."}}},
		},
	}
}
