// Package posapitest declares what the central tests need about the
// point-of-sale group (shared/api/apitest): its steps of the call
// benchmark's scenario (local/bench) and the rate-limit actions of its
// routes (shared/groups). Test support: no function links it.
package posapitest

import (
	"maps"

	"github.com/bookplatform/backend/shared/api/apitest"
)

// Facts are the point-of-sale group's steps and its routes' rate-limit
// actions, from its three parts: the sales (sales.go), the barcode
// lookup (lookup.go), the reports and shifts (reports.go).
func Facts() apitest.Facts {
	var f apitest.Facts
	f.Actions = map[string][]string{}
	for _, part := range []func() apitest.Facts{saleFacts, lookupFacts, reportFacts} {
		p := part()
		f.Steps = append(f.Steps, p.Steps...)
		maps.Copy(f.Actions, p.Actions)
	}
	return f
}
