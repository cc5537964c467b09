package httpapi

import "strconv"

// The access log line carries the per-route metrics: CloudWatch Logs
// metric filters on each function's log group (AccessMetricFilters, which
// infra creates) turn the line's durationMs into a metric by route and
// status class, and by group and status class, so per-route latency,
// error rates and the per-function 5xx alarm exist without a
// PutMetricData call. The line itself declares nothing: an Embedded
// Metric Format "_aws" member would make the same metrics but cost about
// 205 bytes on every line, more than a third of it, ingested at the standard price
// (docs/decisions.md, "Metrics come from filters, not from every line").
const (
	// MetricDuration is the metric, named after the field that carries
	// it; MetricDynamoCalls is a field only (accessMetrics).
	MetricDuration    = "durationMs"
	MetricDynamoCalls = "dynamoCalls"
	// DimRoute, DimStatusClass and DimGroup are the dimensions: per route
	// and status class ("GET /v1/books/{id}", "2xx"), and per group (the
	// function) and status class, which the per-function 5xx alarm reads.
	DimRoute       = "route"
	DimStatusClass = "statusClass"
	DimGroup       = "group"
	// UnmatchedRoute is the route of a request no route matched, as API
	// Gateway names the route that catches them.
	UnmatchedRoute = "$default"
	// AccessLineMessage is the msg of the access line, which the metric
	// filters select by: no other line a function logs has it.
	AccessLineMessage = "request"
)

// accessDimensions are the dimension sets of the metrics, one metric
// filter each (a filter makes one metric). Each combination of a set's
// values is a custom metric of its own, billed by the month. dynamoCalls
// stays a field of the line (Logs Insights reads it) but is no metric:
// nothing alarms on it or charts it, and as one it doubled the custom
// metrics.
var accessDimensions = [][]string{{DimRoute, DimStatusClass}, {DimGroup, DimStatusClass}}

// MetricFilter is one CloudWatch Logs metric filter on a function's log
// group: the lines Pattern selects each publish Value (a field of the
// line) as one sample of Metric, in Unit, with the dimensions named after
// the fields whose values they take.
type MetricFilter struct {
	Pattern, Metric, Value, Unit string
	Dimensions                   []string
}

// AccessMetricFilters are the metric filters that make the access line's
// metrics (infra puts them on every HTTP function's log group; the
// namespace is the deployment's).
func AccessMetricFilters() []MetricFilter {
	out := make([]MetricFilter, 0, len(accessDimensions))
	for _, set := range accessDimensions {
		out = append(out, MetricFilter{
			Pattern: `{ $.msg = "` + AccessLineMessage + `" }`,
			Metric:  MetricDuration, Value: "$." + MetricDuration, Unit: "Milliseconds",
			Dimensions: append([]string(nil), set...),
		})
	}
	return out
}

// StatusClass is "2xx" for 200-299 and so on.
func StatusClass(status int) string {
	return strconv.Itoa(status/100) + "xx"
}
