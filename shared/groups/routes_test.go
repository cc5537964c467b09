package groups_test

import (
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/bookplatform/backend/shared/api"
	"github.com/bookplatform/backend/shared/groups"
	"github.com/bookplatform/backend/shared/groups/groupstest"
	"github.com/bookplatform/backend/shared/httpapi"
)

// The mapping of the spec's per-action rate limits to routes is not given
// by the spec (docs/decisions.md, "Rate limits", "Lines", "Reviews"); each
// group pins it for every route of its own, beside the group (the Actions
// of its apitest package), so a new route or a changed mapping is a
// visible decision. How a limit is enforced is tested in shared/httpapi;
// that limits bite through the API, in each group.
func TestRoutes_perActionLimits(t *testing.T) {
	gs, err := groupstest.Groups()
	require.NoError(t, err)
	want := map[string]map[string][]string{}
	for _, g := range gs {
		want[g.Name] = g.Actions
	}
	for _, g := range groups.All(api.Deps{}) {
		got := map[string][]string{}
		for _, r := range g.Routes {
			got[r.Method+" "+r.Path] = r.Actions
		}
		if len(got) == 0 && want[g.Name] == nil {
			continue
		}
		assert.Equal(t, want[g.Name], got, "group %s", g.Name)
	}
}

// The back office is the routes under /v1/admin/, every one a Bearer
// route that needs an operator, and no other route needs one: the
// authorizer is attached by that need (AuthorizerInvoked), so a back-office
// route that lost its role would lose the authorizer too, and an operator
// route elsewhere would gain it, unnoticed by the stack's own tests,
// which read the same need.
func TestRoutes_backOfficeIsTheOperatorRoutes(t *testing.T) {
	n := 0
	for _, r := range groups.Routes() {
		admin := strings.HasPrefix(r.Path, "/v1/admin/")
		operator := r.Role.Need == httpapi.NeedOperator
		assert.Equal(t, admin, operator, "%s %s: under /v1/admin/ %v, needs an operator %v", r.Method, r.Path, admin, operator)
		if admin {
			n++
			assert.Equal(t, httpapi.AuthBearer, r.Auth, "%s %s", r.Method, r.Path)
			assert.True(t, groups.AuthorizerInvoked(r), "%s %s", r.Method, r.Path)
		} else {
			assert.False(t, groups.AuthorizerInvoked(r), "%s %s", r.Method, r.Path)
		}
	}
	assert.Positive(t, n, "the back office has routes")
}
