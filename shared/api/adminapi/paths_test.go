package adminapi_test

import (
	"net/http"
	"strings"
	"testing"

	"github.com/bookplatform/backend/local/testenv"
	"github.com/bookplatform/backend/shared/groups"
	"github.com/stretchr/testify/assert"
)

// An id no record can have, in any back-office route's path (malformed,
// or longer than a DynamoDB key may be), is the route's 404 (or its
// body's 400), never a 500, and changes nothing: no audit entry.
func TestPaths_malformedIDsAreNotFound(t *testing.T) {
	env := testenv.New(t)
	op := operator(t, env, "opal")
	body := map[string]any{"reason": "Checked.", "reference": "TR-1", "tier": "premium", "operator": true, "action": "dismiss"}
	for _, bad := range []string{"not-an-id", strings.Repeat("a", 2100)} {
		for _, rt := range groups.Routes() {
			if !strings.HasPrefix(rt.Path, "/v1/admin/") || !strings.Contains(rt.Path, "Id}") {
				continue
			}
			path := param.ReplaceAllStringFunc(rt.Path, func(p string) string {
				if p == "{month}" {
					return "2026-10"
				}
				return bad
			})
			var b any
			if rt.Method != http.MethodGet && rt.Method != http.MethodDelete {
				b = body
			}
			res := env.Do(rt.Method, path, b, op.Token)
			assert.Contains(t, []int{http.StatusNotFound, http.StatusBadRequest}, res.Status, "%s %s (%d-byte id): %s", rt.Method, rt.Path, len(bad), res)
		}
	}
	res := env.Do("GET", "/v1/admin/audit", nil, op.Token)
	assert.Empty(t, res.JSON["items"], "a refused request wrote an audit entry")
	for _, f := range []string{"actorId", "targetId"} {
		res := env.Do("GET", "/v1/admin/audit?targetType=user&"+f+"="+strings.Repeat("a", 2100), nil, op.Token)
		assert.Equal(t, http.StatusBadRequest, res.Status, "%s: %s", f, res)
	}
}
