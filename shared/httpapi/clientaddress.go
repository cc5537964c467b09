package httpapi

import "net/http"

// ClientAddress is the caller's address as the router counts it in the
// anonymous rate limits (clientIP): API Gateway's source IP in Lambda,
// the socket peer locally, the viewer's behind the CloudFront front door.
// A handler that limits by address (sign-in attempts) uses it, so no
// handler reads an address a client could set.
func ClientAddress(r *http.Request) string { return clientIP(r) }
