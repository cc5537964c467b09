package adminapitest

import (
	"net/url"
	"strings"

	"github.com/bookplatform/backend/shared/api/apitest"
)

// unknownUser is an id no account has.
const unknownUser = "0193a8c4-2f6e-7d1a-9b3c-5e7f9a1b3c5d"

// migratedEmail is the converted guest's email (authapitest's
// migrate-guest step).
const migratedEmail = "bench.convert@example.com"

// userFacts: the account routes. They run in the Store stage, after
// every other group: the reader (premium by then) is set to premium
// again, the converted guest is suspended and restored (its tokens from
// before stay refused after the restore, access and refresh alike, so it
// signs in again for the steps after), and the reader's rate-limit
// counts are cleared.
func userFacts() apitest.Facts {
	user := func(id string) string { return "/v1/admin/users/" + id }
	step := func(route, note string, want int, do func(c *apitest.Client, s *apitest.State) *apitest.Response) apitest.Step {
		return apitest.Step{Stage: apitest.Store, Route: route, Note: note, Want: want, Do: do}
	}
	const (
		find     = "GET /v1/admin/users"
		get      = "GET /v1/admin/users/{userId}"
		tier     = "PUT /v1/admin/users/{userId}/tier"
		operator = "PUT /v1/admin/users/{userId}/operator"
		suspend  = "POST /v1/admin/users/{userId}/suspend"
		restore  = "POST /v1/admin/users/{userId}/restore"
		limits   = "DELETE /v1/admin/users/{userId}/rate-limits"
	)
	return apitest.Facts{
		Steps: []apitest.Step{
			// The operator looks up the reader; a reader may not.
			step(get, "", 200, func(c *apitest.Client, s *apitest.State) *apitest.Response {
				return c.Do("GET", user(s.UserID), nil, s.OperatorToken)
			}),
			step(get, "not an operator", 403, func(c *apitest.Client, s *apitest.State) *apitest.Response {
				return c.Do("GET", user(s.UserID), nil, s.Token)
			}),
			step(get, "no such account", 404, func(c *apitest.Client, s *apitest.State) *apitest.Response {
				return c.Do("GET", user(unknownUser), nil, s.OperatorToken)
			}),

			step(find, "", 200, func(c *apitest.Client, s *apitest.State) *apitest.Response {
				return c.Do("GET", "/v1/admin/users?email="+url.QueryEscape(s.Email), nil, s.OperatorToken)
			}),
			step(find, "by username", 200, func(c *apitest.Client, s *apitest.State) *apitest.Response {
				return c.Do("GET", "/v1/admin/users?username="+url.QueryEscape(s.Username), nil, s.OperatorToken)
			}),
			step(find, "neither email nor username", 400, func(c *apitest.Client, s *apitest.State) *apitest.Response {
				return c.Do("GET", "/v1/admin/users", nil, s.OperatorToken)
			}),
			step(find, "not an operator", 403, func(c *apitest.Client, s *apitest.State) *apitest.Response {
				return c.Do("GET", "/v1/admin/users?username="+url.QueryEscape(s.Username), nil, s.Token)
			}),

			step(tier, "", 200, func(c *apitest.Client, s *apitest.State) *apitest.Response {
				return c.Do("PUT", user(s.UserID)+"/tier", map[string]any{"tier": "premium", "reason": "Paid by bank transfer."}, s.OperatorToken)
			}),
			step(tier, "another tier", 400, func(c *apitest.Client, s *apitest.State) *apitest.Response {
				return c.Do("PUT", user(s.UserID)+"/tier", map[string]any{"tier": "gold"}, s.OperatorToken)
			}),
			step(tier, "not an operator", 403, func(c *apitest.Client, s *apitest.State) *apitest.Response {
				return c.Do("PUT", user(s.UserID)+"/tier", map[string]any{"tier": "bookstore"}, s.Token)
			}),
			step(tier, "no such account", 404, func(c *apitest.Client, s *apitest.State) *apitest.Response {
				return c.Do("PUT", user(unknownUser)+"/tier", map[string]any{"tier": "premium"}, s.OperatorToken)
			}),

			step(operator, "", 200, func(c *apitest.Client, s *apitest.State) *apitest.Response {
				return c.Do("PUT", user(s.OperatorID)+"/operator", map[string]any{"operator": true, "reason": "Confirmed."}, s.OperatorToken)
			}),
			step(operator, "operator missing", 400, func(c *apitest.Client, s *apitest.State) *apitest.Response {
				return c.Do("PUT", user(s.UserID)+"/operator", map[string]any{}, s.OperatorToken)
			}),
			step(operator, "not an operator", 403, func(c *apitest.Client, s *apitest.State) *apitest.Response {
				return c.Do("PUT", user(s.UserID)+"/operator", map[string]any{"operator": true}, s.Token)
			}),
			step(operator, "no such account", 404, func(c *apitest.Client, s *apitest.State) *apitest.Response {
				return c.Do("PUT", user(unknownUser)+"/operator", map[string]any{"operator": true}, s.OperatorToken)
			}),
			step(operator, "revoking one's own role", 409, func(c *apitest.Client, s *apitest.State) *apitest.Response {
				return c.Do("PUT", user(s.OperatorID)+"/operator", map[string]any{"operator": false}, s.OperatorToken)
			}),

			step(suspend, "", 200, func(c *apitest.Client, s *apitest.State) *apitest.Response {
				return c.Do("POST", user(s.MigratedID)+"/suspend", map[string]any{"reason": "Posting spam links."}, s.OperatorToken)
			}),
			step("GET /v1/users/me", "suspended", 403, func(c *apitest.Client, s *apitest.State) *apitest.Response {
				return c.Do("GET", "/v1/users/me", nil, s.MigratedToken)
			}),
			step(suspend, "no reason", 400, func(c *apitest.Client, s *apitest.State) *apitest.Response {
				return c.Do("POST", user(s.UserID)+"/suspend", map[string]any{}, s.OperatorToken)
			}),
			step(suspend, "not an operator", 403, func(c *apitest.Client, s *apitest.State) *apitest.Response {
				return c.Do("POST", user(s.MigratedID)+"/suspend", map[string]any{"reason": "Spam."}, s.Token)
			}),
			step(suspend, "no such account", 404, func(c *apitest.Client, s *apitest.State) *apitest.Response {
				return c.Do("POST", user(unknownUser)+"/suspend", map[string]any{"reason": "Spam."}, s.OperatorToken)
			}),
			step(suspend, "already suspended", 409, func(c *apitest.Client, s *apitest.State) *apitest.Response {
				return c.Do("POST", user(s.MigratedID)+"/suspend", map[string]any{"reason": "Spam."}, s.OperatorToken)
			}),
			step(restore, "", 200, func(c *apitest.Client, s *apitest.State) *apitest.Response {
				return c.Do("POST", user(s.MigratedID)+"/restore", map[string]any{"reason": "Appeal upheld."}, s.OperatorToken)
			}),
			step("POST /v1/auth/login", "after a restore", 200, func(c *apitest.Client, s *apitest.State) *apitest.Response {
				res := c.Do("POST", "/v1/auth/login", map[string]any{"email": migratedEmail, "password": apitest.Password}, "")
				if t, ok := res.JSON["token"].(string); ok {
					s.MigratedToken = t
					s.MigratedRefresh, _ = res.JSON["refreshToken"].(string)
				}
				return res
			}),
			step(restore, "reason too long", 400, func(c *apitest.Client, s *apitest.State) *apitest.Response {
				return c.Do("POST", user(s.MigratedID)+"/restore", map[string]any{"reason": strings.Repeat("x", 501)}, s.OperatorToken)
			}),
			step(restore, "not an operator", 403, func(c *apitest.Client, s *apitest.State) *apitest.Response {
				return c.Do("POST", user(s.MigratedID)+"/restore", map[string]any{}, s.Token)
			}),
			step(restore, "no such account", 404, func(c *apitest.Client, s *apitest.State) *apitest.Response {
				return c.Do("POST", user(unknownUser)+"/restore", map[string]any{}, s.OperatorToken)
			}),
			step(restore, "not suspended", 409, func(c *apitest.Client, s *apitest.State) *apitest.Response {
				return c.Do("POST", user(s.MigratedID)+"/restore", map[string]any{}, s.OperatorToken)
			}),

			step(limits, "", 200, func(c *apitest.Client, s *apitest.State) *apitest.Response {
				return c.Do("DELETE", user(s.UserID)+"/rate-limits?action=create_line", nil, s.OperatorToken)
			}),
			step(limits, "every action", 200, func(c *apitest.Client, s *apitest.State) *apitest.Response {
				return c.Do("DELETE", user(s.UserID)+"/rate-limits", nil, s.OperatorToken)
			}),
			step(limits, "no such action", 400, func(c *apitest.Client, s *apitest.State) *apitest.Response {
				return c.Do("DELETE", user(s.UserID)+"/rate-limits?action=sleep", nil, s.OperatorToken)
			}),
			step(limits, "not an operator", 403, func(c *apitest.Client, s *apitest.State) *apitest.Response {
				return c.Do("DELETE", user(s.UserID)+"/rate-limits", nil, s.Token)
			}),
			step(limits, "no such account", 404, func(c *apitest.Client, s *apitest.State) *apitest.Response {
				return c.Do("DELETE", user(unknownUser)+"/rate-limits", nil, s.OperatorToken)
			}),
		},
		// The spec names no action for the back office; the tier rate
		// applies.
		Actions: map[string][]string{find: nil, get: nil, tier: nil, operator: nil, suspend: nil, restore: nil, limits: nil},
	}
}
