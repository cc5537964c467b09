package openapi_test

import (
	"slices"
	"strings"
	"testing"

	"github.com/bookplatform/backend/shared/api"
	"github.com/bookplatform/backend/shared/groups"
)

// A 403, 404 or 409 the handler answers means something different on
// each operation (following someone twice is 400, not the 409 the route
// lists): every operation that lists one says which situation gives it
// (Doc.Why), so the reference does not leave the client to guess.
func TestDocument_HandlerStatusesSayTheirSituation(t *testing.T) {
	for _, g := range groups.All(api.Deps{}) {
		for _, r := range g.Routes {
			for _, code := range []int{403, 404, 409} {
				if slices.Contains(r.Doc.Errors, code) && r.Doc.Why[code] == "" {
					t.Errorf("%s: %s %s lists %d without a Why", g.Name, r.Method, r.Path, code)
				}
			}
		}
	}
}

// An idempotent route's own 409 follows the key's, which is true of it
// too; a role route's Why says its 404 itself.
func TestDocument_WhyJoinsTheKeysConflict(t *testing.T) {
	doc := document(t)
	report := doc.Paths.Value("/v1/reports").Post.Description
	if !strings.Contains(report, "- 409: a request with the same `Idempotency-Key` is still being processed (retry after `Retry-After`); or the caller has already reported this target.") {
		t.Errorf("POST /v1/reports does not say both situations of its 409:\n%s", report)
	}
	demand := doc.Paths.Value("/v1/stores/{slug}/wishlist-demand").Get.Description
	if !strings.Contains(demand, "- 404: no store has this slug.") {
		t.Errorf("GET wishlist-demand does not say its own 404:\n%s", demand)
	}
}
