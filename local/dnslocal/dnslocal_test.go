package dnslocal

import (
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
)

// A developer sets a record over HTTP as at a DNS provider; lookups
// follow CNAME chains as the net package does.
func TestResolver(t *testing.T) {
	r := New()
	do := func(method, path, body string) *httptest.ResponseRecorder {
		rec := httptest.NewRecorder()
		r.ServeHTTP(rec, httptest.NewRequest(method, path, strings.NewReader(body)))
		return rec
	}
	assert.Equal(t, http.StatusOK, do("PUT", Prefix+"Books.Example.com.", `{"cname":"shop.stores.example.net"}`).Code)
	r.SetCNAME("shop.stores.example.net", "d111.cloudfront.net")
	got, err := r.LookupCNAME(t.Context(), "books.example.com")
	assert.NoError(t, err)
	assert.Equal(t, "d111.cloudfront.net.", got, "the chain is followed")
	got, _ = r.LookupCNAME(t.Context(), "unknown.example.com")
	assert.Equal(t, "unknown.example.com.", got, "a name without a record is its own canonical name")
	assert.Contains(t, do("GET", Prefix, "").Body.String(), `"books.example.com"`)
	assert.Equal(t, http.StatusBadRequest, do("PUT", Prefix+"x.example.com", `{}`).Code)
	assert.Equal(t, http.StatusNoContent, do("DELETE", Prefix+"books.example.com", "").Code)
	got, _ = r.LookupCNAME(t.Context(), "books.example.com")
	assert.Equal(t, "books.example.com.", got)
	assert.Equal(t, http.StatusMethodNotAllowed, do("POST", Prefix+"x", "").Code)
	r.SetCNAME("a.example.com", "b.example.com")
	r.SetCNAME("b.example.com", "a.example.com")
	_, err = r.LookupCNAME(t.Context(), "a.example.com")
	assert.NoError(t, err, "a loop ends")
}
