// Package groupstest collects what each group declares for the central
// tests (shared/api/apitest: the call benchmark's scenario steps, the
// routes' rate-limit actions) in the order of the group list, for the
// call benchmark (local/bench) and the route tests (shared/groups). It
// is test support: no function, server or stack links it. Which groups
// declare what, and where, is generated from the group list
// (facts_gen.go, groups.FactsSource, make openapi): a new group needs no
// line here.
package groupstest

import (
	"cmp"
	"fmt"
	"slices"

	"github.com/bookplatform/backend/shared/api"
	"github.com/bookplatform/backend/shared/api/apitest"
	"github.com/bookplatform/backend/shared/groups"
)

// Group is one group's declarations.
type Group struct {
	Name string
	apitest.Facts
}

// Groups returns each group's declarations in the group list's order;
// it fails when a group of the list has none or a declaration names no
// group of the list (facts_gen.go is not current).
func Groups() ([]Group, error) {
	var out []Group
	listed := map[string]bool{}
	for _, g := range groups.All(api.Deps{}) {
		listed[g.Name] = true
		f, ok := facts[g.Name]
		if !ok {
			if len(g.Routes) == 0 {
				continue // a worker: no route to visit or pin
			}
			return nil, fmt.Errorf("group %s declares no facts for the central tests: give it its %sapitest package (apitest.Facts) and run make openapi", g.Name, g.Name)
		}
		out = append(out, Group{Name: g.Name, Facts: f()})
	}
	for name := range facts {
		if !listed[name] {
			return nil, fmt.Errorf("shared/groups/groupstest declares facts for %s, which is no group of the list: run make openapi", name)
		}
	}
	return out, nil
}

// Steps is the scenario: every group's steps, stage by stage
// (apitest.Stage), within a stage in the group list's order, within a
// group in its own order.
func Steps() ([]apitest.Step, error) {
	gs, err := Groups()
	if err != nil {
		return nil, err
	}
	var out []apitest.Step
	for _, g := range gs {
		out = append(out, g.Steps...)
	}
	slices.SortStableFunc(out, func(a, b apitest.Step) int { return cmp.Compare(a.Stage, b.Stage) })
	return out, nil
}
