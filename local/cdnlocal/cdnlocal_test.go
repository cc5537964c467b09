package cdnlocal

import (
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/bookplatform/backend/local/dnslocal"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// The body of CreateDistributionTenant as the API reference writes it
// (<DomainItem>) is read as the SDK's (<member>); refusals are
// CloudFront's XML errors.
func TestServer_CreateAsTheReferenceWritesIt(t *testing.T) {
	s := New(dnslocal.New(), "stores.example.net", 0)
	body := `<CreateDistributionTenantRequest xmlns="http://cloudfront.amazonaws.com/doc/2020-05-31/">` +
		`<DistributionId>` + DistributionID + `</DistributionId><Domains><DomainItem><Domain>shop.example.com</Domain></DomainItem></Domains>` +
		`<Enabled>true</Enabled><Name>t1</Name></CreateDistributionTenantRequest>`
	rec := httptest.NewRecorder()
	s.ServeHTTP(rec, httptest.NewRequest(http.MethodPost, "/2020-05-31/distribution-tenant", strings.NewReader(body)))
	require.Equal(t, http.StatusCreated, rec.Code, rec.Body.String())
	assert.NotEmpty(t, rec.Header().Get("ETag"))
	assert.Equal(t, []string{"shop.example.com"}, s.Domains())

	rec = httptest.NewRecorder()
	s.ServeHTTP(rec, httptest.NewRequest(http.MethodPost, "/2020-05-31/distribution-tenant", strings.NewReader(strings.Replace(body, "t1", "t2", 1))))
	assert.Equal(t, http.StatusConflict, rec.Code)
	assert.Contains(t, rec.Body.String(), "<Code>CNAMEAlreadyExists</Code>")

	rec = httptest.NewRecorder()
	s.ServeHTTP(rec, httptest.NewRequest(http.MethodGet, "/2020-05-31/distribution-tenant/nope", nil))
	assert.Equal(t, http.StatusNotFound, rec.Code)
	assert.Contains(t, rec.Body.String(), "<Code>EntityNotFound</Code>")
}
