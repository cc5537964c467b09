// Package cdnlocal is the local run's stand-in of CloudFront SaaS
// Manager: the part of CloudFront's API (REST-XML, 2020-05-31) that the
// custom domains' adapter calls (shared/cdn), served over HTTP so that the
// real SDK client and adapter run locally and in tests:
// CreateDistributionTenant, GetDistributionTenant,
// GetManagedCertificateDetails, UpdateDistributionTenant and
// DeleteDistributionTenant, with ETags and If-Match as CloudFront has them.
//
// It behaves as CloudFront does for a CloudFront-managed certificate whose
// validation token CloudFront serves: the certificate is issued once the
// tenant's domain resolves (through the DNS stand-in) to a host under the
// platform's target suffix, that is once it points at the distribution;
// the tenant is then deployed, and its domain active, after DeployDelay.
package cdnlocal

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"encoding/xml"
	"fmt"
	"io"
	"net/http"
	"strings"
	"sync"
	"time"

	"github.com/bookplatform/backend/shared/stores"
)

// DistributionID is the multi-tenant distribution the local run uses.
const DistributionID = "E1LOCALSTORES"

const apiPrefix = "/2020-05-31/"

// Server is the stand-in.
type Server struct {
	// DeployDelay is how long after its certificate is issued a tenant
	// starts serving.
	DeployDelay time.Duration

	dns    stores.Resolver
	suffix string
	now    func() time.Time

	mu      sync.Mutex
	tenants map[string]*tenant
	// deployed holds tenants a test declared deployed at once.
	deployed map[string]bool
}

type tenant struct {
	id, name, domain string
	enabled          bool
	etag             string
	created          time.Time
	issuedAt         time.Time // zero until the certificate is issued
}

// New returns a stand-in whose certificates validate through dns, for
// domains pointing under suffix.
func New(dns stores.Resolver, suffix string, deployDelay time.Duration) *Server {
	return &Server{
		DeployDelay: deployDelay, dns: dns, suffix: suffix, now: time.Now,
		tenants: map[string]*tenant{}, deployed: map[string]bool{},
	}
}

// DeployAll makes every tenant whose certificate is issued serve now
// (tests: the end of CloudFront's deployment).
func (s *Server) DeployAll() {
	s.mu.Lock()
	defer s.mu.Unlock()
	for id, t := range s.tenants {
		if !t.issuedAt.IsZero() {
			s.deployed[id] = true
		}
	}
}

// Count is the number of tenants (tests: nothing leaks).
func (s *Server) Count() int {
	s.mu.Lock()
	defer s.mu.Unlock()
	return len(s.tenants)
}

// Domains lists the domains of the tenants.
func (s *Server) Domains() []string {
	s.mu.Lock()
	defer s.mu.Unlock()
	var out []string
	for _, t := range s.tenants {
		out = append(out, t.domain)
	}
	return out
}

// ServeHTTP routes the API's paths.
func (s *Server) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	path := strings.TrimPrefix(r.URL.Path, apiPrefix)
	switch {
	case r.Method == http.MethodPost && path == "distribution-tenant":
		s.create(w, r)
	case strings.HasPrefix(path, "distribution-tenant/") && !strings.Contains(path[len("distribution-tenant/"):], "/"):
		id := path[len("distribution-tenant/"):]
		switch r.Method {
		case http.MethodGet:
			s.get(w, id)
		case http.MethodPut:
			s.update(w, r, id)
		case http.MethodDelete:
			s.delete(w, r, id)
		default:
			apiError(w, http.StatusMethodNotAllowed, "InvalidArgument", "method not supported by the stand-in")
		}
	case r.Method == http.MethodGet && strings.HasPrefix(path, "managed-certificate/"):
		s.certificate(w, path[len("managed-certificate/"):])
	default:
		apiError(w, http.StatusNotFound, "InvalidArgument", "operation not supported by the stand-in: "+r.Method+" "+r.URL.Path)
	}
}

