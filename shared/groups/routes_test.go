package groups_test

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/bookplatform/backend/shared/api"
	"github.com/bookplatform/backend/shared/groups"
	"github.com/bookplatform/backend/shared/groups/groupstest"
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
