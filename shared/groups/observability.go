package groups

import (
	"github.com/bookplatform/backend/shared/httpapi"
	"github.com/bookplatform/backend/shared/tracing"
)

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
	// TraceSampleRate and TraceSlowMS are the traced functions' sampling
	// (TRACE_SAMPLE_RATE, TRACE_SLOW_MS; shared/tracing): the share of
	// requests kept although they neither failed nor were slow, and from
	// how many milliseconds a request is slow. Failed requests are always
	// kept. Lambda's own tracing is off.
	TraceSampleRate float64
	TraceSlowMS     int
	// AccessLogClass is the log class of the API's access log group:
	// "STANDARD", or "INFREQUENT_ACCESS", half the ingestion price,
	// without the features nothing here uses on that group (metric and
	// subscription filters, Live Tail); Logs Insights reads both.
	AccessLogClass string
}{
	LogFormat:       "JSON",
	SystemLogLevel:  "WARN",
	TraceSampleRate: tracing.DefaultSampleRate,
	TraceSlowMS:     tracing.DefaultSlowMS,
	AccessLogClass:  "INFREQUENT_ACCESS",
}

// Traced reports whether the function keeps and sends its own traces:
// every function the app starts (shared/app: the HTTP groups, the
// workers, the relay, the jobs), not the authorizer nor the key rotation,
// which link no tracing (each verifies or rotates a key and calls
// nothing a trace would show).
func (f Function) Traced() bool { return !f.Authorizer && !f.KeyRotation }

// AuthorizerInvoked reports whether API Gateway invokes the Lambda
// authorizer before the function of route r: on the back office's routes
// alone, the Bearer routes that need the operator role (/v1/admin). Every
// function verifies the token it is sent and reads the caller's record
// (a forgery gets the spec's 401 "Invalid or expired token" there rather
// than the authorizer's 403 at the edge), so on any other route the
// authorizer's invocation bought nothing but a second Lambda request. On
// the operator routes, the most privileged surface and a tiny share of
// the traffic, it stays as a first line of defence: a forged token never
// reaches the function. The stack attaches it by this rule (which needs
// at least one such route: the authorizer exists only once a route binds
// it) and the cost benchmark counts the invocations by it.
func AuthorizerInvoked(r httpapi.Route) bool {
	return r.Auth == httpapi.AuthBearer && r.Role.Need == httpapi.NeedOperator
}
