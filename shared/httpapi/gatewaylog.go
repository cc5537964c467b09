package httpapi

// GatewayAccessLogFormat is the HTTP API's access log line, which infra
// sets on the default stage and local/bench cost renders to price its
// bytes: one JSON object per request with what API Gateway alone knows:
// its request id, the Lambda invocation's (integrationRequestId, which is
// the function log's requestId and the X-Ray trace's), the route, status
// and latencies, the integration's error, and the client, and the path:
// a request refused before any function runs (the authorizer's 403, a
// throttle's 429) has no other record of it. What the function's own
// line has is left out otherwise (the method, beside the route key; the
// time, which every log event carries), and so are the protocol, the
// response length, the integration's status (for a Lambda proxy, the
// status of Lambda's Invoke: 200 but when Lambda itself refused, which
// the status and the integration's error already say) and the
// authorizer's error (the authorizer runs on the back office's routes
// alone and logs each refusal with the API's request id). Values are API
// Gateway's $context variables.
var GatewayAccessLogFormat = map[string]string{
	"requestId":            "$context.requestId",
	"integrationRequestId": "$context.integration.requestId",
	"sourceIp":             "$context.identity.sourceIp",
	"userAgent":            "$context.identity.userAgent",
	"routeKey":             "$context.routeKey",
	"path":                 "$context.path",
	"status":               "$context.status",
	"responseLatency":      "$context.responseLatency",
	"integrationLatency":   "$context.integrationLatency",
	"integrationError":     "$context.integrationErrorMessage",
	"errorMessage":         "$context.error.message",
}
