// Package docsapi is the docs endpoint group: the API reference as an
// OpenAPI 3.1 document (GET /openapi.json) and as a page rendered by Redoc
// (GET /docs), whose script this group serves too, so the page works
// without access to any other site.
//
// The document is not built here: building it links kin-openapi and
// reflects over every group, which every Lambda would pay for (each links
// every group through shared/app). `make openapi` writes it with
// shared/openapi (docs/openapi.json, and the gzip copy in assets/ that is
// embedded here); a test of shared/openapi fails when the copy is not the
// document the route tables give. The renderer is embedded compressed for
// the same reason: assets/README.md says where it comes from.
package docsapi

import (
	"bytes"
	"compress/gzip"
	_ "embed"
	"fmt"
	"io"
	"net/http"
	"strconv"
	"strings"
	"sync"

	"github.com/bookplatform/backend/shared/api"
	"github.com/bookplatform/backend/shared/httpapi"
)

// The group's paths. They carry no version: the reference describes every
// version there is.
const (
	DocumentPath = "/openapi.json"
	PagePath     = "/docs"
	ScriptPath   = "/docs/redoc.standalone.js"
)

var (
	//go:embed assets/openapi.json.gz
	documentGzip []byte
	//go:embed assets/redoc.standalone.js.gz
	redocGzip []byte
)

// Group is the docs group. It reads nothing but what is embedded in it.
func Group(api.Deps) api.Group {
	document := newGzipped("openapi.json", "application/json", "public, max-age=300", documentGzip)
	script := newGzipped("redoc.standalone.js", "text/javascript; charset=utf-8", "public, max-age=86400", redocGzip)
	return api.Group{Name: "docs", Routes: []httpapi.Route{
		{Method: http.MethodGet, Path: DocumentPath, Auth: httpapi.AuthNone, Unmetered: true, Handler: document.serve,
			Doc: httpapi.Doc{Summary: "This API reference, as an OpenAPI 3.1 document", Response: map[string]any(nil)}},
		{Method: http.MethodGet, Path: PagePath, Auth: httpapi.AuthNone, Unmetered: true, Handler: servePage,
			Doc: httpapi.Doc{Summary: "This API reference, as a page to read", Response: htmlPage{}}},
		{Method: http.MethodGet, Path: ScriptPath, Auth: httpapi.AuthNone, Unmetered: true, Handler: script.serve,
			Doc: httpapi.Doc{Summary: "The script that renders the page (Redoc)", Response: javaScript{}}},
	}}
}

// htmlPage and javaScript are the bodies of the page and its script for
// the API reference, which documents a body with a MediaType method as
// that media type rather than as JSON.
type (
	htmlPage   struct{}
	javaScript struct{}
)

// MediaType is the page's media type.
func (htmlPage) MediaType() string { return "text/html" }

// MediaType is the script's media type.
func (javaScript) MediaType() string { return "text/javascript" }

// page loads the document and the script by relative address, so that it
// also works where the API is served under a prefix (an API Gateway stage
// path): from /docs, "openapi.json" is /openapi.json.
var page = []byte(`<!DOCTYPE html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>Book platform API</title>
<link rel="icon" href="data:,">
<style>body { margin: 0; padding: 0; }</style>
</head>
<body>
<redoc spec-url="` + strings.TrimPrefix(DocumentPath, "/") + `"></redoc>
<script src="` + strings.TrimPrefix(ScriptPath, "/") + `"></script>
</body>
</html>
`)

// pagePolicy is the page's Content-Security-Policy: everything from the
// service itself. Redoc's sidebar shows its logo from its CDN, always;
// the policy keeps the browser from fetching it (Redoc then hides the
// image), so the page loads nothing from another site, and the empty
// data: icon in the page keeps browsers from asking for /favicon.ico,
// which no route serves. Redoc needs inline styles (styled-components),
// a blob: worker (its search index) and eval (the schema compiler it
// bundles).
const pagePolicy = "default-src 'self'; script-src 'self' 'unsafe-eval'; style-src 'self' 'unsafe-inline'; " +
	"img-src 'self' data:; font-src 'self' data:; worker-src 'self' blob:; connect-src 'self'; " +
	"object-src 'none'; base-uri 'none'; frame-ancestors 'none'"

// servePage serves GET /docs.
func servePage(w http.ResponseWriter, _ *http.Request) error {
	h := w.Header()
	h.Set("Content-Type", "text/html; charset=utf-8")
	h.Set("Content-Security-Policy", pagePolicy)
	h.Set("Cache-Control", "public, max-age=300")
	h.Set("X-Content-Type-Options", "nosniff")
	h.Set("Content-Length", strconv.Itoa(len(page)))
	w.WriteHeader(http.StatusOK)
	_, err := w.Write(page)
	return err
}

// gzipped is an embedded file kept gzip-compressed: sent as it is to a
// client that accepts gzip (every browser), decompressed for one that
// does not (once, the first time one asks).
type gzipped struct {
	name, contentType, cacheControl string
	data                            []byte
	plain                           func() ([]byte, error)
}

func newGzipped(name, contentType, cacheControl string, data []byte) gzipped {
	return gzipped{name: name, contentType: contentType, cacheControl: cacheControl, data: data,
		plain: sync.OnceValues(func() ([]byte, error) {
			zr, err := gzip.NewReader(bytes.NewReader(data))
			if err != nil {
				return nil, err
			}
			return io.ReadAll(zr)
		})}
}

// serve serves GET /openapi.json and GET /docs/redoc.standalone.js.
func (g gzipped) serve(w http.ResponseWriter, r *http.Request) error {
	body := g.data
	h := w.Header()
	if acceptsGzip(r.Header.Get("Accept-Encoding")) {
		h.Set("Content-Encoding", "gzip")
	} else {
		var err error
		if body, err = g.plain(); err != nil {
			return fmt.Errorf("docs: decompress embedded %s: %w", g.name, err)
		}
	}
	h.Set("Content-Type", g.contentType)
	h.Set("Cache-Control", g.cacheControl)
	h.Set("Vary", "Accept-Encoding")
	h.Set("X-Content-Type-Options", "nosniff")
	h.Set("Content-Length", strconv.Itoa(len(body)))
	w.WriteHeader(http.StatusOK)
	_, err := w.Write(body)
	return err
}

// acceptsGzip reads an Accept-Encoding header: gzip (or *) listed without
// q=0.
func acceptsGzip(header string) bool {
	for item := range strings.SplitSeq(header, ",") {
		coding, params, _ := strings.Cut(item, ";")
		coding = strings.ToLower(strings.TrimSpace(coding))
		if coding != "gzip" && coding != "*" {
			continue
		}
		q := 1.0
		for p := range strings.SplitSeq(params, ";") {
			if k, v, ok := strings.Cut(strings.TrimSpace(p), "="); ok && strings.EqualFold(k, "q") {
				if f, err := strconv.ParseFloat(strings.TrimSpace(v), 64); err == nil {
					q = f
				}
			}
		}
		return q > 0
	}
	return false
}
