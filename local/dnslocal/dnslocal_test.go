package dnslocal

import (
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
)

// A developer sets a record over HTTP as at a DNS provider; a lookup
// answers the host's own record, as a recursive resolver answers a query
// of type CNAME, not the chain behind it.
func TestResolver(t *testing.T) {
	r := New()
	do := func(method, path, body string) *httptest.ResponseRecorder {
		rec := httptest.NewRecorder()
		r.ServeHTTP(rec, httptest.NewRequest(method, path, strings.NewReader(body)))
		return rec
	}
	assert.Equal(t, http.StatusOK, do("PUT", Prefix+"Books.Example.com.", `{"cname":"shop.stores.example.net"}`).Code)
	r.SetCNAME("shop.stores.example.net", "d111.cloudfront.net")
	got, err := r.CNAME(t.Context(), "books.example.com")
	assert.NoError(t, err)
	assert.Equal(t, "shop.stores.example.net", got, "the first record, not the chain's end")
	got, _ = r.CNAME(t.Context(), "shop.stores.example.net")
	assert.Equal(t, "d111.cloudfront.net", got)
	got, _ = r.CNAME(t.Context(), "unknown.example.com")
	assert.Empty(t, got, "a name without a record")
	assert.Contains(t, do("GET", Prefix, "").Body.String(), `"books.example.com"`)
	assert.Equal(t, http.StatusBadRequest, do("PUT", Prefix+"x.example.com", `{}`).Code)
	assert.Equal(t, http.StatusNoContent, do("DELETE", Prefix+"books.example.com", "").Code)
	got, _ = r.CNAME(t.Context(), "books.example.com")
	assert.Empty(t, got)
	assert.Equal(t, http.StatusMethodNotAllowed, do("POST", Prefix+"x", "").Code)
}
