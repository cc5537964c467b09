package openapi_test

import (
	"bytes"
	"context"
	"encoding/json"
	"net/http"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"sync"
	"testing"

	"github.com/bookplatform/backend/shared/api"
	"github.com/bookplatform/backend/shared/groups"
	"github.com/bookplatform/backend/shared/httpapi"
	"github.com/bookplatform/backend/shared/openapi"
	"github.com/getkin/kin-openapi/openapi3"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// reference is the document of every group and its validator, built once
// per test binary as local/testenv would.
var reference = sync.OnceValues(func() (*openapi.Validator, error) {
	doc, err := openapi.Document(groups.All(api.Deps{}))
	if err != nil {
		return nil, err
	}
	return openapi.NewValidator(doc)
})

func document(t *testing.T) *openapi3.T {
	t.Helper()
	doc, err := openapi.Document(groups.All(api.Deps{}))
	if err != nil {
		t.Fatal(err)
	}
	return doc
}

func validator(t *testing.T) *openapi.Validator {
	t.Helper()
	v, err := reference()
	if err != nil {
		t.Fatal(err)
	}
	return v
}

func TestDocument_IsValidOpenAPI31(t *testing.T) {
	doc := document(t)
	if doc.OpenAPI != "3.1.0" || !doc.IsOpenAPI31OrLater() {
		t.Fatalf("openapi %q, want 3.1.0", doc.OpenAPI)
	}
	// Document validated it already; this says so explicitly, with the
	// 3.1 rules (JSON Schema 2020-12) named.
	if err := doc.Validate(context.Background(), openapi3.IsOpenAPI31OrLater()); err != nil {
		t.Fatal(err)
	}
	if doc.Info.Title == "" || doc.Info.Version != "1" {
		t.Errorf("info %+v", doc.Info)
	}
	if len(doc.Servers) != 2 || doc.Servers[0].URL != "http://127.0.0.1:8080" || doc.Servers[1].URL != "https://{apiDomain}" {
		t.Errorf("servers %v, want the local run and production", doc.Servers)
	}
	if doc.Info.Contact == nil || doc.Info.License == nil {
		t.Errorf("info has no contact or license: %+v", doc.Info)
	}
	for _, tag := range doc.Tags {
		if tag.Description == "" {
			t.Errorf("tag %s has no description", tag.Name)
		}
	}
	bearer := doc.Components.SecuritySchemes["bearerAuth"]
	if bearer == nil || bearer.Value.Type != "http" || bearer.Value.Scheme != "bearer" {
		t.Fatalf("bearerAuth scheme %+v", bearer)
	}
}

// Every route of the route tables is one operation of the document, and
// the document has no other.
func TestDocument_HasEveryRouteExactlyOnce(t *testing.T) {
	doc := document(t)
	ops := 0
	for _, item := range doc.Paths.Map() {
		ops += len(item.Operations())
	}
	all := groups.All(api.Deps{})
	routes := groups.Routes()
	if ops != len(routes) {
		t.Errorf("document has %d operations, route tables %d routes", ops, len(routes))
	}
	for _, g := range all {
		for _, r := range g.Routes {
			item := doc.Paths.Value(r.Path)
			if item == nil || item.GetOperation(r.Method) == nil {
				t.Errorf("%s %s is not in the document", r.Method, r.Path)
				continue
			}
			if tags := item.GetOperation(r.Method).Tags; !slices.Equal(tags, []string{g.Name}) {
				t.Errorf("%s %s tagged %v, want its group %s", r.Method, r.Path, tags, g.Name)
			}
		}
	}
	t.Logf("%d operations on %d paths, %d routes in %d groups", ops, doc.Paths.Len(), len(routes), len(all))
}

// docs/openapi.json, which the docs group serves, is the document the
// route tables give.
func TestDocument_CommittedCopyIsCurrent(t *testing.T) {
	want, err := openapi.JSON(groups.All(api.Deps{}))
	if err != nil {
		t.Fatal(err)
	}
	got, err := os.ReadFile(filepath.Join("..", "..", "docs", "openapi.json"))
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(got, want) {
		t.Fatal("docs/openapi.json is not the document the route tables give: run make openapi")
	}
	again, _ := openapi.JSON(groups.All(api.Deps{}))
	if !bytes.Equal(again, want) {
		t.Fatal("two runs wrote different documents")
	}
}

// The routes that charge the monthly quota say so on their table entry;
// their 403 may carry the monthly-limit body, any other's not.
func TestDocument_MonthlyQuotaRoutes(t *testing.T) {
	var quota []string
	for _, r := range groups.Routes() {
		if r.Quota != "" {
			quota = append(quota, r.Method+" "+r.Path)
		}
	}
	assert.ElementsMatch(t, []string{"POST /v1/lines", "POST /v1/lines/{id}/replies", "POST /v1/reviews"}, quota)
}

// What one route's table entry says is what its operation says.
func TestDocument_Operations(t *testing.T) {
	doc := document(t)
	op := func(t *testing.T, method, path string) *openapi3.Operation {
		t.Helper()
		item := doc.Paths.Value(path)
		if item == nil || item.GetOperation(method) == nil {
			t.Fatalf("no operation %s %s", method, path)
		}
		return item.GetOperation(method)
	}
	statuses := func(o *openapi3.Operation) []string {
		keys := o.Responses.Keys()
		slices.Sort(keys)
		return keys
	}
	security := func(o *openapi3.Operation) string {
		b, _ := json.Marshal(o.Security)
		return string(b)
	}

	t.Run("None_unmetered", func(t *testing.T) {
		o := op(t, http.MethodGet, "/health")
		if got := security(o); got != "[]" {
			t.Errorf("security %s", got)
		}
		if got := statuses(o); !slices.Equal(got, []string{"200", "400", "405", "431", "500", "503"}) {
			t.Errorf("statuses %v: an unmetered route without a token is never 401 or 429", got)
		}
		if _, ok := o.Responses.Status(200).Value.Headers["X-RateLimit-Limit"]; ok {
			t.Error("an unmetered route documents X-RateLimit headers")
		}
		if o.OperationID != "getHealth" {
			t.Errorf("operationId %s", o.OperationID)
		}
	})
	t.Run("Optional_with_action_and_query", func(t *testing.T) {
		o := op(t, http.MethodGet, httpapi.V1("/books"))
		if got := security(o); got != `[{},{"bearerAuth":[]}]` {
			t.Errorf("security %s", got)
		}
		if got := statuses(o); !slices.Equal(got, []string{"200", "400", "401", "403", "405", "429", "431", "500", "503"}) {
			t.Errorf("statuses %v", got)
		}
		b, _ := json.Marshal(o.Extensions["x-rate-limit-actions"])
		if string(b) != `[{"action":"search","limit":60,"windowSeconds":60}]` {
			t.Errorf("x-rate-limit-actions %s", b)
		}
		q := o.Parameters.GetByInAndName("query", "q")
		if q == nil || !q.Required || !q.Schema.Value.Type.Is("string") {
			t.Errorf("q %+v", q)
		}
		if l := o.Parameters.GetByInAndName("query", "limit"); l == nil || l.Required || !l.Schema.Value.Type.Is("integer") {
			t.Errorf("limit %+v", l)
		}
		if o.Responses.Status(200).Value.Content.Get("application/json").Schema.Ref != "#/components/schemas/BookSearchPage" {
			t.Error("200 is not BookSearchPage")
		}
	})
	t.Run("Bearer_idempotent_monthly_quota", func(t *testing.T) {
		o := op(t, http.MethodPost, httpapi.V1("/lines"))
		if got := security(o); got != `[{"bearerAuth":[]}]` {
			t.Errorf("security %s", got)
		}
		if got := statuses(o); !slices.Equal(got, []string{"201", "400", "401", "403", "404", "405", "409", "413", "415", "422", "429", "431", "500", "503"}) {
			t.Errorf("statuses %v", got)
		}
		if ref := o.Responses.Status(403).Ref; ref != "#/components/responses/ForbiddenOrMonthlyLimit" {
			t.Errorf("403 is %s", ref)
		}
		if o.Parameters.GetByInAndName("header", "Idempotency-Key") == nil {
			t.Error("no Idempotency-Key header")
		}
		if _, ok := o.Responses.Status(201).Value.Headers["Idempotent-Replayed"]; !ok {
			t.Error("201 does not document Idempotent-Replayed")
		}
		body := o.RequestBody.Value
		if !body.Required || body.Content.Get("application/json").Schema.Ref != "#/components/schemas/NewLineRequest" {
			t.Errorf("request body %+v", body)
		}
		// The raw pageNumber is documented by its openapi tag.
		if pn := body.Content.Get("application/json").Schema.Value.Properties["pageNumber"]; pn == nil || !pn.Value.Type.Includes("integer") {
			t.Errorf("pageNumber %+v", pn)
		}
	})
	t.Run("Bearer_delete_is_not_403_monthly", func(t *testing.T) {
		o := op(t, http.MethodDelete, httpapi.V1("/lines/{lineId}/replies/{replyId}"))
		if ref := o.Responses.Status(403).Ref; ref != "#/components/responses/Forbidden" {
			t.Errorf("403 is %s", ref)
		}
		for _, name := range []string{"lineId", "replyId"} {
			if p := o.Parameters.GetByInAndName("path", name); p == nil || !p.Required {
				t.Errorf("path parameter %s %+v", name, p)
			}
		}
	})
	t.Run("Multipart", func(t *testing.T) {
		o := op(t, http.MethodPost, httpapi.V1("/users/me/avatar"))
		form := o.RequestBody.Value.Content.Get("multipart/form-data")
		if form == nil {
			t.Fatal("no multipart/form-data body")
		}
		f := form.Schema.Value.Properties["avatar"]
		if f == nil || !slices.Contains(form.Schema.Value.Required, "avatar") || f.Value.ContentMediaType != "application/octet-stream" {
			t.Errorf("avatar %+v", f)
		}
	})
}

// The components a client generator meets: named after the Go types, the
// stated error bodies among them.
func TestDocument_ComponentNames(t *testing.T) {
	doc := document(t)
	for _, name := range []string{
		"ErrorBody", "ErrorObject", "RateLimitExceeded", "MonthlyLimitReached", "RateLimitedError", "MonthlyLimitError",
		"Line", "LineList", "LineReplyList", "Review", "ReviewList", "UserBrief", "BookBrief", "UserOwn", "Success", "Liked",
	} {
		if doc.Components.Schemas[name] == nil {
			t.Errorf("no component %s", name)
		}
	}
	// Responses are closed, so that a misspelt field fails a contract
	// test; request bodies are open, as the decoder is.
	if ap := doc.Components.Schemas["Line"].Value.AdditionalProperties.Has; ap == nil || *ap {
		t.Error("Line is not closed")
	}
	if ap := doc.Components.Schemas["NewLineRequest"].Value.AdditionalProperties.Has; ap != nil {
		t.Error("NewLineRequest is closed; the decoder ignores unknown fields")
	}
	code := doc.Components.Schemas["ErrorObject"].Value.Properties["code"].Value
	if !slices.Contains(code.Enum, any("RATE_LIMITED")) || len(code.Enum) != len(httpapi.Codes()) {
		t.Errorf("ErrorObject.code enum %v", code.Enum)
	}
	desc := doc.Components.Responses["BadRequest"].Value.Description
	if desc == nil || !strings.Contains(*desc, "VALIDATION_ERROR") || !strings.Contains(*desc, "BAD_REQUEST") {
		t.Errorf("BadRequest does not name its codes: %v", desc)
	}
}

// Every route's role is in the reference, as data (x-role) and prose, with
// the statuses its check answers; a route without one has none.
func TestDocument_Roles(t *testing.T) {
	doc := document(t)
	n := 0
	for _, r := range groups.Routes() {
		op := doc.Paths.Value(r.Path).GetOperation(r.Method)
		role, has := op.Extensions["x-role"].(map[string]any)
		if r.Role.Need == httpapi.NeedNone {
			assert.False(t, has, "%s %s has no role", r.Method, r.Path)
			continue
		}
		n++
		if !assert.True(t, has, "%s %s: no x-role", r.Method, r.Path) {
			continue
		}
		assert.Equal(t, r.Role.Need.String(), role["need"])
		assert.Contains(t, op.Description, "Role: **"+r.Role.Need.String()+"**")
		assert.NotNil(t, op.Responses.Value("403"), "%s %s: 403", r.Method, r.Path)
		if r.Role.Store != (httpapi.StoreRef{}) {
			store := role["store"].(map[string]any)
			assert.Equal(t, r.Role.Store.Name, store["name"])
			assert.Equal(t, string(r.Role.Store.In), store["in"])
			assert.NotNil(t, op.Responses.Value("404"), "%s %s: 404 for an unknown store", r.Method, r.Path)
		}
	}
	assert.NotZero(t, n, "no route declares a role")
}

// A client generator sees one field per concept: the spec's Form B
// spellings are aliases (x-aliases, and patternProperties on a closed
// answer), not second properties whose Go names would clash; the refresh
// body requires its token.
func TestDocument_FormBAliasesAreNotProperties(t *testing.T) {
	doc := document(t)
	for name, aliases := range map[string]map[string]string{
		"AuthTokenResponse":   {"refresh_token": "refreshToken", "access_token": "token"},
		"AuthRefreshRequest":  {"refresh_token": "refreshToken"},
		"AuthLogoutRequest":   {"refresh_token": "refreshToken"},
		"AuthSignupRequest":   {"display_name": "displayName"},
		"UserUpdateMeRequest": {"display_name": "displayName"},
	} {
		s := doc.Components.Schemas[name]
		if s == nil {
			t.Errorf("no component %s", name)
			continue
		}
		ext, _ := s.Value.Extensions["x-aliases"].(map[string]any)
		for alias, of := range aliases {
			if s.Value.Properties[alias] != nil {
				t.Errorf("%s: %s is a property", name, alias)
			}
			if ext[alias] != of {
				t.Errorf("%s: x-aliases %v, want %s → %s", name, ext, alias, of)
			}
			if p := s.Value.Properties[of]; p == nil || !strings.Contains(p.Value.Description, "`"+alias+"`") {
				t.Errorf("%s.%s does not name its alias %s", name, of, alias)
			}
		}
	}
	if pp := doc.Components.Schemas["AuthTokenResponse"].Value.PatternProperties; len(pp) != 1 || pp["^(access_token|refresh_token)$"] == nil {
		t.Errorf("AuthTokenResponse patternProperties %v", pp)
	}
	assert.Equal(t, []string{"refreshToken"}, doc.Components.Schemas["AuthRefreshRequest"].Value.Required)
	assert.Empty(t, doc.Components.Schemas["AuthLogoutRequest"].Value.Required)
}

// The 403 of a quota route is one envelope whose details, when present,
// is the monthly-limit body: no oneOf of envelopes a generator cannot
// tell apart.
func TestDocument_MonthlyLimitIsOneEnvelope(t *testing.T) {
	doc := document(t)
	r := doc.Components.Responses["ForbiddenOrMonthlyLimit"].Value
	schema := r.Content.Get("application/json").Schema
	if schema.Ref != "#/components/schemas/MonthlyLimitError" {
		t.Fatalf("ForbiddenOrMonthlyLimit is %s", schema.Ref)
	}
	inner := doc.Components.Schemas["MonthlyLimitError"].Value.Properties["error"].Value
	if len(inner.OneOf)+len(inner.AllOf)+len(inner.AnyOf) != 0 {
		t.Error("MonthlyLimitError.error combines schemas")
	}
	if inner.Properties["details"].Ref != "#/components/schemas/MonthlyLimitReached" || slices.Contains(inner.Required, "details") {
		t.Errorf("details %+v required %v", inner.Properties["details"], inner.Required)
	}
}

// Every operation has a description that says, per status it lists,
// which situation gives it; a GET says it answers HEAD too.
func TestDocument_EveryOperationSaysItsStatuses(t *testing.T) {
	doc := document(t)
	for _, r := range groups.Routes() {
		op := doc.Paths.Value(r.Path).GetOperation(r.Method)
		if op.Description == "" {
			t.Errorf("%s %s has no description", r.Method, r.Path)
			continue
		}
		// A status is said either on the operation (its own situation)
		// or by its response component (the router's, the same on
		// every route).
		for _, code := range op.Responses.Keys() {
			ref := op.Responses.Value(code).Ref
			if code[0] < '4' || strings.Contains(op.Description, "- "+code+": ") {
				continue
			}
			name := strings.TrimPrefix(ref, "#/components/responses/")
			status, _ := strconv.Atoi(code)
			if !slices.Contains(r.Doc.Errors, status) && len(*doc.Components.Responses[name].Value.Description) < 60 {
				t.Errorf("%s %s lists %s without its situation", r.Method, r.Path, code)
			}
		}
		if r.Method == http.MethodGet && !strings.Contains(op.Description, "HEAD") {
			t.Errorf("GET %s does not say it answers HEAD", r.Path)
		}
	}
	follow := doc.Paths.Value("/v1/follows/users/{userId}").Post
	assert.Contains(t, follow.Description, "- 400: following oneself, or a reader the caller already follows")
	assert.Contains(t, follow.Description, "- 409: a request with the same `Idempotency-Key`")
	assert.Contains(t, *doc.Components.Responses["RequestHeaderFieldsTooLarge"].Value.Description, "10,240 bytes")
	allow := doc.Components.Responses["MethodNotAllowed"].Value.Headers["Allow"]
	if allow == nil {
		t.Fatal("405 does not document Allow")
	}
	retry := doc.Components.Responses["ServiceUnavailable"].Value.Headers["Retry-After"]
	if retry == nil {
		t.Error("503 does not document Retry-After")
	}
}

// A field's doc tag is its property's description: the search page says
// when its total is only a lower bound (docs/decisions.md, "Catalog
// search at size"), and the embedded OffsetMeta's total it hides is gone.
func TestDocument_FieldDocTags(t *testing.T) {
	page := document(t).Components.Schemas["BookSearchPage"]
	require.NotNil(t, page)
	assert.Contains(t, page.Value.Properties["total"].Value.Description, "exact unless totalIsLowerBound is true")
	assert.Contains(t, page.Value.Properties["totalIsLowerBound"].Value.Description, "lower bound")
	assert.Equal(t, []string{"items", "total", "limit", "offset"}, page.Value.Required)
}
