// Package groupstest collects what each group declares for the central
// tests (shared/api/apitest: the call benchmark's scenario steps, the
// routes' rate-limit actions) in the order of the group list, for the
// call benchmark (local/bench) and the route tests (shared/groups). It
// is test support: no function, server or stack links it.
package groupstest

import (
	"cmp"
	"fmt"
	"slices"

	"github.com/bookplatform/backend/shared/api"
	"github.com/bookplatform/backend/shared/api/apitest"
	"github.com/bookplatform/backend/shared/api/authapi/authapitest"
	"github.com/bookplatform/backend/shared/api/booksapi/booksapitest"
	"github.com/bookplatform/backend/shared/api/challengesapi/challengesapitest"
	"github.com/bookplatform/backend/shared/api/clubsapi/clubsapitest"
	"github.com/bookplatform/backend/shared/api/docsapi/docsapitest"
	"github.com/bookplatform/backend/shared/api/followsapi/followsapitest"
	"github.com/bookplatform/backend/shared/api/healthapi/healthapitest"
	"github.com/bookplatform/backend/shared/api/linesapi/linesapitest"
	"github.com/bookplatform/backend/shared/api/notesapi/notesapitest"
	"github.com/bookplatform/backend/shared/api/reportsapi/reportsapitest"
	"github.com/bookplatform/backend/shared/api/reviewsapi/reviewsapitest"
	"github.com/bookplatform/backend/shared/api/storesapi/storesapitest"
	"github.com/bookplatform/backend/shared/api/usersapi/usersapitest"
	"github.com/bookplatform/backend/shared/api/wishlistsapi/wishlistsapitest"
	"github.com/bookplatform/backend/shared/groups"
)

// facts are each group's declarations, by the group's name. The order
// is the group list's (groups.All), not this map's: a group's line here
// only says where its declarations are, and a group of the list without
// one fails Groups.
var facts = map[string]func() apitest.Facts{
	"health":     healthapitest.Facts,
	"auth":       authapitest.Facts,
	"users":      usersapitest.Facts,
	"books":      booksapitest.Facts,
	"lines":      linesapitest.Facts,
	"reviews":    reviewsapitest.Facts,
	"clubs":      clubsapitest.Facts,
	"challenges": challengesapitest.Facts,
	"wishlists":  wishlistsapitest.Facts,
	"follows":    followsapitest.Facts,
	"notes":      notesapitest.Facts,
	"reports":    reportsapitest.Facts,
	"stores":     storesapitest.Facts,
	"docs":       docsapitest.Facts,
}

// Group is one group's declarations.
type Group struct {
	Name string
	apitest.Facts
}

// Groups returns each group's declarations in the group list's order;
// it fails when a group of the list has none or a declaration names no
// group of the list.
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
			return nil, fmt.Errorf("group %s declares no facts for the central tests: add its %sapitest package to shared/groups/groupstest", g.Name, g.Name)
		}
		out = append(out, Group{Name: g.Name, Facts: f()})
	}
	for name := range facts {
		if !listed[name] {
			return nil, fmt.Errorf("shared/groups/groupstest declares facts for %s, which is no group of the list", name)
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
