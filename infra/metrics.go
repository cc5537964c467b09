package main

import (
	"fmt"

	"github.com/aws/aws-cdk-go/awscdk/v2/awscloudwatch"
	"github.com/aws/aws-cdk-go/awscdk/v2/awslogs"
	"github.com/aws/constructs-go/constructs/v10"
	"github.com/aws/jsii-runtime-go"
	"github.com/bookplatform/backend/shared/httpapi"
)

// newAccessMetrics puts the access line's metric filters
// (httpapi.AccessMetricFilters) on the log group of every function that
// serves routes (the ones whose router logs access lines),
// in the deployment's namespace: each access line is one sample of
// durationMs per route and status class and per group and status class,
// which the 5xx alarms (groupRequests) and the dashboard read. A filter
// costs nothing; the metrics it makes are the custom metrics the cost
// benchmark counts. They live beside the alarms, in the Operations
// stack, and like them are left out of the SAM template.
func newAccessMetrics(scope constructs.Construct, o observability) {
	for _, f := range o.functions {
		if len(f.Routes) == 0 {
			continue
		}
		logs := o.lambdas[f.Name].LogGroup()
		for i, mf := range httpapi.AccessMetricFilters() {
			dims := map[string]*string{}
			for _, d := range mf.Dimensions {
				dims[d] = jsii.String("$." + d)
			}
			awslogs.NewMetricFilter(scope, jsii.String(fmt.Sprintf("%sAccessMetrics%d", f.Name, i+1)), &awslogs.MetricFilterProps{
				LogGroup:        logs,
				FilterPattern:   awslogs.FilterPattern_Literal(jsii.String(mf.Pattern)),
				MetricNamespace: jsii.String(o.namespace),
				MetricName:      jsii.String(mf.Metric),
				MetricValue:     jsii.String(mf.Value),
				Unit:            cloudwatchUnit(mf.Unit),
				Dimensions:      &dims,
			})
		}
	}
}

// cloudwatchUnit is CDK's member for a CloudWatch unit name.
func cloudwatchUnit(name string) awscloudwatch.Unit {
	switch name {
	case "Milliseconds":
		return awscloudwatch.Unit_MILLISECONDS
	}
	panic("infra: no CloudWatch unit " + name + " known to cloudwatchUnit")
}
