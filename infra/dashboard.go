package main

import (
	"fmt"

	"github.com/aws/aws-cdk-go/awscdk/v2"
	"github.com/aws/aws-cdk-go/awscdk/v2/awscloudwatch"
	"github.com/aws/aws-cdk-go/awscdk/v2/awsdynamodb"
	"github.com/aws/constructs-go/constructs/v10"
	"github.com/aws/jsii-runtime-go"
	"github.com/bookplatform/backend/shared/httpapi"
	"github.com/bookplatform/backend/shared/queues"
)

// newDashboard is the one dashboard of the stack: every alarm's state at
// the top, then the API's traffic, errors and latency; per-route p99 and
// 5xx from the access log's metrics; each function's errors, throttles
// and p99; the dead-letter queues; the table's throttles and errors.
func newDashboard(scope constructs.Construct, o observability, a *alarms) awscloudwatch.Dashboard {
	five := awscdk.Duration_Minutes(jsii.Number(5))
	graph := func(title string, left []awscloudwatch.IMetric, right ...awscloudwatch.IMetric) awscloudwatch.IWidget {
		return awscloudwatch.NewGraphWidget(&awscloudwatch.GraphWidgetProps{
			Title: jsii.String(title), Left: &left, Right: &right, Width: jsii.Number(12), Height: jsii.Number(6),
		})
	}
	sum := func(m awscloudwatch.Metric, label string) awscloudwatch.IMetric {
		return m.With(&awscloudwatch.MetricOptions{Statistic: jsii.String("Sum"), Period: five, Label: jsii.String(label)})
	}
	search := func(expr, stat, label string) awscloudwatch.IMetric {
		return awscloudwatch.NewMathExpression(&awscloudwatch.MathExpressionProps{
			Expression: jsii.String(fmt.Sprintf("SEARCH('{%s,%s} MetricName=\"%s\" %s', '%s', 300)", o.namespace, expr, httpapi.MetricDuration, label, stat)),
			Label:      jsii.String(""),
			Period:     five,
		})
	}

	d := awscloudwatch.NewDashboard(scope, jsii.String("Dashboard"), &awscloudwatch.DashboardProps{
		DefaultInterval: awscdk.Duration_Hours(jsii.Number(3)),
	})
	d.AddWidgets(awscloudwatch.NewAlarmStatusWidget(&awscloudwatch.AlarmStatusWidgetProps{
		Title: jsii.String("Alarms"), Alarms: ptr(a.all()), Width: jsii.Number(24), Height: jsii.Number(6),
		SortBy: awscloudwatch.AlarmStatusWidgetSortBy_STATE_UPDATED_TIMESTAMP,
	}))
	d.AddWidgets(
		graph("API requests and errors", []awscloudwatch.IMetric{
			sum(o.api.MetricCount(nil), "requests"),
		}, sum(o.api.MetricClientError(nil), "4xx"), sum(o.api.MetricServerError(nil), "5xx")),
		graph("API latency (ms)", []awscloudwatch.IMetric{
			o.api.MetricLatency(&awscloudwatch.MetricOptions{Statistic: jsii.String("p50"), Period: five, Label: jsii.String("p50")}),
			o.api.MetricLatency(&awscloudwatch.MetricOptions{Statistic: jsii.String("p99"), Period: five, Label: jsii.String("p99")}),
			o.api.MetricIntegrationLatency(&awscloudwatch.MetricOptions{Statistic: jsii.String("p99"), Period: five, Label: jsii.String("integration p99")}),
		}),
	)
	d.AddWidgets(
		graph("p99 duration per route (ms, access log)", []awscloudwatch.IMetric{
			search(httpapi.DimRoute+","+httpapi.DimStatusClass, "p99", httpapi.DimStatusClass+"=\"2xx\""),
		}),
		graph("5xx answers per route (access log)", []awscloudwatch.IMetric{
			search(httpapi.DimRoute+","+httpapi.DimStatusClass, "SampleCount", httpapi.DimStatusClass+"=\"5xx\""),
		}),
	)
	var errs, p99s []awscloudwatch.IMetric
	for _, f := range o.functions {
		alias := o.aliases[f.Name]
		errs = append(errs,
			alias.MetricErrors(&awscloudwatch.MetricOptions{Statistic: jsii.String("Sum"), Period: five, Label: jsii.String(f.Name + " errors")}),
			alias.MetricThrottles(&awscloudwatch.MetricOptions{Statistic: jsii.String("Sum"), Period: five, Label: jsii.String(f.Name + " throttles")}))
		p99s = append(p99s, alias.MetricDuration(&awscloudwatch.MetricOptions{Statistic: jsii.String("p99"), Period: five, Label: jsii.String(f.Name)}))
	}
	d.AddWidgets(graph("Function errors and throttles", errs), graph("Function p99 duration (ms)", p99s))
	var dlqs []awscloudwatch.IMetric
	for _, n := range queues.All {
		dlqs = append(dlqs, o.queues[n].DeadLetterQueue().Queue.MetricApproximateNumberOfMessagesVisible(&awscloudwatch.MetricOptions{
			Statistic: jsii.String("Maximum"), Period: five, Label: jsii.String(string(n.DLQ())),
		}))
	}
	if o.relayDLQ != nil {
		dlqs = append(dlqs, o.relayDLQ.MetricApproximateNumberOfMessagesVisible(&awscloudwatch.MetricOptions{
			Statistic: jsii.String("Maximum"), Period: five, Label: jsii.String("relay-dlq"),
		}))
	}
	ops := dynamoOperations(o.functions)
	d.AddWidgets(graph("Dead-letter queues (messages)", dlqs))
	// Two graphs: each per-operation sum names its parts after the
	// operations, and one graph may not hold two metrics of one name.
	d.AddWidgets(
		graph("DynamoDB throttled requests", []awscloudwatch.IMetric{
			o.table.MetricThrottledRequestsForOperations(&awsdynamodb.OperationsMetricOptions{Operations: &ops, Period: five, Label: jsii.String("throttled requests")}),
		}),
		graph("DynamoDB system errors", []awscloudwatch.IMetric{
			o.table.MetricSystemErrorsForOperations(&awsdynamodb.SystemErrorsForOperationsMetricOptions{Operations: &ops, Period: five, Label: jsii.String("system errors")}),
		}),
	)
	return d
}

func ptr[T any](v []T) *[]T { return &v }
