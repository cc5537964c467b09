package openapi_test

import (
	"context"
	"encoding/json"
	"io"
	"log/slog"
	"net"
	"net/http"
	"net/http/httptest"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/bookplatform/backend/shared/api"
	"github.com/bookplatform/backend/shared/groups"
	"github.com/bookplatform/backend/shared/httpapi"
	"github.com/bookplatform/backend/shared/openapi"
	"github.com/bookplatform/backend/shared/quota"
	"github.com/bookplatform/backend/shared/ratelimit"
	"github.com/bookplatform/backend/shared/users"
)

var jsonHeader = http.Header{"Content-Type": {"application/json; charset=utf-8"}, "X-Request-Id": {"req-1"}}

func with(h http.Header, kv ...string) http.Header {
	out := h.Clone()
	for i := 0; i+1 < len(kv); i += 2 {
		if kv[i+1] == "" {
			out.Del(kv[i])
		} else {
			out.Set(kv[i], kv[i+1])
		}
	}
	return out
}

const publicProfile = `{"id":"0b7e3c2a-1f4d-4c8e-9a6b-2d5f7e9c1a3b","username":"ann","displayName":"Ann","bio":"","avatarUrl":null,"tier":"free","createdAt":"2026-01-01T00:00:00.000Z","followerCount":1,"followingCount":2}`

