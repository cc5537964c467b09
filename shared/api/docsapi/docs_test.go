package docsapi_test

import (
	"bytes"
	"compress/gzip"
	"encoding/json"
	"io"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"net/url"
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"

	"github.com/bookplatform/backend/shared/api"
	"github.com/bookplatform/backend/shared/api/docsapi"
	"github.com/bookplatform/backend/shared/httpapi"
	"github.com/bookplatform/backend/shared/openapi"
)

// root is the repository root, from this package's directory.
const root = "../../.."

// serve sends one GET through the group's own router, as its Lambda runs
// it, and checks the answer against the group's part of the API reference.
func serve(t *testing.T, path, acceptEncoding string) *httptest.ResponseRecorder {
	t.Helper()
	g := docsapi.Group(api.Deps{})
	router := httpapi.NewRouter(httpapi.Options{Logger: slog.New(slog.DiscardHandler)}, g.Routes)
	req := httptest.NewRequest(http.MethodGet, path, nil)
	if acceptEncoding != "" {
		req.Header.Set("Accept-Encoding", acceptEncoding)
	}
	rec := httptest.NewRecorder()
	router.ServeHTTP(rec, req)

	doc, err := openapi.Document([]api.Group{g})
	if err != nil {
		t.Fatal(err)
	}
	v, err := openapi.NewValidator(doc)
	if err != nil {
		t.Fatal(err)
	}
	if err := v.Check(http.MethodGet, path, rec.Code, rec.Header(), rec.Body.Bytes()); err != nil {
		t.Error(err)
	}
	return rec
}

func gunzip(t *testing.T, data []byte) []byte {
	t.Helper()
	zr, err := gzip.NewReader(bytes.NewReader(data))
	if err != nil {
		t.Fatalf("not gzip: %v", err)
	}
	out, err := io.ReadAll(zr)
	if err != nil {
		t.Fatalf("corrupt gzip: %v", err)
	}
	return out
}

func TestDocs_DocumentIsTheCommittedReference(t *testing.T) {
	want, err := os.ReadFile(filepath.Join(root, "docs", "openapi.json"))
	if err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		name, acceptEncoding string
		gzipped              bool
	}{
		{"gzip_accepted", "gzip, deflate, br", true},
		{"no_accept_encoding", "", false},
		{"gzip_refused", "gzip;q=0, identity", false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			rec := serve(t, docsapi.DocumentPath, tc.acceptEncoding)
			if rec.Code != http.StatusOK {
				t.Fatalf("status %d: %s", rec.Code, rec.Body)
			}
			if ct := rec.Header().Get("Content-Type"); ct != "application/json" {
				t.Errorf("Content-Type %q", ct)
			}
			if got := rec.Header().Get("Vary"); got != "Accept-Encoding" {
				t.Errorf("Vary %q", got)
			}
			body := rec.Body.Bytes()
			if tc.gzipped {
				if ce := rec.Header().Get("Content-Encoding"); ce != "gzip" {
					t.Fatalf("Content-Encoding %q, want gzip", ce)
				}
				body = gunzip(t, body)
			} else if ce := rec.Header().Get("Content-Encoding"); ce != "" {
				t.Fatalf("Content-Encoding %q to a client that did not accept it", ce)
			}
			if !bytes.Equal(body, want) {
				t.Fatal("GET /openapi.json is not docs/openapi.json: run make openapi")
			}
			if _, err := openapi.Load(body); err != nil {
				t.Fatal(err)
			}
		})
	}
}

func TestDocs_PageLoadsTheDocumentAndTheScript(t *testing.T) {
	rec := serve(t, docsapi.PagePath, "gzip")
	if rec.Code != http.StatusOK {
		t.Fatalf("status %d: %s", rec.Code, rec.Body)
	}
	if ct := rec.Header().Get("Content-Type"); ct != "text/html; charset=utf-8" {
		t.Errorf("Content-Type %q", ct)
	}
	page := rec.Body.String()
	if !strings.HasPrefix(page, "<!DOCTYPE html>") {
		t.Fatalf("not an HTML page: %.80q", page)
	}
	// The page's relative addresses, resolved as a browser does, are the
	// group's routes, also under a path prefix; and nothing else is loaded.
	for _, base := range []string{"http://api.example.com", "https://x.execute-api.eu-west-1.amazonaws.com/prod"} {
		pageURL, _ := url.Parse(base + docsapi.PagePath)
		for attr, want := range map[string]string{"spec-url": docsapi.DocumentPath, "src": docsapi.ScriptPath} {
			m := regexp.MustCompile(attr + `="([^"]+)"`).FindStringSubmatch(page)
			if m == nil {
				t.Fatalf("page has no %s: %s", attr, page)
			}
			ref, _ := url.Parse(m[1])
			if got := pageURL.ResolveReference(ref).String(); got != base+want {
				t.Errorf("%s %q resolves to %s, want %s", attr, m[1], got, base+want)
			}
		}
	}
	if n := strings.Count(page, "http"); n != 0 {
		t.Errorf("page names %d other sites; it must work offline: %s", n, page)
	}
	// No request for /favicon.ico (no route: a 404 in the console).
	if !strings.Contains(page, `<link rel="icon" href="data:,">`) {
		t.Error("page has no inline icon: the browser asks for /favicon.ico")
	}
	// The renderer's own reach for its CDN logo is blocked: images, like
	// everything else, come from the service alone.
	csp := rec.Header().Get("Content-Security-Policy")
	for _, directive := range []string{"default-src 'self'", "img-src 'self' data:", "connect-src 'self'"} {
		if !strings.Contains(csp, directive) {
			t.Errorf("Content-Security-Policy %q lacks %q", csp, directive)
		}
	}
	if strings.Contains(csp, "http") {
		t.Errorf("Content-Security-Policy %q allows another site", csp)
	}
}

