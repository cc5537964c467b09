// Package dnslocal is the local run's stand-in DNS resolver for custom
// domains: an in-process table of CNAME records, which the stores
// service reads (stores.Resolver) and the CloudFront stand-in consults to
// validate certificates. A developer sets records through the local
// server (PUT /_local/dns/{host}, see README "Custom domains locally"),
// standing in for their DNS provider; tests set them directly.
package dnslocal

import (
	"context"
	"encoding/json"
	"io"
	"net/http"
	"sort"
	"strings"
	"sync"
)

// Prefix is where the local server serves the records.
const Prefix = "/_local/dns/"

// Resolver is the table of CNAME records.
type Resolver struct {
	mu    sync.Mutex
	cname map[string]string
	fail  error
}

// Fail makes every lookup answer err until Fail(nil), as a resolver that
// does not answer (tests of what a DNS outage does).
func (r *Resolver) Fail(err error) {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.fail = err
}

// New returns an empty resolver.
func New() *Resolver { return &Resolver{cname: map[string]string{}} }

func norm(h string) string { return strings.TrimSuffix(strings.ToLower(strings.TrimSpace(h)), ".") }

// SetCNAME points host at target ("" removes the record).
func (r *Resolver) SetCNAME(host, target string) {
	r.mu.Lock()
	defer r.mu.Unlock()
	if target == "" {
		delete(r.cname, norm(host))
		return
	}
	r.cname[norm(host)] = norm(target)
}

// CNAME returns the target of host's own record ("" when it has none),
// as a recursive resolver answers a query of type CNAME (stores.Resolver).
func (r *Resolver) CNAME(_ context.Context, host string) (string, error) {
	r.mu.Lock()
	defer r.mu.Unlock()
	if r.fail != nil {
		return "", r.fail
	}
	return r.cname[norm(host)], nil
}

// record is one CNAME as the HTTP interface shows it.
type record struct {
	Name  string `json:"name"`
	CNAME string `json:"cname"`
}

// ServeHTTP is the records' interface on the local server: GET Prefix
// lists them, PUT Prefix{host} with {"cname": "target"} sets one, DELETE
// Prefix{host} removes it.
func (r *Resolver) ServeHTTP(w http.ResponseWriter, req *http.Request) {
	host := norm(strings.TrimPrefix(req.URL.Path, Prefix))
	w.Header().Set("Content-Type", "application/json")
	switch {
	case req.Method == http.MethodGet && host == "":
		r.mu.Lock()
		out := make([]record, 0, len(r.cname))
		for k, v := range r.cname {
			out = append(out, record{k, v})
		}
		r.mu.Unlock()
		sort.Slice(out, func(i, j int) bool { return out[i].Name < out[j].Name })
		_ = json.NewEncoder(w).Encode(map[string]any{"records": out})
	case req.Method == http.MethodPut && host != "":
		var body struct {
			CNAME string `json:"cname"`
		}
		data, _ := io.ReadAll(io.LimitReader(req.Body, 4096))
		if json.Unmarshal(data, &body) != nil || norm(body.CNAME) == "" {
			w.WriteHeader(http.StatusBadRequest)
			_ = json.NewEncoder(w).Encode(map[string]string{"error": `send {"cname": "<target host>"}`})
			return
		}
		r.SetCNAME(host, body.CNAME)
		_ = json.NewEncoder(w).Encode(record{host, norm(body.CNAME)})
	case req.Method == http.MethodDelete && host != "":
		r.SetCNAME(host, "")
		w.WriteHeader(http.StatusNoContent)
	default:
		w.Header().Set("Allow", "GET, PUT, DELETE")
		w.WriteHeader(http.StatusMethodNotAllowed)
		_ = json.NewEncoder(w).Encode(map[string]string{"error": "GET " + Prefix + ", PUT or DELETE " + Prefix + "{host}"})
	}
}
