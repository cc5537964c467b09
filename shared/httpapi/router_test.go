package httpapi

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func echo(name string) HandlerFunc {
	return func(w http.ResponseWriter, r *http.Request) error {
		return JSON(w, http.StatusOK, map[string]string{
			"route": name, "userId": r.PathValue("userId"), "username": r.PathValue("username"), "slug": r.PathValue("slug"),
		})
	}
}

// The pairs DESIGN.md names: ServeMux panics on some of them.
func testRouter() *Router {
	return NewRouter(Options{Logger: slog.New(slog.NewTextHandler(io.Discard, nil))}, []Route{
		{Method: "GET", Path: "/v1/users/{userId}", Handler: echo("byID")},
		{Method: "GET", Path: "/v1/users/me", Handler: echo("me")},
		{Method: "PUT", Path: "/v1/users/me", Handler: echo("updateMe")},
		{Method: "GET", Path: "/v1/users/username/{username}", Handler: echo("byUsername")},
		{Method: "GET", Path: "/v1/users/{username}/lines", Handler: echo("userLines")},
		{Method: "GET", Path: "/v1/stores/{slug}", Handler: echo("store")},
		{Method: "PUT", Path: "/v1/stores/{slug}", Handler: echo("updateStore")},
		{Method: "GET", Path: "/v1/stores/my", Handler: echo("myStore")},
	})
}

func serve(t *testing.T, rt http.Handler, method, path string) (*httptest.ResponseRecorder, map[string]any) {
	t.Helper()
	rec := httptest.NewRecorder()
	rt.ServeHTTP(rec, httptest.NewRequest(method, path, nil))
	var body map[string]any
	require.NoError(t, json.Unmarshal(rec.Body.Bytes(), &body), rec.Body.String())
	return rec, body
}

func TestRouter_LiteralSegmentsBeatParameters(t *testing.T) {
	rt := testRouter()
	cases := []struct{ method, path, route string }{
		{"GET", "/v1/users/me", "me"},
		{"PUT", "/v1/users/me", "updateMe"},
		{"GET", "/v1/users/4b7c", "byID"},
		{"GET", "/v1/users/username/ann", "byUsername"},
		{"GET", "/v1/users/ann/lines", "userLines"},
		// Both /users/username/{username} and /users/{username}/lines
		// match: the literal "username" in position 3 wins.
		{"GET", "/v1/users/username/lines", "byUsername"},
		{"GET", "/v1/stores/my", "myStore"},
		{"GET", "/v1/stores/corner-books", "store"},
	}
	for _, c := range cases {
		t.Run(c.method+" "+c.path, func(t *testing.T) {
			rec, body := serve(t, rt, c.method, c.path)
			assert.Equal(t, http.StatusOK, rec.Code)
			assert.Equal(t, c.route, body["route"])
		})
	}
}

func TestRouter_UnknownRouteIs404InEnvelope(t *testing.T) {
	rec, body := serve(t, testRouter(), "GET", "/v1/nothing/here")
	assert.Equal(t, http.StatusNotFound, rec.Code)
	e := body["error"].(map[string]any)
	assert.Equal(t, "NOT_FOUND", e["code"])
	assert.Equal(t, "NotFound", e["name"])
	assert.NotEmpty(t, e["requestId"])
	assert.Equal(t, rec.Header().Get("X-Request-Id"), e["requestId"])
}

func TestRouter_TrailingSlashIsAnotherPath(t *testing.T) {
	rec, _ := serve(t, testRouter(), "GET", "/v1/users/me/")
	assert.Equal(t, http.StatusNotFound, rec.Code)
	rec, _ = serve(t, testRouter(), "GET", "/v1/users//lines")
	assert.Equal(t, http.StatusNotFound, rec.Code)
}

func TestRouter_WrongMethodIs405WithAllow(t *testing.T) {
	rec, body := serve(t, testRouter(), "DELETE", "/v1/users/me")
	assert.Equal(t, http.StatusMethodNotAllowed, rec.Code)
	assert.Equal(t, "GET, HEAD, PUT", rec.Header().Get("Allow"))
	assert.Equal(t, "METHOD_NOT_ALLOWED", body["error"].(map[string]any)["code"])

	// "my" is not a slug: PUT /stores/my is 405, not an update of store "my".
	rec, _ = serve(t, testRouter(), "PUT", "/v1/stores/my")
	assert.Equal(t, http.StatusMethodNotAllowed, rec.Code)
}

func TestRouter_PanicIs500WithoutDetails(t *testing.T) {
	rt := NewRouter(Options{Logger: slog.New(slog.NewTextHandler(io.Discard, nil))}, []Route{
		{Method: "GET", Path: "/boom", Handler: func(http.ResponseWriter, *http.Request) error { panic("secret internals") }},
		{Method: "POST", Path: "/boom", Handler: func(http.ResponseWriter, *http.Request) error { panic("secret internals") }},
	})
	// A GET handler runs in its own goroutine (beside admission), any
	// other in the request's: a panic in either is a 500, not a crash.
	for _, method := range []string{"GET", "POST"} {
		rec, body := serve(t, rt, method, "/boom")
		assert.Equal(t, http.StatusInternalServerError, rec.Code)
		assert.NotContains(t, rec.Body.String(), "secret")
		assert.Equal(t, "SERVER_ERROR", body["error"].(map[string]any)["code"])
	}
}

