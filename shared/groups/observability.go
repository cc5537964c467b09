package groups

import "github.com/bookplatform/backend/shared/httpapi"

// How the deployed functions log and trace. The stack applies these
// (infra) and the cost benchmark (local/bench cost) prices what they let
// through, so the figure it prints is the deployment's.
var Observability = struct {
	// LogFormat is Lambda's log format of every function: "Text", or
	// "JSON", which advanced logging needs to filter the system log.
	LogFormat string
	// SystemLogLevel is the level of the Lambda platform's own lines
	// (START, END, REPORT are INFO) with the JSON format; "" with Text,
	// where every platform line is written.
	SystemLogLevel string
	// TraceAuthorizer is whether the authorizer function is traced
	// (X-Ray active tracing) like every other function.
	TraceAuthorizer bool
	// AccessLogClass is the log class of the API's access log group:
	// "STANDARD", or "INFREQUENT_ACCESS", half the ingestion price,
	// without the features nothing here uses on that group (metric and
	// subscription filters, EMF, Live Tail); Logs Insights reads both.
	AccessLogClass string
}{
	LogFormat:      "JSON",
	SystemLogLevel: "WARN",
	AccessLogClass: "INFREQUENT_ACCESS",
}

// AuthorizerInvoked reports whether API Gateway invokes the Lambda
// authorizer before the function of a route of auth: on the Bearer routes
// alone. An Optional route serves callers without a token, and its
// function verifies a token it is sent exactly as a Bearer route's does
// (a forgery gets the spec's 401 "Invalid or expired token" there rather
// than the authorizer's 403 at the edge), so the authorizer's invocation
// bought it nothing but a second Lambda request. The stack attaches it by
// this rule and the cost benchmark counts the invocations by it.
func AuthorizerInvoked(auth httpapi.Auth) bool { return auth == httpapi.AuthBearer }