func TestValidator_Check(t *testing.T) {
	v := validator(t)
	const profile = "/v1/users/username/ann"
	for _, tc := range []struct {
		name, method, path string
		status             int
		header             http.Header
		body               string
		want               string // "" passes; else a part of the error
	}{
		{"correct_body", "GET", profile, 200, jsonHeader, publicProfile, ""},
		{"query_string_ignored", "GET", profile + "?x=1", 200, jsonHeader, publicProfile, ""},
		{"decoded_path", "GET", "/v1/users/username/ann lee", 200, jsonHeader, publicProfile, ""},
		{"nullable_field_set", "GET", profile, 200, jsonHeader, strings.Replace(publicProfile, `"avatarUrl":null`, `"avatarUrl":"https://m/a.png"`, 1), ""},
		{"optional_field_left_out", "GET", "/v1/users/u1", 200, jsonHeader, strings.Replace(publicProfile, `,"followerCount":1,"followingCount":2`, "", 1), ""},
		{"missing_required_field", "GET", profile, 200, jsonHeader, strings.Replace(publicProfile, `"createdAt":"2026-01-01T00:00:00.000Z",`, "", 1), "createdAt"},
		{"wrong_type", "GET", profile, 200, jsonHeader, strings.Replace(publicProfile, `"followerCount":1`, `"followerCount":"1"`, 1), "/followerCount"},
		{"null_where_not_nullable", "GET", profile, 200, jsonHeader, strings.Replace(publicProfile, `"bio":""`, `"bio":null`, 1), "/bio"},
		{"undocumented_field", "GET", profile, 200, jsonHeader, strings.Replace(publicProfile, `"bio":""`, `"bio":"","email":"a@b.c"`, 1), "email"},
		{"undocumented_status", "GET", profile, 418, jsonHeader, publicProfile, "status is not supported"},
		{"undocumented_error_status", "GET", profile, 409, jsonHeader, `{"error":{"code":"CONFLICT","name":"Conflict","message":"x","requestId":"r"}}`, "status is not supported"},
		{"not_json", "GET", profile, 200, with(jsonHeader, "Content-Type", "text/plain"), publicProfile, "Content-Type"},
		{"empty_body", "GET", profile, 200, jsonHeader, ``, "decode"},
		{"no_request_id", "GET", profile, 200, with(jsonHeader, "X-Request-Id", ""), publicProfile, "X-Request-Id"},
		{"bad_rate_header", "GET", "/v1/books/b1/lines", 200, with(jsonHeader, "X-RateLimit-Limit", "many"), `{"items":[],"nextCursor":null,"hasMore":false}`, "X-RateLimit-Limit"},
		{"error_envelope", "GET", "/v1/users/u1", 404, jsonHeader, `{"error":{"code":"NOT_FOUND","name":"NotFound","message":"No user","requestId":"r"}}`, ""},
		{"error_envelope_without_request_id", "GET", "/v1/users/u1", 404, jsonHeader, `{"error":{"code":"NOT_FOUND","name":"NotFound","message":"No user"}}`, "requestId"},
		{"error_with_unknown_code", "GET", "/v1/users/u1", 404, jsonHeader, `{"error":{"code":"GONE","name":"NotFound","message":"x","requestId":"r"}}`, "/error/code"},
		{"nested_item_wrong", "GET", "/v1/lines/l1/replies", 200, jsonHeader,
			`{"items":[{"id":"r","lineId":"0b7e3c2a-1f4d-4c8e-9a6b-2d5f7e9c1a3b","userId":"0b7e3c2a-1f4d-4c8e-9a6b-2d5f7e9c1a3b","user":{"id":"0b7e3c2a-1f4d-4c8e-9a6b-2d5f7e9c1a3b"},"content":"c","createdAt":"2026-01-01T00:00:00.000Z"}],"nextCursor":null,"hasMore":false}`, "/items/0/user"},
		// The constraints are checked: an id that is no UUID, a timestamp
		// that is no date-time.
		{"id_not_uuid", "GET", "/v1/users/u1", 200, jsonHeader, strings.Replace(publicProfile, `"0b7e3c2a-1f4d-4c8e-9a6b-2d5f7e9c1a3b"`, `"u1"`, 1), "/id"},
		{"timestamp_not_date_time", "GET", "/v1/users/u1", 200, jsonHeader, strings.Replace(publicProfile, `"2026-01-01T00:00:00.000Z"`, `"yesterday"`, 1), "/createdAt"},
		{"unrouted_404", "GET", "/v1/nothing", 404, jsonHeader, `{"error":{"code":"NOT_FOUND","name":"NotFound","message":"No route","requestId":"r"}}`, ""},
		{"unrouted_200", "GET", "/v1/nothing", 200, jsonHeader, `{}`, "must be 404"},
		{"trailing_slash_is_unrouted", "GET", "/v1/users/me/", 200, jsonHeader, `{}`, "must be 404"},
		{"wrong_method_405", "PATCH", "/v1/users/me", 405, with(jsonHeader, "Allow", "GET, PUT"), `{"error":{"code":"METHOD_NOT_ALLOWED","name":"MethodNotAllowed","message":"x","requestId":"r"}}`, ""},
		{"wrong_method_without_allow", "PATCH", "/v1/users/me", 405, jsonHeader, `{"error":{"code":"METHOD_NOT_ALLOWED","name":"MethodNotAllowed","message":"x","requestId":"r"}}`, "Allow"},
		{"wrong_method_200", "PATCH", "/v1/users/me", 200, jsonHeader, `{}`, "must be 405"},
		{"preflight", "OPTIONS", "/v1/users/me", 204, http.Header{}, ``, ""},
	} {
		t.Run(tc.name, func(t *testing.T) {
			err := v.Check(tc.method, tc.path, tc.status, tc.header, []byte(tc.body))
			switch {
			case tc.want == "" && err != nil:
				t.Fatalf("want pass: %v", err)
			case tc.want != "" && err == nil:
				t.Fatalf("want an error naming %q, got none", tc.want)
			case tc.want != "" && !strings.Contains(err.Error(), tc.want):
				t.Fatalf("error does not name %q: %v", tc.want, err)
			}
			if err != nil && !strings.Contains(err.Error(), tc.method+" "+strings.Split(tc.path, "?")[0]) {
				t.Errorf("error does not name the request: %v", err)
			}
			t.Log(err)
		})
	}
}

// The validator picks the operation the router runs: literal segments beat
// parameters, left to right.
func TestValidator_MatchesLiteralBeforeParameter(t *testing.T) {
	v := validator(t)
	for path, want := range map[string]string{
		"/v1/users/username/ann":   "/v1/users/username/{username}",
		"/v1/users/ann/lines":      "/v1/users/{username}/lines",
		"/v1/users/username/lines": "/v1/users/username/{username}",
		"/v1/users/me":             "/v1/users/me",
		"/v1/users/u1":             "/v1/users/{userId}",
		"/v1/users/me/lines":       "/v1/users/{username}/lines",
		"/v1/books/isbn/123":       "/v1/books/isbn/{isbn}",
		"/v1/books/isbn/lines":     "/v1/books/isbn/{isbn}",
		"/v1/books/b1/lines":       "/v1/books/{id}/lines",
		"/health":                  "/health",
		"/v1/users/me/":            "",
		"/v1/nothing":              "",
	} {
		if got := v.Match(path); got != want {
			t.Errorf("%s matched %q, want %q", path, got, want)
		}
	}
}