// A query string that does not decode is refused, not half-read: Go's
// URL.Query drops the bad pair and the handler would serve, say, the
// first page instead of the one asked for.
func TestRouter_MalformedQueryIs400(t *testing.T) {
	rec, body := serve(t, testRouter(), "GET", "/v1/stores/my?cursor=%%%bad")
	assert.Equal(t, http.StatusBadRequest, rec.Code)
	assert.Equal(t, "Malformed query string", body["error"].(map[string]any)["message"])
	rec, _ = serve(t, testRouter(), "GET", "/v1/stores/my?cursor=ok%20fine")
	assert.Equal(t, http.StatusOK, rec.Code)
}

func TestDecode(t *testing.T) {
	type payload struct {
		Name  string         `json:"name"`
		Count int            `json:"count"`
		Tags  []string       `json:"tags"`
		Meta  map[string]any `json:"meta"`
	}
	route := func(optional bool) Route {
		return Route{Method: "POST", Path: "/p", Doc: Doc{Body: payload{}, OptionalBody: optional}, Handler: func(w http.ResponseWriter, r *http.Request) error {
			var p payload
			if err := Decode(w, r, &p); err != nil {
				return err
			}
			return JSON(w, http.StatusOK, p)
		}}
	}
	rt := NewRouter(Options{MaxBodyBytes: 1024, Logger: slog.New(slog.DiscardHandler)}, []Route{route(false)})
	optional := NewRouter(Options{MaxBodyBytes: 1024, Logger: slog.New(slog.DiscardHandler)}, []Route{route(true)})
	const jsonType = "application/json"
	cases := []struct {
		name, contentType, body string
		optional                bool
		status                  int
		message                 string
	}{
		{"valid", jsonType, `{"name":"a","count":2}`, false, 200, ""},
		{"no content type is read as JSON", "", `{"name":"a"}`, false, 200, ""},
		{"charset utf-8", "application/json; charset=UTF-8", `{"name":"a"}`, false, 200, ""},
		{"a +json type", "application/merge-patch+json", `{"name":"a"}`, false, 200, ""},
		{"a surrogate pair is one character", jsonType, `{"name":"\ud83d\udcda"}`, false, 200, ""},
		{"the same key in two objects", jsonType, `{"name":"a","meta":{"name":"b","x":[{"name":1},{"name":2}]}}`, false, 200, ""},
		{"unknown keys are ignored", jsonType, `{"name":"a","later":true}`, false, 200, ""},

		{"empty body", jsonType, ``, false, 400, "Request body is required"},
		{"blank body", jsonType, " \n", false, 400, "Request body is required"},
		{"empty body where it is optional", jsonType, ``, true, 200, ""},
		{"null", jsonType, `null`, false, 400, "must be a JSON object, not null"},
		{"null where the body is optional", jsonType, `null`, true, 400, "must be a JSON object, not null"},
		{"a string", jsonType, `"x"`, false, 400, "must be a JSON object, not a string"},
		{"array instead of object", jsonType, `[1,2]`, false, 400, "must be a JSON object, not an array"},
		{"malformed", jsonType, `{"name":`, false, 400, "Malformed JSON body"},
		{"wrong type", jsonType, `{"count":"two"}`, false, 400, `Field \"count\" must be a number, not \"string\"`},
		{"trailing data", jsonType, `{"name":"a"} {"name":"b"}`, false, 400, "single JSON object"},
		{"duplicate key", jsonType, `{"name":"a","name":"b"}`, false, 400, `Key \"name\" appears twice`},
		{"duplicate key spelled with an escape", jsonType, `{"name":"a","\u006eame":"b"}`, false, 400, "appears twice"},
		{"the same key in two cases", jsonType, `{"name":"a","Name":"b"}`, false, 400, "appears twice"},
		{"the same key with a long s", jsonType, "{\"name\":\"a\",\"name\u017f\":1,\"names\":2}", false, 400, "appears twice"},
		{"duplicate key in a nested object", jsonType, `{"meta":{"x":1,"y":[{"z":1,"z":2}]}}`, false, 400, `Key \"z\" appears twice`},
		{"invalid UTF-8", jsonType, "{\"name\":\"a\xffb\"}", false, 400, "not valid UTF-8"},
		{"lone high surrogate", jsonType, `{"name":"\ud800"}`, false, 400, "surrogate"},
		{"lone low surrogate", jsonType, `{"name":"\udc00x"}`, false, 400, "surrogate"},
		{"high surrogate then a letter", jsonType, `{"name":"\ud800\u0041"}`, false, 400, "surrogate"},
		{"an escaped backslash before u is no escape", jsonType, `{"name":"\\ud800"}`, false, 200, ""},
		{"form content type", "application/x-www-form-urlencoded", `{"name":"a"}`, false, 415, "send application/json"},
		{"text/plain", "text/plain", `{"name":"a"}`, false, 415, "not supported"},
		{"another charset", "application/json; charset=latin1", `{"name":"a"}`, false, 415, "not supported"},
		{"an unparsable content type", "application/json; =", `{"name":"a"}`, false, 415, "not supported"},
		{"too large", jsonType, `{"name":"` + strings.Repeat("x", 2000) + `"}`, false, 413, "exceeds 1024 bytes"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			req := httptest.NewRequest("POST", "/p", strings.NewReader(c.body))
			if c.contentType != "" {
				req.Header.Set("Content-Type", c.contentType)
			}
			rec := httptest.NewRecorder()
			if c.optional {
				optional.ServeHTTP(rec, req)
			} else {
				rt.ServeHTTP(rec, req)
			}
			assert.Equal(t, c.status, rec.Code, rec.Body.String())
			if c.message != "" {
				assert.Contains(t, rec.Body.String(), c.message)
			}
		})
	}
}

