package adminapitest

import "github.com/bookplatform/backend/shared/api/apitest"

// moderationFacts: the reports queue. Its steps run in the Report stage,
// after the reports group's: the converted guest has reported the
// reader's review. The operator lists the queue (the newest open report
// is that one), reads it and dismisses it, so the review stays for the
// Tidy stage's steps that read and delete it; then takes down a line
// posted and reported for the purpose.
func moderationFacts() apitest.Facts {
	const unknown = "0193a8c4-2f6e-7d1a-9b3c-5e7f9a1b3c5d"
	var (
		reportID string // the listed report, for the steps after the list
		lineID   string // the line to be taken down
		spamID   string // its report
	)
	report := func(id string) string { return "/v1/admin/reports/" + id }
	resolve := func(id string) string { return report(id) + "/resolve" }
	dismiss := map[string]any{"action": "dismiss", "reason": "Not spam: a strongly worded review."}
	return apitest.Facts{
		Steps: []apitest.Step{
			{Stage: apitest.Report, Route: "GET /v1/admin/reports", Want: 200, Do: func(c *apitest.Client, s *apitest.State) *apitest.Response {
				res := c.Do("GET", "/v1/admin/reports", nil, s.OperatorToken)
				if items, _ := res.JSON["items"].([]any); len(items) > 0 {
					reportID, _ = items[0].(map[string]any)["id"].(string)
				}
				return res
			}},
			{Stage: apitest.Report, Route: "GET /v1/admin/reports", Note: "not an operator", Want: 403, Do: func(c *apitest.Client, s *apitest.State) *apitest.Response {
				return c.Do("GET", "/v1/admin/reports", nil, s.Token)
			}},
			{Stage: apitest.Report, Route: "GET /v1/admin/reports", Note: "unknown status", Want: 400, Do: func(c *apitest.Client, s *apitest.State) *apitest.Response {
				return c.Do("GET", "/v1/admin/reports?status=closed", nil, s.OperatorToken)
			}},
			{Stage: apitest.Report, Route: "GET /v1/admin/reports/{reportId}", Want: 200, Do: func(c *apitest.Client, s *apitest.State) *apitest.Response {
				return c.Do("GET", report(reportID), nil, s.OperatorToken)
			}},
			{Stage: apitest.Report, Route: "GET /v1/admin/reports/{reportId}", Note: "not an operator", Want: 403, Do: func(c *apitest.Client, s *apitest.State) *apitest.Response {
				return c.Do("GET", report(reportID), nil, s.Token)
			}},
			{Stage: apitest.Report, Route: "GET /v1/admin/reports/{reportId}", Note: "no such report", Want: 404, Do: func(c *apitest.Client, s *apitest.State) *apitest.Response {
				return c.Do("GET", report(unknown), nil, s.OperatorToken)
			}},
			{Stage: apitest.Report, Route: "POST /v1/admin/reports/{reportId}/resolve", Note: "not an operator", Want: 403, Do: func(c *apitest.Client, s *apitest.State) *apitest.Response {
				return c.Do("POST", resolve(reportID), dismiss, s.Token)
			}},
			{Stage: apitest.Report, Route: "POST /v1/admin/reports/{reportId}/resolve", Note: "unknown action", Want: 400, Do: func(c *apitest.Client, s *apitest.State) *apitest.Response {
				return c.Do("POST", resolve(reportID), map[string]any{"action": "ban", "reason": "No."}, s.OperatorToken)
			}},
			{Stage: apitest.Report, Route: "POST /v1/admin/reports/{reportId}/resolve", Note: "no such report", Want: 404, Do: func(c *apitest.Client, s *apitest.State) *apitest.Response {
				return c.Do("POST", resolve(unknown), dismiss, s.OperatorToken)
			}},
			{Stage: apitest.Report, Route: "POST /v1/admin/reports/{reportId}/resolve", Note: "dismiss", Want: 200, Do: func(c *apitest.Client, s *apitest.State) *apitest.Response {
				return c.Do("POST", resolve(reportID), dismiss, s.OperatorToken)
			}},
			{Stage: apitest.Report, Route: "POST /v1/admin/reports/{reportId}/resolve", Note: "resolved already", Want: 409, Do: func(c *apitest.Client, s *apitest.State) *apitest.Response {
				return c.Do("POST", resolve(reportID), dismiss, s.OperatorToken)
			}},
			// A takedown: the converted guest posts a line, the operator
			// likes it and the reader reports it; an operator takes it
			// down (with its like) and it answers 404 to the reader. Its
			// author's read of it (a third round trip on a path this rare)
			// is tested in adminapi's TestTakedown_Line.
			{Stage: apitest.Report, Route: "POST /v1/lines", Note: "a line to be taken down", Want: 201, Do: func(c *apitest.Client, s *apitest.State) *apitest.Response {
				res := c.Do("POST", "/v1/lines", map[string]any{"bookId": s.BookID, "content": "Buy followers at a discount, link in my profile."}, s.MigratedToken)
				lineID, _ = res.JSON["id"].(string)
				return res
			}},
			{Stage: apitest.Report, Route: "POST /v1/reports", Note: "of a line to be taken down", Want: 201, Do: func(c *apitest.Client, s *apitest.State) *apitest.Response {
				res := c.Do("POST", "/v1/reports", map[string]any{"targetType": "line", "targetId": lineID, "reason": "Spam."}, s.Token)
				spamID, _ = res.JSON["id"].(string)
				return res
			}},
			{Stage: apitest.Report, Route: "POST /v1/lines/{id}/like", Note: "a line to be taken down", Want: 200, Do: func(c *apitest.Client, s *apitest.State) *apitest.Response {
				return c.Do("POST", "/v1/lines/"+lineID+"/like", nil, s.OperatorToken)
			}},
			{Stage: apitest.Report, Route: "POST /v1/admin/reports/{reportId}/resolve", Note: "takedown", Want: 200, Do: func(c *apitest.Client, s *apitest.State) *apitest.Response {
				return c.Do("POST", resolve(spamID), map[string]any{"action": "takedown", "reason": "Spam: advertising."}, s.OperatorToken)
			}},
			{Stage: apitest.Report, Route: "GET /v1/lines/{id}", Note: "taken down, by another reader", Want: 404, Do: func(c *apitest.Client, s *apitest.State) *apitest.Response {
				return c.Do("GET", "/v1/lines/"+lineID, nil, s.Token)
			}},
		},
		// The spec names no action for the back office; the tier rate
		// applies.
		Actions: map[string][]string{
			"GET /v1/admin/reports":                     nil,
			"GET /v1/admin/reports/{reportId}":          nil,
			"POST /v1/admin/reports/{reportId}/resolve": nil,
		},
	}
}
