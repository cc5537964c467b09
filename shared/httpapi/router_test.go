package httpapi

import (
	"encoding/json"
	"io"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

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
	assert.Equal(t, "GET, PUT", rec.Header().Get("Allow"))
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
		Name  string `json:"name"`
		Count int    `json:"count"`
	}
	rt := func(limit int64) *Router {
		return NewRouter(Options{MaxBodyBytes: limit, Logger: slog.New(slog.NewTextHandler(io.Discard, nil))}, []Route{
			{Method: "POST", Path: "/p", Handler: func(w http.ResponseWriter, r *http.Request) error {
				var p payload
				if err := Decode(w, r, &p); err != nil {
					return err
				}
				return JSON(w, http.StatusOK, p)
			}},
		})
	}
	cases := []struct {
		name, body string
		status     int
		message    string
	}{
		{"valid", `{"name":"a","count":2}`, 200, ""},
		{"empty body is {}", ``, 200, ""},
		{"malformed", `{"name":`, 400, "Malformed JSON body"},
		{"wrong type", `{"count":"two"}`, 400, "Field 'count' must be a number, not string"},
		{"array instead of object", `[1,2]`, 400, "Request body must be a JSON object"},
		{"trailing data", `{"name":"a"} {"name":"b"}`, 400, "single JSON object"},
		{"too large", `{"name":"` + strings.Repeat("x", 2000) + `"}`, 413, "exceeds 1024 bytes"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			rec := httptest.NewRecorder()
			rt(1024).ServeHTTP(rec, httptest.NewRequest("POST", "/p", strings.NewReader(c.body)))
			assert.Equal(t, c.status, rec.Code, rec.Body.String())
			if c.message != "" {
				assert.Contains(t, rec.Body.String(), c.message)
			}
		})
	}
}
