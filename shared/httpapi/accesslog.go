package httpapi

import (
	"log/slog"
	"strconv"
	"time"
)

// The access log line is a CloudWatch Embedded Metric Format document
// (https://docs.aws.amazon.com/AmazonCloudWatch/latest/monitoring/CloudWatch_Embedded_Metric_Format_Specification.html):
// beside the fields people read, its "_aws" member tells CloudWatch Logs
// to turn two of them into metrics, so per-route latency, error rates and
// DynamoDB calls exist without a PutMetricData call. The member comes
// last, so the line still reads from the left; locally it is just a
// field.
const (
	// MetricDuration is the metric, named after the field that carries
	// it; MetricDynamoCalls is a field only (emfMetrics).
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
	// DefaultMetricsNamespace is the namespace of a router given none.
	DefaultMetricsNamespace = "BookPlatform"
)

// emfDimensions are the dimension sets of every line, and emfMetrics
// its metrics with their units. Each combination of a set's values is a
// custom metric of its own, billed by the month.
var (
	emfDimensions = [][]string{{DimRoute, DimStatusClass}, {DimGroup, DimStatusClass}}
	// dynamoCalls stays a field of the line (Logs Insights reads it)
	// but is no metric: nothing alarms on it or charts it, and as one it
	// doubled the custom metrics, each billed by the month.
	emfMetrics = []map[string]string{
		{"Name": MetricDuration, "Unit": "Milliseconds"},
	}
)

// EMFShape names the metrics and the dimension sets every access line
// declares, for the cost benchmark to count the custom metrics they make.
func EMFShape() (metrics []string, dimensions [][]string) {
	for _, m := range emfMetrics {
		metrics = append(metrics, m["Name"])
	}
	return metrics, emfDimensions
}

// StatusClass is "2xx" for 200-299 and so on.
func StatusClass(status int) string {
	return strconv.Itoa(status/100) + "xx"
}

// emfMetadata is the "_aws" member of a line logged at t.
func emfMetadata(namespace string, t time.Time) slog.Attr {
	return slog.Any("_aws", map[string]any{
		"Timestamp": t.UnixMilli(),
		"CloudWatchMetrics": []any{map[string]any{
			"Namespace":  namespace,
			"Dimensions": emfDimensions,
			"Metrics":    emfMetrics,
		}},
	})
}