// For every path built from the route tables' own segments (each
// parameter filled with every literal met at its place, and with a value
// of its own), the validator and the real router agree on the route, or
// on 404 and 405.
func TestValidator_AgreesWithTheRouter(t *testing.T) {
	v := validator(t)
	routes := groups.Routes()
	stubs := make([]httpapi.Route, len(routes))
	literals := map[int][]string{} // segment index → literals there
	for i, r := range routes {
		stubs[i] = httpapi.Route{Method: r.Method, Path: r.Path, Auth: httpapi.AuthNone, Unmetered: true,
			Handler: func(w http.ResponseWriter, _ *http.Request) error { _, err := io.WriteString(w, r.Path); return err }}
		for k, seg := range strings.Split(r.Path, "/") {
			if !strings.HasPrefix(seg, "{") && !slices.Contains(literals[k], seg) {
				literals[k] = append(literals[k], seg)
			}
		}
	}
	router := httpapi.NewRouter(httpapi.Options{Logger: slog.New(slog.DiscardHandler)}, stubs)

	paths := map[string]bool{}
	for _, r := range routes {
		fill := [][]string{{""}}
		for k, seg := range strings.Split(r.Path, "/")[1:] {
			options := []string{seg}
			if strings.HasPrefix(seg, "{") {
				options = append([]string{"x1"}, literals[k+1]...)
			}
			var next [][]string
			for _, prefix := range fill {
				for _, o := range options {
					next = append(next, append(slices.Clone(prefix), o))
				}
			}
			fill = next
		}
		for _, segs := range fill {
			paths[strings.Join(segs, "/")] = true
		}
	}
	compared := 0
	for path := range paths {
		for _, method := range []string{http.MethodGet, http.MethodPost, http.MethodPut, http.MethodDelete} {
			rec := httptest.NewRecorder()
			router.ServeHTTP(rec, httptest.NewRequest(method, path, nil))
			tmpl := v.Match(path)
			switch rec.Code {
			case http.StatusOK:
				if rec.Body.String() != tmpl {
					t.Errorf("%s %s: router ran %s, validator matched %q", method, path, rec.Body, tmpl)
				}
			case http.StatusNotFound:
				if tmpl != "" {
					t.Errorf("%s %s: router 404, validator matched %s", method, path, tmpl)
				}
			case http.StatusMethodNotAllowed:
				if tmpl == "" {
					t.Errorf("%s %s: router 405, validator matched nothing", method, path)
				}
			default:
				t.Fatalf("%s %s: stub router answered %d", method, path, rec.Code)
			}
			if rec.Code != http.StatusOK {
				// The router's own answer is one the document allows.
				if err := v.Check(method, path, rec.Code, rec.Header(), rec.Body.Bytes()); err != nil {
					t.Error(err)
				}
			}
			compared++
		}
	}
	t.Logf("%d requests on %d paths compared", compared, len(paths))
}

// counter refuses everything: every count is over every limit.
// counter refuses every request: every window is full.
type counter struct{}

func (counter) Count(_ context.Context, _ string, ws []ratelimit.Window) ([]int64, bool, error) {
	counts := make([]int64, len(ws))
	for i, w := range ws {
		counts[i] = w.Rule.Limit
	}
	return counts, false, nil
}

func (counter) Refund(context.Context, string, []ratelimit.Window) error { return nil }

