package webhooks

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/netip"
	"net/url"
	"strconv"
	"syscall"
	"time"
)

// ResponseLimit is how much of a receiver's response body is read: the
// status is the answer, the body is drained only so far, so a receiver
// streaming gigabytes costs the worker nothing.
const ResponseLimit = 4 << 10

// UserAgent names the service to receivers.
const UserAgent = "BookPlatform-Webhooks/1"

// errForbiddenTarget is a connection refused because the address it was
// about to reach is private, loopback, link-local or a metadata
// service's (ForbiddenIP).
var errForbiddenTarget = errors.New("refused: the address is private, loopback, link-local or reserved")

// Client sends attempts. Its safety is in what it connects to, not in
// what the URL says: the dialer's Control function sees each address
// after DNS resolution, just before connecting, and refuses a forbidden
// one (unless private targets are allowed, the local run alone), so a
// name that resolves to 127.0.0.1 or 169.254.169.254, at registration or
// only later (DNS rebinding), is refused alike. It uses no proxy (one
// would connect for it, unchecked), follows no redirect (a 3xx is a
// failed attempt: a redirect could lead anywhere the check did not see),
// gives each attempt Settings.Timeout from dial to the last byte read,
// and reads at most ResponseLimit of a response's body.
type Client struct {
	http         *http.Client
	allowPrivate bool
	timeout      time.Duration
}

// NewClient returns the client of s.
func NewClient(s Settings) *Client {
	allow := s.AllowPrivateTargets
	dialer := &net.Dialer{
		Timeout: s.Timeout,
		Control: func(_, address string, _ syscall.RawConn) error {
			if allow {
				return nil
			}
			ap, err := netip.ParseAddrPort(address)
			if err != nil || ForbiddenIP(ap.Addr()) {
				return errForbiddenTarget
			}
			return nil
		},
	}
	tr := &http.Transport{
		Proxy:                  nil,
		DialContext:            dialer.DialContext,
		ForceAttemptHTTP2:      true,
		TLSHandshakeTimeout:    s.Timeout,
		ResponseHeaderTimeout:  s.Timeout,
		MaxResponseHeaderBytes: 16 << 10,
		MaxIdleConnsPerHost:    4,
		IdleConnTimeout:        30 * time.Second,
	}
	return &Client{
		http: &http.Client{Transport: tr, CheckRedirect: func(*http.Request, []*http.Request) error {
			return http.ErrUseLastResponse
		}},
		allowPrivate: allow,
		timeout:      s.Timeout,
	}
}

// Post makes one attempt: body POSTed to target with header, and what
// came of it (At and DurationMs, the status, and an Error unless the
// answer was a 2xx). It never returns an error: every failure is the
// attempt's.
func (c *Client) Post(ctx context.Context, target string, header http.Header, body []byte) Attempt {
	start := time.Now()
	a := Attempt{At: start.UTC()}
	a.ResponseCode, a.Error = c.post(ctx, target, header, body)
	a.DurationMs = time.Since(start).Milliseconds()
	return a
}

func (c *Client) post(ctx context.Context, target string, header http.Header, body []byte) (int, string) {
	u, err := url.Parse(target)
	if err != nil || u.Host == "" {
		return 0, "refused: not an absolute URL"
	}
	switch {
	case u.Scheme == "https":
	case u.Scheme == "http" && c.allowPrivate:
	default:
		return 0, "refused: only https URLs are delivered to"
	}
	ctx, cancel := context.WithTimeout(ctx, c.timeout)
	defer cancel()
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, u.String(), bytes.NewReader(body))
	if err != nil {
		return 0, "refused: " + err.Error()
	}
	req.Header = header.Clone()
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("User-Agent", UserAgent)
	resp, err := c.http.Do(req)
	if err != nil {
		return 0, describe(err)
	}
	defer resp.Body.Close()
	// Read what the limit allows, so a short answer's connection can be
	// reused; a longer one is cut, and its connection closed.
	// A 2xx is the receiver's acceptance, however slowly the rest of
	// its body comes: a read error after it does not fail the attempt.
	_, _ = io.Copy(io.Discard, io.LimitReader(resp.Body, ResponseLimit))
	switch {
	case resp.StatusCode >= 300 && resp.StatusCode < 400:
		return resp.StatusCode, "redirect not followed (HTTP " + strconv.Itoa(resp.StatusCode) + ")"
	case resp.StatusCode < 200 || resp.StatusCode >= 300:
		return resp.StatusCode, "HTTP " + strconv.Itoa(resp.StatusCode)
	}
	return resp.StatusCode, ""
}

// describe is a failed request's reason, for the owner's list of
// attempts: no internal detail beyond what the receiver's side shows.
func describe(err error) string {
	var nerr net.Error
	switch {
	case errors.Is(err, errForbiddenTarget):
		return errForbiddenTarget.Error()
	case errors.Is(err, context.DeadlineExceeded), errors.As(err, &nerr) && nerr.Timeout():
		return "timeout"
	}
	var dns *net.DNSError
	if errors.As(err, &dns) {
		return "DNS: " + dns.Err
	}
	var op *net.OpError
	if errors.As(err, &op) {
		return fmt.Sprintf("connection failed: %s %v", op.Op, op.Err)
	}
	return "request failed: " + err.Error()
}
