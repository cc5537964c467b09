package booksapi_test

import (
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync/atomic"
	"testing"

	"github.com/bookplatform/backend/local/testenv"
	"github.com/bookplatform/backend/shared/books"
	"github.com/bookplatform/backend/shared/booksearch"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// With SEARCH_ENGINE=opensearch the group searches the collection (a
// stand-in answering as OpenSearch documents it: no server runs here)
// with signed requests, reads the page's books from the table, and
// answers in the same shape, its total flagged when OpenSearch stopped
// counting.
func TestBooks_Search_openSearchEngine(t *testing.T) {
	id := books.BookIDOf("9780306406157")
	var searches atomic.Int32
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		body, _ := io.ReadAll(r.Body)
		assert.Equal(t, "POST /catalog/_search", r.Method+" "+r.URL.Path)
		assert.Contains(t, r.Header.Get("Authorization"), "/aoss/aws4_request")
		var req map[string]any
		assert.NoError(t, json.Unmarshal(body, &req))
		assert.EqualValues(t, 5, req["size"])
		searches.Add(1)
		w.Header().Set("Content-Type", "application/json")
		fmt.Fprintf(w, `{"took":3,"timed_out":false,"_shards":{"total":2,"successful":2,"skipped":0,"failed":0},
			"hits":{"total":{"value":10000,"relation":"gte"},"max_score":3.0,
			"hits":[{"_index":"catalog","_id":%q,"_score":3.0,"sort":[3.0,0,"the loud orchard",%q]}]}}`, id, id)
	}))
	defer srv.Close()

	p := testenv.NewPaced(t, testenv.WithEnv(booksearch.EnvEngine, "opensearch"),
		testenv.WithEnv(booksearch.EnvOpenSearchEndpoint, srv.URL), testenv.WithEnv(booksearch.EnvOpenSearchIndex, "catalog"))
	c := &catalog{Env: p.Env, clock: p.Clock}
	c.importRecords(t, books.Record{Line: 1, ISBN: "0306406152", Title: "The Loud Orchard", Authors: []string{"Mara Lind"}})

	res := c.search(t, "q", "orchard", "limit", "5")
	require.Equal(t, http.StatusOK, res.Status, res.String())
	got := res.JSON
	assert.EqualValues(t, 10000, got["total"])
	assert.Equal(t, true, got["totalIsLowerBound"])
	items := got["items"].([]any)
	require.Len(t, items, 1)
	assert.Equal(t, id, items[0].(map[string]any)["id"])
	assert.Equal(t, "The Loud Orchard", items[0].(map[string]any)["title"])
	assert.EqualValues(t, 1, searches.Load())

	// A client's mistake is still the group's 400, never sent on.
	assert.Equal(t, http.StatusBadRequest, c.search(t, "q", strings.Repeat("x", 201)).Status)
	assert.EqualValues(t, 1, searches.Load())
}
