package httpapi

import (
	"net/http"
	"strings"
)

// ExposedHeaders are the response headers browsers may read. The CDK stack
// repeats them in API Gateway's CORS configuration, which replaces ours.
var ExposedHeaders = []string{
	"X-Request-Id", "X-RateLimit-Limit", "X-RateLimit-Remaining", "X-RateLimit-Reset", "Retry-After",
	"X-Monthly-Limit", "X-Monthly-Remaining", "X-Monthly-Reset", "Idempotent-Replayed",
	"X-Next-Cursor", // the point-of-sale sales list's next page (a bare array)
}

// AllowedHeaders are the request headers browsers may send.
var AllowedHeaders = []string{"Authorization", "Content-Type", "Idempotency-Key"}

func setCORS(w http.ResponseWriter) {
	h := w.Header()
	h.Set("Access-Control-Allow-Origin", "*")
	h.Set("Access-Control-Expose-Headers", strings.Join(ExposedHeaders, ", "))
}

func writeCORSPreflight(w *statusWriter) {
	setCORS(w)
	h := w.Header()
	h.Set("Access-Control-Allow-Methods", "GET, POST, PUT, DELETE, OPTIONS")
	h.Set("Access-Control-Allow-Headers", strings.Join(AllowedHeaders, ", "))
	h.Set("Access-Control-Max-Age", "600")
	w.WriteHeader(http.StatusNoContent)
}
