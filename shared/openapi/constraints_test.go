package openapi

import (
	"testing"

	"github.com/bookplatform/backend/shared/api"
	"github.com/bookplatform/backend/shared/groups"
	"github.com/getkin/kin-openapi/openapi3"
)

// Every entry of the constraint tables matches a property of the whole
// reference: a renamed field or component fails here rather than losing
// its constraint silently.
func TestConstraints_EveryEntryApplies(t *testing.T) {
	doc, s, err := buildWith(groups.All(api.Deps{}))
	if err != nil {
		t.Fatal(err)
	}
	if err := s.unusedConstraints(); err != nil {
		t.Fatal(err)
	}
	props := func(name string) map[string]string {
		out := map[string]string{}
		for p, v := range doc.Components.Schemas[name].Value.Properties {
			if v.Value != nil {
				out[p] = v.Value.Format
			}
		}
		return out
	}
	line := props("Line")
	for p, want := range map[string]string{"id": "uuid", "bookId": "uuid", "userId": "uuid", "createdAt": "date-time"} {
		if line[p] != want {
			t.Errorf("Line.%s format %q, want %s", p, line[p], want)
		}
	}
	if f := props("LineReply")["id"]; f != "" {
		t.Errorf("a reply id is no UUID, yet format %q", f)
	}
	if f := props("Challenge")["startDate"]; f != "date" {
		t.Errorf("Challenge.startDate format %q", f)
	}
	if f := props("Store")["latitude"]; f != "double" {
		t.Errorf("Store.latitude format %q", f)
	}
	rating := doc.Components.Schemas["ReviewPostRequest"].Value.Properties["rating"].Value
	if rating.Min == nil || *rating.Min != 1 || rating.Max == nil || *rating.Max != 5 {
		t.Errorf("rating bounds %v %v", rating.Min, rating.Max)
	}
	tier := doc.Components.Schemas["UserOwn"].Value.Properties["tier"].Value
	if len(tier.Enum) != 3 {
		t.Errorf("tier enum %v", tier.Enum)
	}
	// A club member's role, also in the inline membership a role change
	// answers; a role to give never names the host.
	for _, role := range []*openapi3.Schema{
		doc.Components.Schemas["ClubMember"].Value.Properties["role"].Value,
		doc.Components.Schemas["ClubRoleChange"].Value.Properties["membership"].Value.Properties["role"].Value,
	} {
		if len(role.Enum) != 3 {
			t.Errorf("club member role enum %v", role.Enum)
		}
	}
	if e := doc.Components.Schemas["ClubRoleRequest"].Value.Properties["role"].Value.Enum; len(e) != 2 {
		t.Errorf("ClubRoleRequest.role enum %v", e)
	}
	// The offset cap the server enforces on every offset list.
	for _, path := range []string{"/v1/stores", "/v1/clubs", "/v1/challenges", "/v1/books"} {
		p := doc.Paths.Value(path).Get.Parameters.GetByInAndName("query", "offset")
		if p == nil || p.Schema.Value.Max == nil || *p.Schema.Value.Max != 10000 || *p.Schema.Value.Min != 0 {
			t.Errorf("GET %s offset %+v", path, p)
		}
	}
	for _, r := range groups.Routes() {
		op := doc.Paths.Value(r.Path).GetOperation(r.Method)
		if l := op.Parameters.GetByInAndName("query", "limit"); l != nil && (l.Schema.Value.Min == nil || l.Schema.Value.Max == nil) {
			t.Errorf("%s %s: limit without bounds (httpapi.LimitParam)", r.Method, r.Path)
		}
	}
}
