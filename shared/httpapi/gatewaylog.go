package httpapi

// GatewayAccessLogFormat is the HTTP API's access log line, which infra
// sets on the default stage and local/bench cost renders to price its
// bytes: one JSON object per request with what an operator needs to
// follow it: API Gateway's request
// id, the Lambda invocation's (integrationRequestId, which is the
// function log's requestId and the X-Ray trace's), the route, status and
// latencies, the integration's and the authorizer's error, and the client.
// Values are API Gateway's $context variables.
var GatewayAccessLogFormat = map[string]string{
	"requestId":            "$context.requestId",
	"integrationRequestId": "$context.integration.requestId",
	"requestTime":          "$context.requestTimeEpoch",
	"sourceIp":             "$context.identity.sourceIp",
	"userAgent":            "$context.identity.userAgent",
	"httpMethod":           "$context.httpMethod",
	"path":                 "$context.path",
	"routeKey":             "$context.routeKey",
	"protocol":             "$context.protocol",
	"status":               "$context.status",
	"responseLength":       "$context.responseLength",
	"responseLatency":      "$context.responseLatency",
	"integrationStatus":    "$context.integrationStatus",
	"integrationLatency":   "$context.integrationLatency",
	"integrationError":     "$context.integrationErrorMessage",
	"authorizerError":      "$context.authorizer.error",
	"errorMessage":         "$context.error.message",
}