// The bodies the router and the quota write, not copies of them, are the
// ones the document states: the 429, the monthly limit's 403, the
// router's 400 and 401.
func TestValidator_StatedBodiesAreTheOnesWritten(t *testing.T) {
	v := validator(t)
	now := time.Date(2026, 11, 23, 12, 0, 0, 0, time.UTC)
	policy := quota.Policy{FreePosts: 50, FreeReviews: 50, UpgradeURL: "https://example.com/upgrade"}
	byKey := map[string]httpapi.Route{}
	for _, r := range groups.Routes() {
		byKey[r.Method+" "+r.Path] = r
	}
	route := func(key string, edit func(*httpapi.Route)) httpapi.Route {
		r, ok := byKey[key]
		if !ok {
			t.Fatalf("no route %s", key)
		}
		edit(&r)
		return r
	}
	for _, tc := range []struct {
		name, method, target string
		route                httpapi.Route
		options              httpapi.Options
		status               int
	}{
		{"rate_limited", http.MethodGet, "/v1/books?q=dune", route("GET /v1/books", func(r *httpapi.Route) {
			r.Auth = httpapi.AuthNone // refused before any token is read
		}), httpapi.Options{Counter: counter{}}, http.StatusTooManyRequests},
		{"monthly_limit", http.MethodPost, "/v1/lines", route("POST /v1/lines", func(r *httpapi.Route) {
			r.Auth, r.Actions, r.Unmetered, r.Idempotent = httpapi.AuthNone, nil, true, false
			r.Handler = func(http.ResponseWriter, *http.Request) error {
				return policy.LimitReached(policy.Usage(&freeAtLimit, quota.Posts, now))
			}
		}), httpapi.Options{}, http.StatusForbidden},
		{"monthly_limit_reviews", http.MethodPost, "/v1/reviews", route("POST /v1/reviews", func(r *httpapi.Route) {
			r.Auth, r.Actions, r.Unmetered, r.Idempotent = httpapi.AuthNone, nil, true, false
			r.Handler = func(http.ResponseWriter, *http.Request) error {
				return policy.LimitReached(policy.Usage(&freeAtLimit, quota.Reviews, now))
			}
		}), httpapi.Options{}, http.StatusForbidden},
		{"malformed_query", http.MethodGet, "/v1/books?q=%zz", byKey["GET /v1/books"], httpapi.Options{}, http.StatusBadRequest},
		{"no_token", http.MethodGet, "/v1/users/me", byKey["GET /v1/users/me"], httpapi.Options{}, http.StatusUnauthorized},
	} {
		t.Run(tc.name, func(t *testing.T) {
			tc.options.Logger = slog.New(slog.DiscardHandler)
			tc.options.Now = func() time.Time { return now }
			router := httpapi.NewRouter(tc.options, []httpapi.Route{tc.route})
			rec := httptest.NewRecorder()
			router.ServeHTTP(rec, httptest.NewRequest(tc.method, tc.target, strings.NewReader("{}")))
			if rec.Code != tc.status {
				t.Fatalf("status %d, want %d: %s", rec.Code, tc.status, rec.Body)
			}
			if err := v.Check(tc.method, tc.target, rec.Code, rec.Header(), rec.Body.Bytes()); err != nil {
				t.Fatalf("%v\nbody: %s", err, rec.Body)
			}
		})
	}

	// And a body that strays from them fails.
	for _, tc := range []struct{ name, path, from, to string }{
		{"429_remaining_not_0", "/v1/books", `"remaining":0`, `"remaining":3`},
		{"429_without_retryAfter", "/v1/books", `"retryAfter":1000,`, ``},
		{"403_unknown_kind", "/v1/lines", `"kind":"posts"`, `"kind":"notes"`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			status, body := http.StatusTooManyRequests, `{"error":{"code":"RATE_LIMITED","name":"TooManyRequests","message":"m","requestId":"r",`+
				`"details":{"error":"rate_limit_exceeded","action":"search","retryAfter":1000,"limit":60,"remaining":0}}}`
			method := http.MethodGet
			if tc.path == "/v1/lines" {
				status, method, body = http.StatusForbidden, http.MethodPost, `{"error":{"code":"FORBIDDEN","name":"Forbidden","message":"m","requestId":"r",`+
					`"details":{"error":"monthly_limit_reached","message":"m","kind":"posts","limit":50,"current":50,"resetsAt":"2026-12-01T00:00:00Z","upgradeUrl":"u"}}}`
			}
			h := with(jsonHeader, "Retry-After", "1")
			if err := v.Check(method, tc.path, status, h, []byte(body)); err != nil {
				t.Fatalf("the untouched body fails: %v", err)
			}
			// A plain 403 is still a 403 of this route.
			if tc.path == "/v1/lines" {
				plain := `{"error":{"code":"FORBIDDEN","name":"Forbidden","message":"Not the author","requestId":"r"}}`
				if err := v.Check(method, tc.path, status, h, []byte(plain)); err != nil {
					t.Fatalf("a plain 403 fails: %v", err)
				}
			}
			if err := v.Check(method, tc.path, status, h, []byte(strings.Replace(body, tc.from, tc.to, 1))); err == nil {
				t.Fatalf("%s → %s passes", tc.from, tc.to)
			} else {
				t.Log(err)
			}
		})
	}
}