// tenantRequest is the body of CreateDistributionTenant and
// UpdateDistributionTenant.
// The SDK writes the domain list's items as <member> where the API
// reference shows <DomainItem>: both are read.
type tenantRequest struct {
	DistributionID string       `xml:"DistributionId"`
	Name           string       `xml:"Name"`
	Members        []domainItem `xml:"Domains>member"`
	Items          []domainItem `xml:"Domains>DomainItem"`
	Enabled        *bool        `xml:"Enabled"`
}

type domainItem struct {
	Domain string `xml:"Domain"`
}

func (r tenantRequest) domains() []domainItem { return append(r.Members, r.Items...) }

func (s *Server) create(w http.ResponseWriter, r *http.Request) {
	var req tenantRequest
	if !readXML(w, r, &req) {
		return
	}
	if req.DistributionID != DistributionID {
		apiError(w, http.StatusNotFound, "EntityNotFound", "no distribution "+req.DistributionID)
		return
	}
	domains := req.domains()
	if req.Name == "" || len(domains) != 1 || domains[0].Domain == "" {
		apiError(w, http.StatusBadRequest, "InvalidArgument", "a name and one domain are required by the stand-in")
		return
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	for _, t := range s.tenants {
		if t.name == req.Name {
			apiError(w, http.StatusConflict, "EntityAlreadyExists", "a tenant named "+req.Name+" exists")
			return
		}
		if t.domain == domains[0].Domain {
			apiError(w, http.StatusConflict, "CNAMEAlreadyExists", "another tenant serves "+t.domain)
			return
		}
	}
	t := &tenant{
		id: "dt_" + random(8), name: req.Name, domain: domains[0].Domain,
		enabled: req.Enabled == nil || *req.Enabled, etag: random(6), created: s.now().UTC(),
	}
	s.tenants[t.id] = t
	w.Header().Set("Location", "https://cloudfront.local"+apiPrefix+"distribution-tenant/"+t.id)
	s.writeTenant(w, http.StatusCreated, t)
}

func (s *Server) get(w http.ResponseWriter, id string) {
	s.mu.Lock()
	defer s.mu.Unlock()
	t, ok := s.tenants[id]
	if !ok {
		apiError(w, http.StatusNotFound, "EntityNotFound", "no tenant "+id)
		return
	}
	s.writeTenant(w, http.StatusOK, t)
}

func (s *Server) update(w http.ResponseWriter, r *http.Request, id string) {
	var req tenantRequest
	if !readXML(w, r, &req) {
		return
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	t, ok := s.tenants[id]
	switch {
	case !ok:
		apiError(w, http.StatusNotFound, "EntityNotFound", "no tenant "+id)
		return
	case r.Header.Get("If-Match") != t.etag:
		apiError(w, http.StatusPreconditionFailed, "PreconditionFailed", "If-Match is not the tenant's current ETag")
		return
	}
	if req.Enabled != nil {
		t.enabled = *req.Enabled
	}
	t.etag = random(6)
	s.writeTenant(w, http.StatusOK, t)
}

func (s *Server) delete(w http.ResponseWriter, r *http.Request, id string) {
	s.mu.Lock()
	defer s.mu.Unlock()
	t, ok := s.tenants[id]
	switch {
	case !ok:
		apiError(w, http.StatusNotFound, "EntityNotFound", "no tenant "+id)
	case r.Header.Get("If-Match") != t.etag:
		apiError(w, http.StatusPreconditionFailed, "PreconditionFailed", "If-Match is not the tenant's current ETag")
	case t.enabled:
		apiError(w, http.StatusConflict, "ResourceInUse", "disable the tenant before deleting it")
	default:
		delete(s.tenants, id)
		delete(s.deployed, id)
		w.WriteHeader(http.StatusNoContent)
	}
}

func (s *Server) certificate(w http.ResponseWriter, id string) {
	s.mu.Lock()
	defer s.mu.Unlock()
	t, ok := s.tenants[id]
	if !ok {
		apiError(w, http.StatusNotFound, "EntityNotFound", "no tenant "+id)
		return
	}
	status := "pending-validation"
	if s.issued(t) {
		status = "issued"
	}
	writeXML(w, http.StatusOK, "", fmt.Sprintf(`<ManagedCertificateDetails xmlns="http://cloudfront.amazonaws.com/doc/2020-05-31/">`+
		`<CertificateStatus>%s</CertificateStatus><ValidationTokenHost>cloudfront</ValidationTokenHost></ManagedCertificateDetails>`, status))
}

// issued decides (and remembers) whether t's certificate is issued: its
// domain's CNAME record names a host under the target suffix. Called
// with s.mu held.
func (s *Server) issued(t *tenant) bool {
	if !t.issuedAt.IsZero() {
		return true
	}
	c, err := s.dns.CNAME(context.Background(), t.domain)
	c = strings.TrimSuffix(strings.ToLower(c), ".")
	if err == nil && strings.HasSuffix(c, "."+s.suffix) {
		t.issuedAt = s.now()
		return true
	}
	return false
}

// writeTenant answers a tenant as CloudFront does, with its ETag.
func (s *Server) writeTenant(w http.ResponseWriter, status int, t *tenant) {
	serving := s.issued(t) && t.enabled && (s.deployed[t.id] || !s.now().Before(t.issuedAt.Add(s.DeployDelay)))
	state, domainStatus := "InProgress", "inactive"
	if serving {
		state, domainStatus = "Deployed", "active"
	}
	body := fmt.Sprintf(`<DistributionTenant xmlns="http://cloudfront.amazonaws.com/doc/2020-05-31/">`+
		`<Id>%s</Id><DistributionId>%s</DistributionId><Name>%s</Name>`+
		`<Arn>arn:aws:cloudfront::000000000000:distribution-tenant/%s</Arn>`+
		`<Domains><member><Domain>%s</Domain><Status>%s</Status></member></Domains>`+
		`<Enabled>%t</Enabled><Status>%s</Status><CreatedTime>%s</CreatedTime><LastModifiedTime>%s</LastModifiedTime>`+
		`</DistributionTenant>`,
		t.id, DistributionID, esc(t.name), t.id, esc(t.domain), domainStatus, t.enabled, state,
		t.created.Format(time.RFC3339), t.created.Format(time.RFC3339))
	writeXML(w, status, t.etag, body)
}

func writeXML(w http.ResponseWriter, status int, etag, body string) {
	w.Header().Set("Content-Type", "text/xml")
	if etag != "" {
		w.Header().Set("ETag", etag)
	}
	w.WriteHeader(status)
	_, _ = io.WriteString(w, xml.Header+body)
}

func readXML(w http.ResponseWriter, r *http.Request, v any) bool {
	data, err := io.ReadAll(io.LimitReader(r.Body, 1<<20))
	if err == nil {
		err = xml.Unmarshal(data, v)
	}
	if err != nil {
		apiError(w, http.StatusBadRequest, "MalformedXML", err.Error())
		return false
	}
	return true
}

// apiError answers an error in CloudFront's XML error shape.
func apiError(w http.ResponseWriter, status int, code, msg string) {
	writeXML(w, status, "", fmt.Sprintf(`<ErrorResponse xmlns="http://cloudfront.amazonaws.com/doc/2020-05-31/">`+
		`<Error><Type>Sender</Type><Code>%s</Code><Message>%s</Message></Error><RequestId>%s</RequestId></ErrorResponse>`,
		code, esc(msg), random(8)))
}

func esc(s string) string {
	var b strings.Builder
	_ = xml.EscapeText(&b, []byte(s))
	return b.String()
}

func random(n int) string {
	b := make([]byte, n)
	_, _ = rand.Read(b)
	return hex.EncodeToString(b)
}
