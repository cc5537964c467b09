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
	if r.Target.LineID != "" {
		id := r.Target.LineID
		out.LineID = &id
	}
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