// freeAtLimit is a free account with no posts or reviews left this month.
var freeAtLimit = users.User{ID: "u1", Tier: users.TierFree, QuotaMonth: "2026-11", MonthlyPosts: 50, MonthlyReviews: 50}

// A document built from route tables with bodies of every kind validates
// answers by the rules encoding/json writes them with.
func TestValidator_SchemaRules(t *testing.T) {
	doc, err := openapi.Document([]api.Group{{Name: "rules", Routes: []httpapi.Route{
		{Method: http.MethodPost, Path: "/v1/rules/{id}", Doc: httpapi.Doc{Summary: "Rules", Body: rulesRequest{}, Response: rulesResponse{}}},
	}}})
	if err != nil {
		t.Fatal(err)
	}
	v, err := openapi.NewValidator(doc)
	if err != nil {
		t.Fatal(err)
	}
	good := map[string]any{
		"e": 1, "name": "outer", "ptr": nil, "ref": nil, "list": []any{map[string]any{"a": "x"}},
		"counts": map[string]any{"k": 1}, "any": map[string]any{"k": []any{1, "x"}}, "raw": nil,
		"page": map[string]any{"items": []any{}, "nextCursor": nil, "hasMore": false}, "when": "2026-11-23T12:00:00Z",
		"anon": map[string]any{"z": true}, "num": "12", "pair": []any{1, 2}, "ip": "127.0.0.1",
	}
	check := func(edit func(map[string]any)) error {
		body := map[string]any{}
		for k, v := range good {
			body[k] = v
		}
		edit(body)
		data, _ := json.Marshal(body)
		return v.Check(http.MethodPost, "/v1/rules/7", http.StatusOK, jsonHeader, data)
	}
	if err := check(func(map[string]any) {}); err != nil {
		t.Fatalf("the good body fails: %v", err)
	}
	for _, tc := range []struct {
		name string
		edit func(map[string]any)
		ok   bool
	}{
		{"omitempty_field_absent_is_fine", func(b map[string]any) { delete(b, "opt") }, true},
		{"omitempty_pointer_present", func(b map[string]any) { b["ptrOpt"] = 3 }, true},
		{"omitempty_pointer_null_is_never_written", func(b map[string]any) { b["ptrOpt"] = nil }, false},
		{"pointer_without_omitempty_is_required", func(b map[string]any) { delete(b, "ptr") }, false},
		{"pointer_may_be_null_or_value", func(b map[string]any) { b["ptr"] = "s" }, true},
		{"struct_pointer_value", func(b map[string]any) { b["ref"] = map[string]any{"a": "x"} }, true},
		{"struct_pointer_wrong_shape", func(b map[string]any) { b["ref"] = map[string]any{"b": "x"} }, false},
		{"embedded_field_inline", func(b map[string]any) { delete(b, "e") }, false},
		{"outer_field_hides_embedded", func(b map[string]any) { b["name"] = 5 }, false},
		{"dash_tag_not_written", func(b map[string]any) { b["Skip"] = "x" }, false},
		{"map_values_typed", func(b map[string]any) { b["counts"] = map[string]any{"k": "one"} }, false},
		{"any_map_takes_anything", func(b map[string]any) { b["any"] = map[string]any{"k": map[string]any{}} }, true},
		{"openapi_tag_integer", func(b map[string]any) { b["raw"] = 4 }, true},
		{"openapi_tag_rejects_string", func(b map[string]any) { b["raw"] = "4" }, false},
		{"array_not_null", func(b map[string]any) { b["list"] = nil }, false},
		{"generic_list_items_typed", func(b map[string]any) {
			b["page"] = map[string]any{"items": []any{1}, "nextCursor": nil, "hasMore": false}
		}, false},
		{"time_is_a_string", func(b map[string]any) { b["when"] = 5 }, false},
		{"string_option_is_a_string", func(b map[string]any) { b["num"] = 12 }, false},
		{"anonymous_struct_closed", func(b map[string]any) { b["anon"] = map[string]any{"z": true, "y": 1} }, false},
		{"byte_array_is_numbers", func(b map[string]any) { b["pair"] = "AQI=" }, false},
		{"text_marshaler_is_a_string", func(b map[string]any) { b["ip"] = []any{127, 0, 0, 1} }, false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			err := check(tc.edit)
			if tc.ok && err != nil {
				t.Fatalf("want pass: %v", err)
			}
			if !tc.ok && err == nil {
				t.Fatal("want a failure")
			}
		})
	}

	// Request bodies: open, and a pointer takes null.
	op := doc.Paths.Value("/v1/rules/{id}").Post
	req := op.RequestBody.Value.Content.Get("application/json").Schema.Value
	if req.AdditionalProperties.Has != nil {
		t.Error("a request body is closed")
	}
	if p := req.Properties["maybe"].Value; !p.Type.Includes("null") || slices.Contains(req.Required, "maybe") {
		t.Errorf("maybe: %v, required %v", p.Type, req.Required)
	}
	if !op.RequestBody.Value.Required || !slices.Equal(req.Required, []string{"must"}) {
		t.Errorf("required %v", req.Required)
	}
}

