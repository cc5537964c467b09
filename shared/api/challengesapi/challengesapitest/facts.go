// Package challengesapitest declares what the central tests need about the
// challenges group (shared/api/apitest): its steps of the call benchmark's
// scenario (local/bench) and the rate-limit actions of its routes
// (shared/groups). Test support: no function links it.
package challengesapitest

import (
	"github.com/bookplatform/backend/shared/api/apitest"
)

// Facts are the challenges group's steps and its routes' rate-limit actions.
func Facts() apitest.Facts {
	return apitest.Facts{
		Steps: []apitest.Step{
			// Challenges: the reader hosts, the converted guest takes part.
			{Stage: apitest.Gather, Route: "POST /v1/challenges", Want: 201, Do: func(c *apitest.Client, s *apitest.State) *apitest.Response {
				res := c.Do("POST", "/v1/challenges", map[string]any{"name": "Bench challenge", "goal": 12, "startDate": "2026-01-01", "endDate": "2026-12-31"}, s.Token)
				s.ChallengeID, _ = res.JSON["id"].(string)
				return res
			}},
			{Stage: apitest.Gather, Route: "GET /v1/challenges", Want: 200, Do: func(c *apitest.Client, _ *apitest.State) *apitest.Response {
				return c.Do("GET", "/v1/challenges", nil, "")
			}},
			{Stage: apitest.Gather, Route: "GET /v1/challenges/{id}", Note: "signed in", Want: 200, Do: func(c *apitest.Client, s *apitest.State) *apitest.Response {
				return c.Do("GET", "/v1/challenges/"+s.ChallengeID, nil, s.MigratedToken)
			}},
			{Stage: apitest.Gather, Route: "PUT /v1/challenges/{id}", Note: "start date alone", Want: 200, Do: func(c *apitest.Client, s *apitest.State) *apitest.Response {
				return c.Do("PUT", "/v1/challenges/"+s.ChallengeID, map[string]any{"startDate": "2026-02-01", "goal": 10}, s.Token)
			}},
			{Stage: apitest.Gather, Route: "POST /v1/challenges/{id}/join", Want: 201, Do: func(c *apitest.Client, s *apitest.State) *apitest.Response {
				return c.Do("POST", "/v1/challenges/"+s.ChallengeID+"/join", nil, s.MigratedToken)
			}},
			{Stage: apitest.Gather, Route: "PUT /v1/challenges/{id}/progress", Want: 200, Do: func(c *apitest.Client, s *apitest.State) *apitest.Response {
				return c.Do("PUT", "/v1/challenges/"+s.ChallengeID+"/progress", map[string]any{"progress": 3}, s.MigratedToken)
			}},
			{Stage: apitest.Gather, Route: "GET /v1/challenges/{id}/participants", Want: 200, Do: func(c *apitest.Client, s *apitest.State) *apitest.Response {
				return c.Do("GET", "/v1/challenges/"+s.ChallengeID+"/participants", nil, "")
			}},
			{Stage: apitest.Gather, Route: "POST /v1/lines", Note: "in a challenge", Want: 201, Do: func(c *apitest.Client, s *apitest.State) *apitest.Response {
				return c.Do("POST", "/v1/lines", map[string]any{"bookId": s.BookID, "content": "Three down.", "challengeId": s.ChallengeID}, s.MigratedToken)
			}},
			{Stage: apitest.Gather, Route: "GET /v1/lines/challenge/{challengeId}", Want: 200, Do: func(c *apitest.Client, s *apitest.State) *apitest.Response {
				return c.Do("GET", "/v1/lines/challenge/"+s.ChallengeID, nil, s.Token)
			}},
			{Stage: apitest.Gather, Route: "GET /v1/users/me/challenges", Want: 200, Do: func(c *apitest.Client, s *apitest.State) *apitest.Response {
				return c.Do("GET", "/v1/users/me/challenges", nil, s.MigratedToken)
			}},
			{Stage: apitest.Gather, Route: "GET /v1/users/{username}/challenges", Want: 200, Do: func(c *apitest.Client, s *apitest.State) *apitest.Response {
				return c.Do("GET", "/v1/users/"+s.Username+"/challenges", nil, "")
			}},
			{Stage: apitest.Gather, Route: "DELETE /v1/challenges/{id}/leave", Want: 200, Do: func(c *apitest.Client, s *apitest.State) *apitest.Response {
				return c.Do("DELETE", "/v1/challenges/"+s.ChallengeID+"/leave", nil, s.MigratedToken)
			}},
			{Stage: apitest.Gather, Route: "DELETE /v1/challenges/{id}", Want: 200, Do: func(c *apitest.Client, s *apitest.State) *apitest.Response {
				return c.Do("DELETE", "/v1/challenges/"+s.ChallengeID, nil, s.Token)
			}},
		},
		Actions: map[string][]string{
			"GET /v1/challenges":                   nil,
			"POST /v1/challenges":                  nil,
			"GET /v1/challenges/{id}":              nil,
			"PUT /v1/challenges/{id}":              nil,
			"DELETE /v1/challenges/{id}":           nil,
			"POST /v1/challenges/{id}/join":        nil,
			"DELETE /v1/challenges/{id}/leave":     nil,
			"PUT /v1/challenges/{id}/progress":     nil,
			"GET /v1/challenges/{id}/participants": nil,
			"GET /v1/users/me/challenges":          nil,
			"GET /v1/users/{username}/challenges":  nil,
			"GET /v1/stores/{slug}/challenges":     nil,
		},
	}
}
