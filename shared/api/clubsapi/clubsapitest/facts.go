// Package clubsapitest declares what the central tests need about the
// clubs group (shared/api/apitest): its steps of the call benchmark's
// scenario (local/bench) and the rate-limit actions of its routes
// (shared/groups). Test support: no function links it.
package clubsapitest

import (
	"encoding/base64"
	"encoding/json"
	"strings"

	"github.com/bookplatform/backend/shared/api/apitest"
)

// Facts are the clubs group's steps and its routes' rate-limit actions.
func Facts() apitest.Facts {
	return apitest.Facts{
		Steps: []apitest.Step{
			// Clubs: the reader (made premium) hosts, the converted guest joins.
			{Stage: apitest.Gather, Route: "POST /v1/clubs", Note: "premium", Want: 201, Before: func(s *apitest.State) error { return s.Promote(s.UserID) }, Do: func(c *apitest.Client, s *apitest.State) *apitest.Response {
				res := c.Do("POST", "/v1/clubs", map[string]any{"name": "Bench club", "description": "Measured reading.", "isPublic": true}, s.Token)
				s.ClubID, _ = res.JSON["id"].(string)
				return res
			}},
			{Stage: apitest.Gather, Route: "POST /v1/clubs", Note: "free tier", Want: 403, Do: func(c *apitest.Client, s *apitest.State) *apitest.Response {
				return c.Do("POST", "/v1/clubs", map[string]any{"name": "Not mine"}, s.MigratedToken)
			}},
			{Stage: apitest.Gather, Route: "GET /v1/clubs", Want: 200, Do: func(c *apitest.Client, _ *apitest.State) *apitest.Response {
				return c.Do("GET", "/v1/clubs", nil, "")
			}},
			{Stage: apitest.Gather, Route: "GET /v1/clubs", Note: "signed in, public", Want: 200, Do: func(c *apitest.Client, s *apitest.State) *apitest.Response {
				return c.Do("GET", "/v1/clubs?isPublic=true&limit=10", nil, s.MigratedToken)
			}},
			{Stage: apitest.Gather, Route: "POST /v1/clubs/{id}/join", Want: 201, Do: func(c *apitest.Client, s *apitest.State) *apitest.Response {
				return c.Do("POST", "/v1/clubs/"+s.ClubID+"/join", nil, s.MigratedToken)
			}},
			{Stage: apitest.Gather, Route: "POST /v1/clubs/{id}/join", Note: "already a member", Want: 400, Do: func(c *apitest.Client, s *apitest.State) *apitest.Response {
				return c.Do("POST", "/v1/clubs/"+s.ClubID+"/join", nil, s.MigratedToken)
			}},
			{Stage: apitest.Gather, Route: "DELETE /v1/clubs/{id}/leave", Want: 200, Do: func(c *apitest.Client, s *apitest.State) *apitest.Response {
				return c.Do("DELETE", "/v1/clubs/"+s.ClubID+"/leave", nil, s.MigratedToken)
			}},
			{Stage: apitest.Gather, Route: "DELETE /v1/clubs/{id}/leave", Note: "the host", Want: 400, Do: func(c *apitest.Client, s *apitest.State) *apitest.Response {
				return c.Do("DELETE", "/v1/clubs/"+s.ClubID+"/leave", nil, s.Token)
			}},
			{Stage: apitest.Gather, Route: "POST /v1/clubs/{id}/members", Note: "the host adds", Want: 201, Do: func(c *apitest.Client, s *apitest.State) *apitest.Response {
				return c.Do("POST", "/v1/clubs/"+s.ClubID+"/members", map[string]any{"userId": migratedID(s)}, s.Token)
			}},
			{Stage: apitest.Gather, Route: "PUT /v1/clubs/{id}/members/{memberId}/role", Note: "moderator", Want: 200, Do: func(c *apitest.Client, s *apitest.State) *apitest.Response {
				return c.Do("PUT", "/v1/clubs/"+s.ClubID+"/members/"+migratedID(s)+"/role", map[string]any{"role": "moderator"}, s.Token)
			}},
			{Stage: apitest.Gather, Route: "PUT /v1/clubs/{id}", Note: "private", Want: 200, Do: func(c *apitest.Client, s *apitest.State) *apitest.Response {
				return c.Do("PUT", "/v1/clubs/"+s.ClubID, map[string]any{"name": "Bench club, closed", "isPublic": false}, s.Token)
			}},
			{Stage: apitest.Gather, Route: "PUT /v1/clubs/{id}", Note: "name only", Want: 200, Do: func(c *apitest.Client, s *apitest.State) *apitest.Response {
				return c.Do("PUT", "/v1/clubs/"+s.ClubID, map[string]any{"description": "Still measured."}, s.Token)
			}},
			{Stage: apitest.Gather, Route: "POST /v1/clubs/{id}/books", Note: "a moderator", Want: 201, Do: func(c *apitest.Client, s *apitest.State) *apitest.Response {
				return c.Do("POST", "/v1/clubs/"+s.ClubID+"/books", map[string]any{"bookId": s.BookID, "status": "current", "startDate": "2026-11-01", "endDate": "2026-11-30"}, s.MigratedToken)
			}},
			{Stage: apitest.Gather, Route: "PUT /v1/clubs/{id}/books/{bookId}", Note: "end date alone", Want: 200, Do: func(c *apitest.Client, s *apitest.State) *apitest.Response {
				return c.Do("PUT", "/v1/clubs/"+s.ClubID+"/books/"+s.BookID, map[string]any{"endDate": "2026-12-15", "notes": "Two more weeks."}, s.Token)
			}},
			{Stage: apitest.Gather, Route: "GET /v1/clubs/{id}", Note: "a member, private", Want: 200, Do: func(c *apitest.Client, s *apitest.State) *apitest.Response {
				return c.Do("GET", "/v1/clubs/"+s.ClubID, nil, s.MigratedToken)
			}},
			{Stage: apitest.Gather, Route: "GET /v1/clubs/{id}", Note: "no token, private", Want: 401, Do: func(c *apitest.Client, s *apitest.State) *apitest.Response {
				return c.Do("GET", "/v1/clubs/"+s.ClubID, nil, "")
			}},
			{Stage: apitest.Gather, Route: "GET /v1/clubs/{id}/members", Want: 200, Do: func(c *apitest.Client, s *apitest.State) *apitest.Response {
				return c.Do("GET", "/v1/clubs/"+s.ClubID+"/members", nil, s.Token)
			}},
			{Stage: apitest.Gather, Route: "GET /v1/clubs/me/joined", Want: 200, Do: func(c *apitest.Client, s *apitest.State) *apitest.Response {
				return c.Do("GET", "/v1/clubs/me/joined", nil, s.MigratedToken)
			}},
			{Stage: apitest.Gather, Route: "GET /v1/users/me/clubs", Want: 200, Do: func(c *apitest.Client, s *apitest.State) *apitest.Response {
				return c.Do("GET", "/v1/users/me/clubs", nil, s.Token)
			}},
			{Stage: apitest.Gather, Route: "GET /v1/users/{username}/clubs", Note: "public only", Want: 200, Do: func(c *apitest.Client, s *apitest.State) *apitest.Response {
				return c.Do("GET", "/v1/users/"+s.Username+"/clubs", nil, "")
			}},
			{Stage: apitest.Gather, Route: "POST /v1/lines", Note: "in a club", Want: 201, Do: func(c *apitest.Client, s *apitest.State) *apitest.Response {
				res := c.Do("POST", "/v1/lines", map[string]any{"bookId": s.BookID, "content": "Said in the club.", "clubId": s.ClubID}, s.MigratedToken)
				s.ClubLineID, _ = res.JSON["id"].(string)
				return res
			}},
			{Stage: apitest.Gather, Route: "GET /v1/lines/club/{clubId}", Want: 200, Do: func(c *apitest.Client, s *apitest.State) *apitest.Response {
				return c.Do("GET", "/v1/lines/club/"+s.ClubID, nil, s.Token)
			}},
			{Stage: apitest.Gather, Route: "GET /v1/clubs/{id}/lines", Note: "a member", Want: 200, Do: func(c *apitest.Client, s *apitest.State) *apitest.Response {
				return c.Do("GET", "/v1/clubs/"+s.ClubID+"/lines", nil, s.MigratedToken)
			}},
			{Stage: apitest.Gather, Route: "GET /v1/lines/{id}", Note: "a private club's", Want: 200, Do: func(c *apitest.Client, s *apitest.State) *apitest.Response {
				return c.Do("GET", "/v1/lines/"+s.ClubLineID, nil, s.Token)
			}},
			{Stage: apitest.Gather, Route: "DELETE /v1/clubs/{id}/books/{bookId}", Want: 200, Do: func(c *apitest.Client, s *apitest.State) *apitest.Response {
				return c.Do("DELETE", "/v1/clubs/"+s.ClubID+"/books/"+s.BookID, nil, s.Token)
			}},
			{Stage: apitest.Gather, Route: "DELETE /v1/clubs/{id}", Note: "not the host", Want: 403, Do: func(c *apitest.Client, s *apitest.State) *apitest.Response {
				return c.Do("DELETE", "/v1/clubs/"+s.ClubID, nil, s.MigratedToken)
			}},
			{Stage: apitest.Gather, Route: "DELETE /v1/clubs/{id}", Note: "2 members", Want: 200, Do: func(c *apitest.Client, s *apitest.State) *apitest.Response {
				return c.Do("DELETE", "/v1/clubs/"+s.ClubID, nil, s.Token)
			}},
		},
		Actions: map[string][]string{
			"GET /v1/clubs":                              nil,
			"POST /v1/clubs":                             nil,
			"GET /v1/clubs/me/joined":                    nil,
			"GET /v1/clubs/{id}":                         nil,
			"PUT /v1/clubs/{id}":                         nil,
			"DELETE /v1/clubs/{id}":                      nil,
			"POST /v1/clubs/{id}/books":                  nil,
			"PUT /v1/clubs/{id}/books/{bookId}":          nil,
			"DELETE /v1/clubs/{id}/books/{bookId}":       nil,
			"POST /v1/clubs/{id}/join":                   nil,
			"DELETE /v1/clubs/{id}/leave":                nil,
			"GET /v1/clubs/{id}/members":                 nil,
			"POST /v1/clubs/{id}/members":                nil,
			"PUT /v1/clubs/{id}/members/{memberId}/role": nil,
			"GET /v1/users/me/clubs":                     nil,
			"GET /v1/users/{username}/clubs":             nil,
			"GET /v1/stores/{slug}/clubs":                nil,
		},
	}
}

// migratedID is the converted guest's account id, read from its token's
// claims (the scenario never asked for it).
func migratedID(s *apitest.State) string {
	parts := strings.Split(s.MigratedToken, ".")
	if len(parts) != 3 {
		return ""
	}
	payload, err := base64.RawURLEncoding.DecodeString(parts[1])
	if err != nil {
		return ""
	}
	var claims struct {
		UserID string `json:"userId"`
	}
	_ = json.Unmarshal(payload, &claims)
	return claims.UserID
}