// The served document carries the recorded examples (shared/openapi),
// which Redoc shows on the right of the page as each operation's request
// and response samples; the page does not hide them.
func TestDocs_DocumentCarriesTheExamples(t *testing.T) {
	doc, err := openapi.Load(gunzip(t, serve(t, docsapi.DocumentPath, "gzip").Body.Bytes()))
	if err != nil {
		t.Fatal(err)
	}
	login := doc.Paths.Value("/v1/auth/login").Post
	if login.RequestBody.Value.Content.Get("application/json").Example == nil {
		t.Error("POST /v1/auth/login shows no request sample")
	}
	if login.Responses.Status(http.StatusOK).Value.Content.Get("application/json").Example == nil {
		t.Error("POST /v1/auth/login shows no response sample")
	}
	if doc.Components.Responses["NotFound"].Value.Content.Get("application/json").Example == nil {
		t.Error("the 404 answer shows no sample")
	}
	if page := serve(t, docsapi.PagePath, "").Body.String(); strings.Contains(page, "hide-request-payload-sample") {
		t.Error("the page hides Redoc's request samples")
	}
}

func TestDocs_ScriptIsTheEmbeddedRenderer(t *testing.T) {
	zipped := serve(t, docsapi.ScriptPath, "gzip")
	plain := serve(t, docsapi.ScriptPath, "")
	for _, rec := range []*httptest.ResponseRecorder{zipped, plain} {
		if rec.Code != http.StatusOK {
			t.Fatalf("status %d: %s", rec.Code, rec.Body)
		}
		if ct := rec.Header().Get("Content-Type"); ct != "text/javascript; charset=utf-8" {
			t.Errorf("Content-Type %q", ct)
		}
	}
	if ce := zipped.Header().Get("Content-Encoding"); ce != "gzip" {
		t.Fatalf("Content-Encoding %q, want gzip", ce)
	}
	script := plain.Body.Bytes()
	if !bytes.Equal(gunzip(t, zipped.Body.Bytes()), script) {
		t.Fatal("the gzip and plain answers differ")
	}
	if !bytes.Contains(script[:min(len(script), 4096)], []byte("redoc.standalone.js.LICENSE.txt")) || len(script) < 500<<10 {
		t.Fatalf("not Redoc's standalone bundle (%d bytes): %.80q", len(script), script)
	}
	if got := plain.Header().Get("Content-Length"); got != strconv.Itoa(len(script)) {
		t.Errorf("Content-Length %s, body %d bytes", got, len(script))
	}

	// The embedded copy is the bundle of the pinned package, when it is
	// installed (make openapi copies it).
	installed, err := os.ReadFile(filepath.Join(root, "node_modules", "redoc", "bundles", "redoc.standalone.js"))
	switch {
	case os.IsNotExist(err):
		t.Log("node_modules/redoc is not installed: the embedded copy is not compared with it")
	case err != nil:
		t.Fatal(err)
	case !bytes.Equal(installed, script):
		t.Error("the embedded renderer is not node_modules/redoc's bundle: run make openapi")
	}
}

// The version assets/README.md names is the one package-lock.json pins.
func TestDocs_RendererVersionIsThePinnedOne(t *testing.T) {
	var lock struct {
		Packages map[string]struct{ Version, License string } `json:"packages"`
	}
	data, err := os.ReadFile(filepath.Join(root, "package-lock.json"))
	if err != nil {
		t.Fatal(err)
	}
	if err := json.Unmarshal(data, &lock); err != nil {
		t.Fatal(err)
	}
	pinned, ok := lock.Packages["node_modules/redoc"]
	if !ok {
		t.Fatal("package-lock.json does not pin redoc")
	}
	readme, err := os.ReadFile(filepath.Join("assets", "README.md"))
	if err != nil {
		t.Fatal(err)
	}
	if want := "**Redoc " + pinned.Version + "**"; !strings.Contains(string(readme), want) {
		t.Errorf("assets/README.md does not say %s, the version package-lock.json pins", want)
	}
	if want := "**" + pinned.License + " licence**"; !strings.Contains(string(readme), want) {
		t.Errorf("assets/README.md does not say %s", want)
	}
}