// A type that writes its own JSON cannot be described from its fields.
func TestDocument_RefusesTypesWithTheirOwnJSON(t *testing.T) {
	_, err := openapi.Document([]api.Group{{Name: "rules", Routes: []httpapi.Route{
		{Method: http.MethodGet, Path: "/v1/level", Doc: httpapi.Doc{Summary: "Level", Response: struct {
			Level slog.Level `json:"level"`
		}{}}},
	}}})
	if err == nil || !strings.Contains(err.Error(), "writes its own JSON") {
		t.Fatalf("err = %v", err)
	}
}

type rulesInner struct {
	A string `json:"a"`
}

// rulesEmbedded.Name is hidden by rulesResponse.Name, declared after it.
type rulesEmbedded struct {
	E    int `json:"e"`
	Name int `json:"name"`
}

type rulesResponse struct {
	rulesEmbedded
	Name   string                         `json:"name"`
	Opt    string                         `json:"opt,omitempty"`
	Ptr    *string                        `json:"ptr"`
	PtrOpt *int                           `json:"ptrOpt,omitempty"`
	Ref    *rulesInner                    `json:"ref"`
	List   []rulesInner                   `json:"list"`
	Counts map[string]int                 `json:"counts"`
	Any    map[string]any                 `json:"any"`
	Raw    json.RawMessage                `json:"raw" openapi:"integer,null"`
	Skip   string                         `json:"-"`
	Page   httpapi.CursorBody[rulesInner] `json:"page"`
	When   time.Time                      `json:"when"`
	Anon   struct {
		Z bool `json:"z"`
	} `json:"anon"`
	Num        int     `json:"num,string"`
	Pair       [2]byte `json:"pair"`
	IP         net.IP  `json:"ip"`
	unexported string
}

type rulesRequest struct {
	Must  string  `json:"must"`
	Maybe *string `json:"maybe,omitempty"`
}

// One validator serves parallel tests.
func TestValidator_ConcurrentChecks(t *testing.T) {
	v := validator(t)
	done := make(chan error)
	for i := range 8 {
		go func() {
			var err error
			for range 20 {
				if e := v.Check(http.MethodGet, "/v1/users/username/ann", http.StatusOK, jsonHeader, []byte(publicProfile)); e != nil {
					err = e
				}
				if e := v.Check(http.MethodGet, "/v1/books", http.StatusOK, jsonHeader, []byte(`{"items":[],"total":0,"limit":20,"offset":`+strconv.Itoa(i)+`}`)); e != nil {
					err = e
				}
			}
			done <- err
		}()
	}
	for range 8 {
		if err := <-done; err != nil {
			t.Error(err)
		}
	}
}
