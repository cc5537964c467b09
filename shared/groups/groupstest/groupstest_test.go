package groupstest

import (
	"bytes"
	"os"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/bookplatform/backend/shared/api/apitest"
	"github.com/bookplatform/backend/shared/groups"
)

// Every group of the list declares its facts, and a group that does not
// is named, so a new group cannot leave the central tests silently short.
func TestGroups_everyGroupDeclares(t *testing.T) {
	gs, err := Groups()
	require.NoError(t, err)
	require.Len(t, gs, len(facts))

	health := facts["health"]
	delete(facts, "health")
	t.Cleanup(func() { facts["health"] = health })
	_, err = Groups()
	assert.ErrorContains(t, err, "group health declares no facts")

	facts["health"], facts["nosuch"] = health, health
	t.Cleanup(func() { delete(facts, "nosuch") })
	_, err = Groups()
	assert.ErrorContains(t, err, "nosuch, which is no group of the list")
}

// The scenario runs stage by stage, and within a stage in the group
// list's order: the first group's steps of a stage come before a later
// group's of the same stage, whatever stage the group's other steps are.
func TestSteps_stageThenGroupOrder(t *testing.T) {
	gs, err := Groups()
	require.NoError(t, err)
	steps, err := Steps()
	require.NoError(t, err)

	var want []apitest.Step
	for stage := apitest.Open; stage <= apitest.Close; stage++ {
		for _, g := range gs {
			for _, s := range g.Steps {
				if s.Stage == stage {
					want = append(want, s)
				}
			}
		}
	}
	require.Len(t, steps, len(want))
	for i := range steps {
		assert.Equal(t, want[i].Route+" "+want[i].Note, steps[i].Route+" "+steps[i].Note, "step %d", i)
	}
	assert.Equal(t, "GET /health", steps[0].Route)
	assert.Equal(t, "POST /v1/auth/logout", steps[len(steps)-1].Route)
}

// Which group's declarations are where is generated from the group
// list: a group added to it, or removed, without regenerating them fails
// here (and Groups names the group).
func TestFacts_generatedCopyIsCurrent(t *testing.T) {
	want, err := groups.FactsSource()
	require.NoError(t, err)
	got, err := os.ReadFile(filepath.Base(groups.FactsFile))
	require.NoError(t, err)
	if !bytes.Equal(got, want) {
		t.Fatalf("%s is not what the group list gives: run go run ./shared/openapi/cmd/openapi -o docs/openapi.json (make openapi)", groups.FactsFile)
	}
}
