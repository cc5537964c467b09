package main

import (
	"fmt"
	"testing"

	"github.com/bookplatform/backend/shared/httpapi"
)

// Every HTTP function's log group carries the access line's metric
// filters (httpapi.AccessMetricFilters) in the deployment's namespace,
// and no other function's does; the 5xx alarm reads a metric one of them
// makes. Without the filters the access line, which declares no metric
// itself, would leave the alarms and the dashboard without data.
func TestAccessMetrics_Filters(t *testing.T) {
	ops := operationsOf(t, stack).Template
	byGroup := map[string][]obj{} // log group logical id → its filters
	for _, f := range resources(ops, "AWS::Logs::MetricFilter") {
		ref, ok := props(f)["LogGroupName"].(obj)["Ref"].(string)
		if !ok {
			t.Fatalf("a metric filter names no log group of the root: %v", props(f)["LogGroupName"])
		}
		p := obj{}
		for k, v := range props(f) {
			if k != "LogGroupName" {
				p[k] = v
			}
		}
		byGroup[ref] = append(byGroup[ref], p)
	}

	want := func(mf httpapi.MetricFilter) string {
		var dims []any
		for _, d := range mf.Dimensions {
			dims = append(dims, obj{"Key": d, "Value": "$." + d})
		}
		return fmt.Sprint(obj{"FilterPattern": mf.Pattern, "MetricTransformations": []any{obj{
			"MetricNamespace": "BookPlatform/TestBackend", "MetricName": mf.Metric, "MetricValue": mf.Value,
			"Unit": mf.Unit, "Dimensions": dims,
		}}})
	}
	matched := 0
	for _, f := range functions {
		fn := resources(template, "AWS::Lambda::Function")[functionID(t, template, f.Name)]
		logs := props(fn)["LoggingConfig"].(obj)["LogGroup"].(obj)["Ref"].(string)
		got := byGroup[logs]
		matched += len(got)
		// Keyed on what the function serves, not on isHTTP (which
		// newAccessMetrics reads): a function with routes logs access
		// lines, whatever else it is.
		if len(f.Routes) == 0 {
			if len(got) > 0 {
				t.Errorf("%s logs no access line, yet its log group has %d metric filters", f.Name, len(got))
			}
			continue
		}
		filters := httpapi.AccessMetricFilters()
		if len(got) != len(filters) {
			t.Errorf("%s: %d metric filters, want %d", f.Name, len(got), len(filters))
			continue
		}
		for _, mf := range filters {
			found := false
			for _, g := range got {
				found = found || fmt.Sprint(g) == want(mf)
			}
			if !found {
				t.Errorf("%s: no filter %s among %v", f.Name, want(mf), got)
			}
		}
	}
	if total := len(resources(ops, "AWS::Logs::MetricFilter")); matched != total {
		t.Errorf("%d metric filters, %d of them on a function's log group", total, matched)
	}

	// AND the 5xx alarm reads durationMs by group and status class, the
	// metric the second filter makes.
	for _, a := range resources(ops, "AWS::CloudWatch::Alarm") {
		p := props(a)
		if p["MetricName"] != httpapi.MetricDuration {
			continue
		}
		if p["Namespace"] != "BookPlatform/TestBackend" {
			t.Errorf("alarm on %v in namespace %v, not the filters'", p["MetricName"], p["Namespace"])
		}
		var keys []any
		for _, d := range p["Dimensions"].([]any) {
			keys = append(keys, d.(obj)["Name"])
		}
		if fmt.Sprint(keys) != fmt.Sprint([]any{httpapi.DimGroup, httpapi.DimStatusClass}) && fmt.Sprint(keys) != fmt.Sprint([]any{httpapi.DimStatusClass, httpapi.DimGroup}) {
			t.Errorf("an access-metric alarm with dimensions %v, which no filter makes", keys)
		}
	}
}