// An error quotes at most a short prefix of what the client sent.
func TestDecode_QuotesAShortPrefix(t *testing.T) {
	rt := NewRouter(Options{MaxBodyBytes: 1 << 20, Logger: slog.New(slog.DiscardHandler)}, []Route{
		{Method: "POST", Path: "/p", Handler: func(w http.ResponseWriter, r *http.Request) error {
			var p struct {
				Count int `json:"count"`
			}
			return Decode(w, r, &p)
		}},
	})
	for _, body := range []string{
		`{"count":` + strings.Repeat("9", 10000) + `}`,
		`{"` + strings.Repeat("k", 10000) + `":1,"` + strings.Repeat("k", 10000) + `":2}`,
	} {
		rec := httptest.NewRecorder()
		rt.ServeHTTP(rec, httptest.NewRequest("POST", "/p", strings.NewReader(body)))
		assert.Equal(t, http.StatusBadRequest, rec.Code)
		assert.Less(t, rec.Body.Len(), 600, rec.Body.String())
	}
}

// A client that went away is logged as 499 at info, not as an internal
// error; a request past its deadline is a 503 the client may retry.
func TestRouter_ClientGoneAndDeadline(t *testing.T) {
	var logs strings.Builder
	logger := slog.New(slog.NewJSONHandler(&logs, nil))
	rt := NewRouter(Options{Logger: logger}, []Route{
		{Method: "GET", Path: "/wait", Auth: AuthNone, Handler: func(w http.ResponseWriter, r *http.Request) error {
			<-r.Context().Done()
			return fmt.Errorf("read something: %w", r.Context().Err())
		}},
	})

	ctx, cancel := context.WithCancel(context.Background())
	req := httptest.NewRequest("GET", "/wait", nil).WithContext(ctx)
	rec := httptest.NewRecorder()
	go cancel()
	rt.ServeHTTP(rec, req)
	assert.Equal(t, StatusClientClosedRequest, rec.Code)
	assert.Empty(t, rec.Body.String(), "nobody reads it")
	assert.NotContains(t, logs.String(), `"level":"ERROR"`)
	assert.NotContains(t, logs.String(), `"level":"WARN"`)
	assert.Contains(t, logs.String(), `"status":499`)

	logs.Reset()
	ctx, cancel = context.WithTimeout(context.Background(), time.Millisecond)
	defer cancel()
	rec = httptest.NewRecorder()
	rt.ServeHTTP(rec, httptest.NewRequest("GET", "/wait", nil).WithContext(ctx))
	assert.Equal(t, http.StatusServiceUnavailable, rec.Code, rec.Body.String())
	assert.Equal(t, "1", rec.Header().Get("Retry-After"))
	assert.Contains(t, rec.Body.String(), `"code":"SERVICE_UNAVAILABLE"`)
	assert.NotContains(t, logs.String(), `"level":"ERROR"`)
}

// A server in front of the router gives the request its id; the router
// and its error envelope keep it.
func TestRouter_KeepsAGivenRequestID(t *testing.T) {
	rec := httptest.NewRecorder()
	testRouter().ServeHTTP(rec, WithRequestID(httptest.NewRequest("GET", "/v1/nothing", nil), "front-id-1"))
	assert.Equal(t, "front-id-1", rec.Header().Get("X-Request-Id"))
	assert.Contains(t, rec.Body.String(), `"requestId":"front-id-1"`)

	rec = httptest.NewRecorder()
	WriteError(rec, WithRequestID(httptest.NewRequest("GET", "/x", nil), "outside-1"), slog.New(slog.DiscardHandler), NoRoute(httptest.NewRequest("GET", "/x", nil)))
	assert.Contains(t, rec.Body.String(), `"requestId":"outside-1"`, "WriteError outside a router uses the given id")
}
