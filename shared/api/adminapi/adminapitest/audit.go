package adminapitest

import (
	"net/url"

	"github.com/bookplatform/backend/shared/api/apitest"
)

// auditFacts: the audit log, read after the account routes' actions
// (userFacts) in the same stage.
func auditFacts() apitest.Facts {
	const list = "GET /v1/admin/audit"
	step := func(note string, want int, do func(c *apitest.Client, s *apitest.State) *apitest.Response) apitest.Step {
		return apitest.Step{Stage: apitest.Store, Route: list, Note: note, Want: want, Do: do}
	}
	return apitest.Facts{
		Steps: []apitest.Step{
			step("", 200, func(c *apitest.Client, s *apitest.State) *apitest.Response {
				return c.Do("GET", "/v1/admin/audit?limit=5", nil, s.OperatorToken)
			}),
			step("what was done to an account", 200, func(c *apitest.Client, s *apitest.State) *apitest.Response {
				return c.Do("GET", "/v1/admin/audit?targetType=user&targetId="+url.QueryEscape(s.MigratedID), nil, s.OperatorToken)
			}),
			step("one operator's actions", 200, func(c *apitest.Client, s *apitest.State) *apitest.Response {
				return c.Do("GET", "/v1/admin/audit?action=user.tier&actorId="+url.QueryEscape(s.OperatorID), nil, s.OperatorToken)
			}),
			step("targetId without targetType", 400, func(c *apitest.Client, s *apitest.State) *apitest.Response {
				return c.Do("GET", "/v1/admin/audit?targetId="+url.QueryEscape(s.UserID), nil, s.OperatorToken)
			}),
			step("not an operator", 403, func(c *apitest.Client, s *apitest.State) *apitest.Response {
				return c.Do("GET", "/v1/admin/audit", nil, s.Token)
			}),
		},
		Actions: map[string][]string{list: nil},
	}
}
