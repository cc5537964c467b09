// Package opensearchtest is a stand-in of an OpenSearch collection for
// the tests of what calls one (shared/booksearch/opensearch, the search
// feed, the relay's grants): it serves the requests a test expects, in
// order, with answers recorded under shared/booksearch/opensearch/testdata
// (no OpenSearch server runs where this project is built; that
// directory's README.md). Test support: no function links it.
package opensearchtest

import (
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"runtime"
	"slices"
	"strings"
	"sync"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// Exchange is one request the caller must send and the answer the
// stand-in gives.
type Exchange struct {
	Method, Path string
	// Request is the testdata file of the expected body: "" for none,
	// AnyBody to leave it unchecked; a .ndjson file is compared byte for
	// byte, any other as JSON.
	Request string
	Status  int
	Answer  string // testdata file
}

// AnyBody as an Exchange's Request leaves the body unchecked.
const AnyBody = "*"

// The answers OpenSearch gives a write to an index that does not exist
// (its index_not_found_exception, status 404): the whole request refused
// (AnswerIndexMissing, with status 404) or, in a bulk answer of status
// 200, each document refused (AnswerBulkIndexMissing).
const (
	AnswerIndexMissing     = "index_missing_answer.json"
	AnswerBulkIndexMissing = "bulk_index_missing_answer.json"
)

// IndexMissing is a request to path refused because the index does not
// exist; request is its expected body, as Exchange's Request.
func IndexMissing(method, path, request string) Exchange {
	return Exchange{Method: method, Path: path, Request: request, Status: http.StatusNotFound, Answer: AnswerIndexMissing}
}

// CreateIndex is the creation of the index named index with the
// engine's settings and mapping (shared/booksearch/opensearch's
// index.json, byte for byte as JSON), acknowledged.
func CreateIndex(index string) Exchange {
	return Exchange{Method: http.MethodPut, Path: "/" + index, Request: "../index.json", Status: http.StatusOK, Answer: "create_index_answer.json"}
}

// IndexExists is the same creation refused because the index exists
// (resource_already_exists_exception, status 400), which the engine
// takes as done.
func IndexExists(index string) Exchange {
	return Exchange{Method: http.MethodPut, Path: "/" + index, Request: "../index.json", Status: http.StatusBadRequest, Answer: "create_index_exists_answer.json"}
}

// StandIn serves the exchanges in order and fails the test on any
// request that is not the next one, and at its end on any not sent. It
// returns the stand-in's URL and the headers of the requests so far.
func StandIn(t testing.TB, want ...Exchange) (url string, headers func() []http.Header) {
	t.Helper()
	var mu sync.Mutex
	var seen []http.Header
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		mu.Lock()
		defer mu.Unlock()
		body, _ := io.ReadAll(r.Body)
		if !assert.Less(t, len(seen), len(want), "unexpected request %s %s %s", r.Method, r.URL.Path, body) {
			w.WriteHeader(http.StatusTeapot)
			return
		}
		x := want[len(seen)]
		seen = append(seen, r.Header.Clone())
		assert.Equal(t, x.Method+" "+x.Path, r.Method+" "+r.URL.Path)
		switch {
		case x.Request == AnyBody:
		case x.Request == "":
			assert.Empty(t, body)
		case strings.HasSuffix(x.Request, ".ndjson"):
			assert.Equal(t, Testdata(t, x.Request), string(body), "body of %s %s", r.Method, r.URL.Path)
		default:
			assert.JSONEq(t, Testdata(t, x.Request), string(body), "body of %s %s", r.Method, r.URL.Path)
		}
		w.Header().Set("Content-Type", "application/json; charset=UTF-8")
		w.WriteHeader(x.Status)
		_, _ = io.WriteString(w, Testdata(t, x.Answer))
	}))
	t.Cleanup(func() {
		srv.Close()
		mu.Lock()
		defer mu.Unlock()
		assert.Len(t, seen, len(want), "requests sent")
	})
	return srv.URL, func() []http.Header { mu.Lock(); defer mu.Unlock(); return slices.Clone(seen) }
}

// Testdata reads a file of shared/booksearch/opensearch/testdata, from
// whichever package's test.
func Testdata(t testing.TB, name string) string {
	t.Helper()
	b, err := os.ReadFile(filepath.Join(dir(), name))
	require.NoError(t, err)
	return string(b)
}

// dir is the testdata directory, found from this file's own path.
func dir() string {
	_, file, _, _ := runtime.Caller(0)
	return filepath.Join(filepath.Dir(file), "..", "testdata")
}
