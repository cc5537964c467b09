package app

import (
	"crypto/subtle"
	"log/slog"
	"net"
	"net/http"
	"strings"

	"github.com/bookplatform/backend/shared/apperr"
	"github.com/bookplatform/backend/shared/httpapi"
)

// OriginVerifyHeader carries the secret CloudFront adds to every request
// its API front door forwards (infra/waf.go; ORIGIN_VERIFY_SECRET).
const OriginVerifyHeader = "X-Origin-Verify"

// MsgNotThroughFrontDoor answers a request that reached API Gateway
// without passing the front door (and its web ACL).
const MsgNotThroughFrontDoor = "Requests must come through the API's CloudFront distribution"

// frontDoor admits only the requests CloudFront forwarded, when the API
// sits behind its front door (secrets set): the secret header must match
// one of the values secrets gives (the origin secret's current and
// previous: CloudFront keeps sending the previous until a deploy gives
// it the current), and is removed before anything else sees it. The client's address is
// then the one CloudFront saw: API Gateway's source address is a
// CloudFront edge, so without this every anonymous caller would share a
// handful of addresses in the rate limits and idempotency scopes.
// CloudFront appends the address it saw to X-Forwarded-For and API
// Gateway appends the edge's after it, so it is the last but one entry;
// whatever a client put in front of it is not trusted.
func frontDoor(secrets func() []string, logger *slog.Logger, next http.Handler) http.Handler {
	if secrets == nil {
		return next
	}
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if !admitted(r.Header.Get(OriginVerifyHeader), secrets()) {
			r = httpapi.WithRequestID(r, httpapi.NewRequestID(r))
			w.Header().Set("X-Request-Id", httpapi.RequestID(r))
			httpapi.WriteError(w, r, logger, apperr.Forbidden(MsgNotThroughFrontDoor))
			return
		}
		r.Header.Del(OriginVerifyHeader)
		if ip := viewerAddress(r.Header.Get("X-Forwarded-For")); ip != "" {
			r.RemoteAddr = ip
		}
		next.ServeHTTP(w, r)
	})
}

// admitted reports whether header is one of the secrets (none is empty),
// comparing in constant time.
func admitted(header string, secrets []string) bool {
	ok := 0
	for _, s := range secrets {
		if s != "" {
			ok |= subtle.ConstantTimeCompare([]byte(header), []byte(s))
		}
	}
	return ok == 1
}

// viewerAddress is the last but one address of an X-Forwarded-For list,
// or "" when there is none that parses.
func viewerAddress(xff string) string {
	parts := strings.Split(xff, ",")
	if len(parts) < 2 {
		return ""
	}
	ip := net.ParseIP(strings.TrimSpace(parts[len(parts)-2]))
	if ip == nil {
		return ""
	}
	return ip.String()
}
