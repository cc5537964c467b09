package reportsapi

import (
	"net/http"

	"github.com/bookplatform/backend/shared/api/userjson"
	"github.com/bookplatform/backend/shared/httpapi"
	"github.com/bookplatform/backend/shared/reports"
)

// createRequest is the body of POST /v1/reports. targetType is line,
// reply, review or club; targetId the target's id; lineId, for a reply
// only, the id of the reply's line (a reply is found through it).
type createRequest struct {
	TargetType string `json:"targetType"`
	TargetID   string `json:"targetId"`
	LineID     string `json:"lineId,omitempty"`
	Reason     string `json:"reason"`
}

// report is a stored report as its reporter sees it.
type report struct {
	ID         string  `json:"id"`
	TargetType string  `json:"targetType"`
	TargetID   string  `json:"targetId"`
	LineID     *string `json:"lineId"`
	Reason     string  `json:"reason"`
	Status     string  `json:"status"`
	CreatedAt  string  `json:"createdAt"`
}

func newReport(r *reports.Report) report {
	out := report{
		ID: r.ID, TargetType: string(r.Target.Type), TargetID: r.Target.ID, Reason: r.Reason,
		Status: r.Status, CreatedAt: userjson.Time(r.CreatedAt),
	}
	out.LineID = nullable(r.Target.LineID)
	return out
}

// create serves POST /v1/reports: 201 with the report; 404 for a target
// that does not exist, 400 for one's own, 409 for a second report of the
// same target.
func (h *handler) create(w http.ResponseWriter, r *http.Request) error {
	var req createRequest
	if err := httpapi.Decode(w, r, &req); err != nil {
		return err
	}
	rep, err := h.reports.Create(r.Context(), httpapi.CallerOf(r).ID, reports.NewReport{
		TargetType: req.TargetType, TargetID: req.TargetID, LineID: req.LineID, Reason: req.Reason,
	})
	if err != nil {
		return err
	}
	return httpapi.JSON(w, http.StatusCreated, newReport(rep))
}

// takenDown is one of the caller's own lines, replies, reviews or clubs
// that an operator took down.
type takenDown struct {
	Type    string  `json:"type" doc:"line, reply, review or club."`
	ID      string  `json:"id"`
	LineID  *string `json:"lineId" doc:"A reply's line; null for any other type."`
	BookID  *string `json:"bookId" doc:"The book of a line or a review; null otherwise."`
	Content string  `json:"content" doc:"Its text as it was (a club: its name)."`
	Reason  string  `json:"reason" doc:"Why an operator took it down."`
	At      string  `json:"takenDownAt"`
}

func newTakenDown(td reports.TakenDown) takenDown {
	return takenDown{
		Type: string(td.Target.Type), ID: td.Target.ID, LineID: nullable(td.Target.LineID), BookID: nullable(td.BookID),
		Content: td.Content, Reason: td.Reason, At: userjson.Time(td.At),
	}
}

func nullable(s string) *string {
	if s == "" {
		return nil
	}
	return &s
}

// takenDown serves GET /v1/users/me/taken-down: the caller's own content
// taken down, most recent first, cursor-paged.
func (h *handler) takenDown(w http.ResponseWriter, r *http.Request) error {
	c, err := httpapi.CursorPage(r)
	if err != nil {
		return err
	}
	p, err := h.reports.TakenDown(r.Context(), httpapi.CallerOf(r).ID, c)
	if err != nil {
		return err
	}
	return httpapi.JSON(w, http.StatusOK, httpapi.NewCursorBody(r, p, newTakenDown))
}
