// Package adminapitest declares what the central tests need about the
// admin group (shared/api/apitest): its steps of the call benchmark's
// scenario (local/bench) and the rate-limit actions of its routes
// (shared/groups). Test support: no function links it. Each area of the
// back office (shared/api/adminapi) has its file here.
package adminapitest

import (
	"maps"
	"slices"

	"github.com/bookplatform/backend/shared/api/apitest"
)

// areas are the back office's parts, as in shared/api/adminapi.
var areas = []func() apitest.Facts{userFacts, auditFacts, moderationFacts, applicationFacts, moneyFacts}

// Facts are the admin group's steps and its routes' rate-limit actions.
func Facts() apitest.Facts {
	out := apitest.Facts{Actions: map[string][]string{}}
	for _, area := range areas {
		f := area()
		out.Steps = slices.Concat(out.Steps, f.Steps)
		maps.Copy(out.Actions, f.Actions)
	}
	return out
}
