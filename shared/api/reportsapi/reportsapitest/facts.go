// Package reportsapitest declares what the central tests need about the
// reports group (shared/api/apitest): its steps of the call benchmark's
// scenario (local/bench) and the rate-limit actions of its routes
// (shared/groups). Test support: no function links it.
package reportsapitest

import (
	"github.com/bookplatform/backend/shared/api/apitest"
)

// Facts are the reports group's steps and its routes' rate-limit actions.
func Facts() apitest.Facts {
	return apitest.Facts{
		Steps: []apitest.Step{
			// Reports: the converted guest reports the reader's review.
			// With an Idempotency-Key: the router keeps the answer (PutItem),
			// replays it (GetItem) and releases the key of a refusal
			// (DeleteItem), with the function's grants.
			{Stage: apitest.Report, Route: "POST /v1/reports", Note: "a review, keyed", Want: 201, Do: func(c *apitest.Client, s *apitest.State) *apitest.Response {
				return c.Keyed("bench-report-1").Do("POST", "/v1/reports", map[string]any{"targetType": "review", "targetId": s.ReviewID, "reason": "Benchmarked spam."}, s.MigratedToken)
			}},
			{Stage: apitest.Report, Route: "POST /v1/reports", Note: "retry, same key", Want: 201, Do: func(c *apitest.Client, s *apitest.State) *apitest.Response {
				return c.Keyed("bench-report-1").Do("POST", "/v1/reports", map[string]any{"targetType": "review", "targetId": s.ReviewID, "reason": "Benchmarked spam."}, s.MigratedToken)
			}},
			{Stage: apitest.Report, Route: "POST /v1/reports", Note: "again", Want: 409, Do: func(c *apitest.Client, s *apitest.State) *apitest.Response {
				return c.Do("POST", "/v1/reports", map[string]any{"targetType": "review", "targetId": s.ReviewID, "reason": "Still spam."}, s.MigratedToken)
			}},
			{Stage: apitest.Report, Route: "POST /v1/reports", Note: "one's own, keyed", Want: 400, Do: func(c *apitest.Client, s *apitest.State) *apitest.Response {
				return c.Keyed("bench-report-2").Do("POST", "/v1/reports", map[string]any{"targetType": "review", "targetId": s.ReviewID, "reason": "Mine."}, s.Token)
			}},
			// The converted guest's line an operator took down in the Report
			// stage (adminapitest) is listed for its author.
			{Stage: apitest.Tidy, Route: "GET /v1/users/me/taken-down", Want: 200, Do: func(c *apitest.Client, s *apitest.State) *apitest.Response {
				return c.Do("GET", "/v1/users/me/taken-down", nil, s.MigratedToken)
			}},
			{Stage: apitest.Tidy, Route: "GET /v1/users/me/taken-down", Note: "a bad cursor", Want: 400, Do: func(c *apitest.Client, s *apitest.State) *apitest.Response {
				return c.Do("GET", "/v1/users/me/taken-down?cursor=nope", nil, s.MigratedToken)
			}},
		},
		Actions: map[string][]string{
			"GET /v1/users/me/taken-down": nil,
			"POST /v1/reports":            {"report"},
		},
	}
}
