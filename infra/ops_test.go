package main

import (
	"encoding/json"
	"fmt"
	"reflect"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/aws/aws-cdk-go/awscdk/v2"
	"github.com/aws/aws-cdk-go/awscdk/v2/assertions"
	"github.com/aws/jsii-runtime-go"
	"github.com/bookplatform/backend/shared/app"
	"github.com/bookplatform/backend/shared/config"
	"github.com/bookplatform/backend/shared/groups"
	"github.com/bookplatform/backend/shared/queues"
	"github.com/bookplatform/backend/shared/tracing"
)

// resources returns the resources of a type in tmpl, by logical ID.
func resources(tmpl assertions.Template, typ string) map[string]obj {
	out := map[string]obj{}
	for id, r := range *tmpl.FindResources(jsii.String(typ), nil) {
		out[id] = *r
	}
	return out
}

func props(r obj) obj { return r["Properties"].(obj) }

// nestedOps is the Operations nested stack of a stack as the tests read
// it (operationsOf).
type nestedOps struct {
	// Template is the nested template with each parameter replaced by
	// the value the root passes it: its alarms name the root's
	// functions, queues, API, table and topic as the root's own
	// resources would ({"Ref": fnID}, {"Fn::GetAtt": [dlqID,
	// "QueueName"]}).
	Template assertions.Template
	// ID is the logical ID of the nested stack's resource in the root.
	ID  string
	raw map[string]any
}

// resolve replaces, in a value of the root template, each output of the
// nested stack it reads ({"Fn::GetAtt": [ID, "Outputs.X"]}) by the
// value the nested stack gives it (an alarm's {"Ref": alarmID}).
func (o nestedOps) resolve(v any) any {
	return walk(v, func(m obj) (any, bool) {
		att, ok := m["Fn::GetAtt"].([]any)
		if !ok || len(att) != 2 || att[0] != o.ID {
			return nil, false
		}
		name, ok := strings.CutPrefix(fmt.Sprint(att[1]), "Outputs.")
		out, found := o.raw["Outputs"].(obj)[name].(obj)
		if !ok || !found {
			return nil, false
		}
		return out["Value"], true
	})
}

// walk copies v, replacing each map for which replace says so.
func walk(v any, replace func(obj) (any, bool)) any {
	switch v := v.(type) {
	case obj:
		if r, ok := replace(v); ok {
			return r
		}
		out := obj{}
		for k, x := range v {
			out[k] = walk(x, replace)
		}
		return out
	case []any:
		out := make([]any, len(v))
		for i, x := range v {
			out[i] = walk(x, replace)
		}
		return out
	}
	return v
}

var operationsCache = map[string]nestedOps{}

// operationsOf returns the Operations nested stack of s (newOperationsStack).
func operationsOf(t *testing.T, s awscdk.Stack) nestedOps {
	t.Helper()
	if o, ok := operationsCache[*s.StackName()]; ok {
		return o
	}
	templates := stackTemplates(t, s)
	root, nested := templates[*s.Node().Path()], templates[*s.Node().Path()+"/"+operationsID]
	if nested == nil {
		t.Fatalf("%s has no nested stack %s", *s.StackName(), operationsID)
	}
	o := nestedOps{raw: nested}
	var params obj
	for id, r := range resourcesOf(root, "AWS::CloudFormation::Stack") {
		if strings.HasPrefix(id, operationsID+"NestedStack") {
			o.ID = id
			params, _ = props(r)["Parameters"].(obj)
		}
	}
	if o.ID == "" {
		t.Fatalf("%s: no resource of the nested stack %s", *s.StackName(), operationsID)
	}
	resolved := walk(nested, func(m obj) (any, bool) {
		ref, ok := m["Ref"].(string)
		if v, passed := params[ref]; ok && len(m) == 1 && passed {
			return v, true
		}
		return nil, false
	}).(obj)
	o.Template = assertions.Template_FromJSON(&resolved, nil)
	operationsCache[*s.StackName()] = o
	return o
}

// statementsOf returns the statements of the role policies of the
// function fnID in tmpl.
func statementsOf(tmpl assertions.Template, fnID string) []obj {
	fn := resources(tmpl, "AWS::Lambda::Function")[fnID]
	roleID := fmt.Sprint(props(fn)["Role"].(obj)["Fn::GetAtt"].([]any)[0])
	var out []obj
	for _, p := range resources(tmpl, "AWS::IAM::Policy") {
		if slices.ContainsFunc(props(p)["Roles"].([]any), func(r any) bool { return fmt.Sprint(r.(obj)["Ref"]) == roleID }) {
			out = append(out, statements(p)...)
		}
	}
	return out
}

// functionID returns the logical ID of the named function in tmpl.
func functionID(t *testing.T, tmpl assertions.Template, name string) string {
	t.Helper()
	for id := range *tmpl.FindResources(jsii.String("AWS::Lambda::Function"), obj{"Properties": obj{"Description": FunctionDescription(name)}}) {
		return id
	}
	t.Fatalf("no function %s", name)
	return ""
}

func TestAccessLogs_API(t *testing.T) {
	// WHEN the API's default stage is read
	stages := resources(template, "AWS::ApiGatewayV2::Stage")
	if len(stages) != 1 {
		t.Fatalf("%d stages", len(stages))
	}
	var settings obj
	for _, s := range stages {
		settings, _ = props(s)["AccessLogSettings"].(obj)
	}
	// THEN it writes a JSON access log to the ApiAccessLogs group
	if settings == nil {
		t.Fatal("the default stage has no access log")
	}
	logs := logicalID(t, "ApiAccessLogs")
	if got := fmt.Sprint(settings["DestinationArn"]); got != fmt.Sprint(obj{"Fn::GetAtt": []any{logs, "Arn"}}) {
		t.Errorf("access log destination = %s, want %s's ARN", got, logs)
	}
	var format map[string]string
	if err := json.Unmarshal([]byte(settings["Format"].(string)), &format); err != nil {
		t.Fatalf("the access log format is not JSON: %v", err)
	}
	// AND each line names the request, the route, the outcome, the
	// latency, the integration's error and the client
	for field, variable := range map[string]string{
		"requestId": "$context.requestId", "integrationRequestId": "$context.integration.requestId",
		"routeKey": "$context.routeKey", "status": "$context.status", "responseLatency": "$context.responseLatency",
		"integrationLatency": "$context.integrationLatency", "integrationError": "$context.integrationErrorMessage",
		"sourceIp": "$context.identity.sourceIp",
		// a request refused before any function runs (the authorizer's
		// 403, a throttle's 429) has no other record of its path
		"path": "$context.path",
	} {
		if format[field] != variable {
			t.Errorf("access log field %s = %q, want %s", field, format[field], variable)
		}
	}
	// AND nothing the function's line has, nor what another field or
	// the authorizer's own line says (a request's bytes are billed)
	for _, field := range []string{"httpMethod", "requestTime", "integrationStatus", "authorizerError"} {
		if _, ok := format[field]; ok {
			t.Errorf("access log field %s repeats the function's line", field)
		}
	}
	// AND the group is of the class at half the ingestion price
	must(t, "access log class", func() {
		template.HasResourceProperties(jsii.String("AWS::Logs::LogGroup"), obj{"LogGroupClass": "INFREQUENT_ACCESS"})
	})
}

// Every log group of both stacks keeps its events for the configured
// period: 30 days by default, 90 in the hardened stack.
func TestAccessLogs_Retention(t *testing.T) {
	for tmpl, days := range map[*assertions.Template]float64{&template: 30, &hardened: 90} {
		groups := resources(*tmpl, "AWS::Logs::LogGroup")
		if len(groups) < len(functions)+1 {
			t.Errorf("%d log groups, want one per function and the API's", len(groups))
		}
		for id, g := range groups {
			if got, _ := props(g)["RetentionInDays"].(float64); got != days {
				t.Errorf("log group %s keeps %v days, want %v", id, props(g)["RetentionInDays"], days)
			}
		}
		// AND the access-log bucket lets its objects go after as many days
		for id, b := range resources(*tmpl, "AWS::S3::Bucket") {
			if !strings.HasPrefix(id, "AccessLogs") {
				continue
			}
			rules := fmt.Sprint(props(b)["LifecycleConfiguration"])
			if !strings.Contains(rules, fmt.Sprintf("ExpirationInDays:%v", days)) {
				t.Errorf("access-log bucket lifecycle = %s, want expiry after %v days", rules, days)
			}
		}
	}
}

// The media bucket's server access logs and every CloudFront
// distribution's standard logs go to the access-log bucket, under their
// own prefixes; the log bucket is private, encrypted, TLS only.
func TestAccessLogs_S3AndCloudFront(t *testing.T) {
	logs := logicalID(t, "AccessLogs")
	media := resources(template, "AWS::S3::Bucket")[logicalID(t, "MediaBucket")]
	want := obj{"DestinationBucketName": obj{"Ref": logs}, "LogFilePrefix": accessLogPrefixS3}
	if got := props(media)["LoggingConfiguration"]; fmt.Sprint(got) != fmt.Sprint(want) {
		t.Errorf("media bucket logging = %v, want %v", got, want)
	}
	must(t, "log bucket", func() {
		template.HasResourceProperties(jsii.String("AWS::S3::Bucket"), obj{
			"BucketEncryption": obj{"ServerSideEncryptionConfiguration": arr(obj{"ServerSideEncryptionByDefault": obj{"SSEAlgorithm": "AES256"}})},
			"PublicAccessBlockConfiguration": obj{
				"BlockPublicAcls": true, "BlockPublicPolicy": true, "IgnorePublicAcls": true, "RestrictPublicBuckets": true,
			},
			"OwnershipControls": obj{"Rules": arr(obj{"ObjectOwnership": "BucketOwnerPreferred"})},
		})
	})
	for _, tmpl := range []assertions.Template{template, hardened} {
		for id, d := range resources(tmpl, "AWS::CloudFront::Distribution") {
			l, _ := props(d)["DistributionConfig"].(obj)["Logging"].(obj)
			if l == nil || !strings.Contains(fmt.Sprint(l["Bucket"]), "AccessLogs") || !strings.HasPrefix(fmt.Sprint(l["Prefix"]), accessLogPrefixCloudFront) {
				t.Errorf("distribution %s logs to %v", id, l)
			}
		}
	}
}

// With its own domain and certificate, each distribution refuses viewers
// below TLS 1.2 (SNI, TLSv1.2_2021); on its cloudfront.net name it
// cannot (nag.go suppresses CFR4 there, and only there).
func TestTLS(t *testing.T) {
	checked := 0
	for id, d := range resources(hardened, "AWS::CloudFront::Distribution") {
		if props(d)["DistributionConfig"].(obj)["ConnectionMode"] == "tenant-only" {
			continue // each store domain is a tenant with its own certificate
		}
		checked++
		vc, _ := props(d)["DistributionConfig"].(obj)["ViewerCertificate"].(obj)
		if vc["MinimumProtocolVersion"] != "TLSv1.2_2021" || vc["SslSupportMethod"] != "sni-only" || vc["AcmCertificateArn"] == nil {
			t.Errorf("hardened distribution %s: viewer certificate %v, want an ACM certificate, SNI, TLSv1.2_2021", id, vc)
		}
		aliases := fmt.Sprint(props(d)["DistributionConfig"].(obj)["Aliases"])
		if !strings.Contains(aliases, hardenedOps.MediaDomainName) && !strings.Contains(aliases, hardenedOps.APIDomainName) {
			t.Errorf("hardened distribution %s serves %s", id, aliases)
		}
	}
	if checked != 2 {
		t.Errorf("%d hardened distributions with a domain of their own, want 2 (media, the API's front door)", checked)
	}
	for id, d := range resources(template, "AWS::CloudFront::Distribution") {
		if vc := props(d)["DistributionConfig"].(obj)["ViewerCertificate"]; vc != nil {
			t.Errorf("default distribution %s: viewer certificate %v", id, vc)
		}
	}
	must(t, "media URL on the media domain", func() {
		hardened.HasOutput(jsii.String(OutputMediaBaseURL), obj{"Value": "https://" + hardenedOps.MediaDomainName})
	})
}

// wantAlarms is how many alarms each function gets: errors and throttles
// for all; 5xx answers for an HTTP function; p99 for a function a request
// waits for.
func wantAlarms(f groups.Function) int {
	n := 2
	if isHTTP(f) {
		n += 2
	}
	if f.Authorizer || f.Relay {
		n++ // the authorizer's p99, the relay's iterator age
	}
	return n
}

// alarmsOf returns the alarms of ops (the Operations nested stack of
// root, operationsOf) whose metric is the named function's alias
// (Lambda's metrics) or its group's access-log metrics.
func alarmsOf(t *testing.T, root, ops assertions.Template, name string) map[string]obj {
	t.Helper()
	fn := functionID(t, root, name)
	out := map[string]obj{}
	for id, a := range resources(ops, "AWS::CloudWatch::Alarm") {
		p := props(a)
		dims := fmt.Sprint(p["Dimensions"])
		lambda := p["Namespace"] == "AWS/Lambda" && strings.Contains(dims, fn) && strings.Contains(dims, ":"+AliasName)
		group := strings.HasPrefix(fmt.Sprint(p["Namespace"]), "BookPlatform/") && strings.Contains(dims, "Name:group Value:"+name+"]")
		if lambda || group {
			out[id] = p
		}
	}
	return out
}

func TestAlarms_PerFunction(t *testing.T) {
	ops := operationsOf(t, stack).Template
	total := 0
	for _, f := range functions {
		got := alarmsOf(t, template, ops, f.Name)
		total += len(got)
		if len(got) != wantAlarms(f) {
			t.Errorf("%s: %d alarms, want %d", f.Name, len(got), wantAlarms(f))
		}
		var metrics []string
		for _, a := range got {
			metrics = append(metrics, fmt.Sprint(a["MetricName"], "/", a["Statistic"], a["ExtendedStatistic"]))
		}
		slices.Sort(metrics)
		want := []string{"Errors/Sum<nil>", "Throttles/Sum<nil>"}
		if isHTTP(f) {
			want = []string{"Duration/<nil>p99", "Errors/Sum<nil>", "Throttles/Sum<nil>", "durationMs/SampleCount<nil>"}
		}
		if f.Authorizer {
			want = []string{"Duration/<nil>p99", "Errors/Sum<nil>", "Throttles/Sum<nil>"}
		}
		if f.Relay {
			want = []string{"Errors/Sum<nil>", "IteratorAge/Maximum<nil>", "Throttles/Sum<nil>"}
		}
		if !slices.Equal(metrics, want) {
			t.Errorf("%s: alarm metrics %v, want %v", f.Name, metrics, want)
		}
	}
	// AND one per dead-letter queue (the relay's too), the API's 5xx
	// rate, the table's throttles and system errors: nothing else
	want := total + len(queues.All) + 1 + 1 + 2
	must(t, "alarm count", func() {
		ops.ResourceCountIs(jsii.String("AWS::CloudWatch::Alarm"), jsii.Number(want))
	})
}

func TestAlarms_QueuesAPIAndTable(t *testing.T) {
	ops := operationsOf(t, stack).Template
	// THEN each dead-letter queue has an alarm on its visible messages
	for _, n := range queues.All {
		dlq := logicalID(t, queueID(n.DLQ()))
		must(t, string(n.DLQ()), func() {
			ops.HasResourceProperties(jsii.String("AWS::CloudWatch::Alarm"), obj{
				"Namespace": "AWS/SQS", "MetricName": "ApproximateNumberOfMessagesVisible", "Statistic": "Maximum",
				"Dimensions":         arr(obj{"Name": "QueueName", "Value": obj{"Fn::GetAtt": arr(dlq, "QueueName")}}),
				"Threshold":          1,
				"ComparisonOperator": "GreaterThanOrEqualToThreshold",
			})
		})
	}
	// AND the API's 5xx rate is a metric-math alarm over 5xx and Count
	must(t, "API 5xx rate", func() {
		ops.HasResourceProperties(jsii.String("AWS::CloudWatch::Alarm"), obj{
			"Metrics": assertions.Match_ArrayWith(arr(
				assertions.Match_ObjectLike(&obj{"Expression": assertions.Match_StringLikeRegexp(jsii.String("100 \\* errors / requests"))}),
				assertions.Match_ObjectLike(&obj{"Id": "errors", "MetricStat": assertions.Match_ObjectLike(&obj{"Metric": assertions.Match_ObjectLike(&obj{"MetricName": "5xx", "Namespace": "AWS/ApiGateway"})})}),
				assertions.Match_ObjectLike(&obj{"Id": "requests", "MetricStat": assertions.Match_ObjectLike(&obj{"Metric": assertions.Match_ObjectLike(&obj{"MetricName": "Count"})})}),
			)),
			"Threshold": api5xxPercent,
		})
	})
	// AND the table's throttled requests and system errors, summed over
	// the operations the functions call
	for _, metric := range []string{"ThrottledRequests", "SystemErrors"} {
		found := 0
		for _, a := range resources(ops, "AWS::CloudWatch::Alarm") {
			m := fmt.Sprint(props(a)["Metrics"])
			if strings.Contains(m, "MetricName:"+metric) && strings.Contains(m, "Value:GetItem") && strings.Contains(m, "Value:TransactWriteItems") {
				found++
			}
		}
		if found != 1 {
			t.Errorf("%d alarms on the table's %s", found, metric)
		}
	}
}

// Every alarm sends to the one topic; the topic is encrypted with a key
// CloudWatch may use, refuses plain HTTP, and its subscription is
// configuration (none by default, the email in the hardened stack). The
// topic is the root stack's, the alarms the Operations nested stack's
// (newOperationsStack).
func TestAlarms_Topic(t *testing.T) {
	for s, tmpl := range map[awscdk.Stack]assertions.Template{stack: template, hardenedStack: hardened} {
		topics := resources(tmpl, "AWS::SNS::Topic")
		if len(topics) != 1 {
			t.Fatalf("%d topics", len(topics))
		}
		var topic string
		for id, tp := range topics {
			topic = id
			if props(tp)["KmsMasterKeyId"] == nil {
				t.Error("the alarm topic is not encrypted")
			}
		}
		alarms := resources(operationsOf(t, s).Template, "AWS::CloudWatch::Alarm")
		if len(alarms) == 0 {
			t.Errorf("%s: no alarms in the nested stack %s", *s.StackName(), operationsID)
		}
		for id, a := range alarms {
			if got := fmt.Sprint(props(a)["AlarmActions"]); got != fmt.Sprint([]any{obj{"Ref": topic}}) {
				t.Errorf("alarm %s sends to %s", id, got)
			}
		}
		must(t, "CloudWatch may use the key", func() {
			tmpl.HasResourceProperties(jsii.String("AWS::KMS::Key"), obj{
				"EnableKeyRotation": true,
				"KeyPolicy": obj{"Statement": assertions.Match_ArrayWith(arr(assertions.Match_ObjectLike(&obj{
					"Principal": obj{"Service": "cloudwatch.amazonaws.com"},
					"Action":    arr("kms:Decrypt", "kms:GenerateDataKey*"),
				})))},
			})
		})
	}
	must(t, "no subscription by default", func() {
		template.ResourceCountIs(jsii.String("AWS::SNS::Subscription"), jsii.Number(0))
	})
	must(t, "the configured address in the hardened stack", func() {
		hardened.HasResourceProperties(jsii.String("AWS::SNS::Subscription"), obj{"Protocol": "email", "Endpoint": hardenedOps.AlarmEmail})
	})
}

// The alarms, the dashboard and the access metrics' filters they read are
// the Operations nested stack's, and it holds nothing else; the root keeps the alarm topic (its subscriptions
// outlive the nested stack) and the deployment groups (each alias's
// update policy names its own), which roll back on the nested alarms
// (TestDeploys). SAM's template has neither (TestSAM_*).
func TestOperations_NestedStack(t *testing.T) {
	for s, root := range map[awscdk.Stack]assertions.Template{stack: template, hardenedStack: hardened, deployedStack: assertions.Template_FromJSON(
		ptrTo(assembly.GetStackByName(deployedStack.StackName()).Template().(map[string]any)), nil)} {
		ops := operationsOf(t, s)
		for _, typ := range []string{"AWS::CloudWatch::Alarm", "AWS::CloudWatch::Dashboard"} {
			if n := len(resources(root, typ)); n > 0 {
				t.Errorf("%s: %d %s in the root stack", *s.StackName(), n, typ)
			}
		}
		if n := len(resources(ops.Template, "AWS::CloudWatch::Dashboard")); n != 1 {
			t.Errorf("%s: %d dashboards in %s", *s.StackName(), n, operationsID)
		}
		nested, _ := ops.raw["Resources"].(obj)
		for id, r := range nested {
			if typ := r.(obj)["Type"]; typ != "AWS::CloudWatch::Alarm" && typ != "AWS::CloudWatch::Dashboard" && typ != "AWS::Logs::MetricFilter" {
				t.Errorf("%s: %s (%s) in %s", *s.StackName(), id, typ, operationsID)
			}
		}
		for _, typ := range []string{"AWS::SNS::Topic", "AWS::CodeDeploy::Application", "AWS::CodeDeploy::DeploymentGroup"} {
			if len(resources(root, typ)) == 0 {
				t.Errorf("%s: no %s in the root stack", *s.StackName(), typ)
			}
		}
		// AND the stack's outputs name the nested dashboard and the root's topic
		outputs := assembly.GetStackByName(s.StackName()).Template().(map[string]any)["Outputs"].(map[string]any)
		if got := fmt.Sprint(ops.resolve(outputs[OutputDashboard].(obj)["Value"])); !strings.HasPrefix(got, "map[Ref:Dashboard") {
			t.Errorf("%s: dashboard output %s", *s.StackName(), got)
		}
		if got := fmt.Sprint(outputs[OutputAlarmTopic].(obj)["Value"]); !strings.HasPrefix(got, "map[Ref:Alarms") {
			t.Errorf("%s: alarm topic output %s", *s.StackName(), got)
		}
	}
}

func ptrTo[T any](v T) *T { return &v }

// One dashboard shows the alarms and the metrics they watch.
func TestDashboard(t *testing.T) {
	ops := operationsOf(t, stack).Template
	dashboards := resources(ops, "AWS::CloudWatch::Dashboard")
	if len(dashboards) != 1 {
		t.Fatalf("%d dashboards", len(dashboards))
	}
	for _, d := range dashboards {
		body := fmt.Sprint(props(d)["DashboardBody"])
		for _, want := range []string{"Alarms", "API requests and errors", "p99 duration per route", "BookPlatform/TestBackend",
			"Function errors and throttles", "Dead-letter queues", "DynamoDB throttled requests", "DynamoDB system errors"} {
			if !strings.Contains(body, want) {
				t.Errorf("the dashboard lacks %q", want)
			}
		}
		// AND its alarm widget lists every alarm
		for id := range resources(ops, "AWS::CloudWatch::Alarm") {
			if !strings.Contains(body, id) {
				t.Errorf("the dashboard's alarm widget lacks %s", id)
			}
		}
	}
}

// Every function has the live alias, and a CodeDeploy deployment group
// on it that shifts traffic gradually and rolls back on the function's
// rollback alarms (errors, throttles, 5xx; not the p99) or a failed
// deployment. Every caller goes through the alias.
func TestDeploys(t *testing.T) {
	for tmpl, config := range map[*assertions.Template]string{&template: "CodeDeployDefault.LambdaCanary10Percent5Minutes", &hardened: "CodeDeployDefault.LambdaLinear10PercentEvery1Minute"} {
		s := stack
		if tmpl == &hardened {
			s = hardenedStack
		}
		ops := operationsOf(t, s)
		groups := resources(*tmpl, "AWS::CodeDeploy::DeploymentGroup")
		if len(groups) != len(functions) {
			t.Errorf("%d deployment groups, want one per function (%d)", len(groups), len(functions))
		}
		for _, f := range functions {
			alias := aliasOf(t, *tmpl, f.Name)
			must(t, f.Name+" alias", func() {
				(*tmpl).HasResourceProperties(jsii.String("AWS::Lambda::Alias"), obj{
					"Name":            AliasName,
					"FunctionName":    obj{"Ref": functionID(t, *tmpl, f.Name)},
					"FunctionVersion": obj{"Fn::GetAtt": arr(assertions.Match_AnyValue(), "Version")},
				})
			})
			// The alias is the deployment's: CodeDeploy, not CloudFormation, moves it.
			update, _ := resources(*tmpl, "AWS::Lambda::Alias")[alias]["UpdatePolicy"].(obj)["CodeDeployLambdaAliasUpdate"].(obj)
			groupRef, _ := update["DeploymentGroupName"].(obj)
			group := props(groups[fmt.Sprint(groupRef["Ref"])])
			if group == nil {
				t.Errorf("%s: no deployment group moves its alias (update policy %v)", f.Name, update)
				continue
			}
			if group["DeploymentConfigName"] != config {
				t.Errorf("%s: deployment config %v, want %s", f.Name, group["DeploymentConfigName"], config)
			}
			rollback := fmt.Sprint(group["AutoRollbackConfiguration"])
			if !strings.Contains(rollback, "DEPLOYMENT_FAILURE") || !strings.Contains(rollback, "DEPLOYMENT_STOP_ON_ALARM") || !strings.Contains(rollback, "Enabled:true") {
				t.Errorf("%s: rollback %s", f.Name, rollback)
			}
			// The rollback alarms are the nested stack's, read through its
			// outputs.
			alarms := fmt.Sprint(ops.resolve(group["AlarmConfiguration"]))
			n := 0
			for id, a := range alarmsOf(t, *tmpl, ops.Template, f.Name) {
				in := strings.Contains(alarms, id)
				if p99 := a["ExtendedStatistic"] == "p99"; p99 == in {
					t.Errorf("%s: alarm %s (p99: %v) in the rollback alarms: %v", f.Name, id, p99, in)
				}
				if in {
					n++
				}
			}
			if n == 0 || !strings.Contains(alarms, "Enabled:true") {
				t.Errorf("%s: rollback alarms %s", f.Name, alarms)
			}
		}
	}

	// AND API Gateway, the authorizer binding and Secrets Manager call aliases
	for _, i := range resources(template, "AWS::ApiGatewayV2::Integration") {
		if !strings.Contains(fmt.Sprint(props(i)["IntegrationUri"]), "Alias") {
			t.Errorf("integration %v does not call an alias", props(i)["IntegrationUri"])
		}
	}
	for _, a := range resources(template, "AWS::ApiGatewayV2::Authorizer") {
		if !strings.Contains(fmt.Sprint(props(a)["AuthorizerUri"]), aliasOf(t, template, "authorizer")) {
			t.Errorf("the authorizer calls %v, not its alias", props(a)["AuthorizerUri"])
		}
	}
	for id, p := range resources(template, "AWS::Lambda::Permission") {
		if !strings.Contains(fmt.Sprint(props(p)["FunctionName"]), "Alias") {
			t.Errorf("permission %s is on %v, not an alias", id, props(p)["FunctionName"])
		}
	}
}

// No function runs Lambda's active tracing (it would record a request a
// second per function and 5% of the rest, whatever they were); every
// function that keeps its own traces (groups.Function.Traced: all but the
// authorizer and the key rotation) may send them, with PutTraceSegments
// alone, and gets the sampling the cost benchmark prices; the others may
// send none.
func TestTracing(t *testing.T) {
	for id, fn := range resources(template, "AWS::Lambda::Function") {
		if got := props(fn)["TracingConfig"]; got != nil {
			t.Errorf("%s: Lambda tracing %v, want none", id, got)
		}
	}
	for _, f := range functions {
		var xray [][]string
		for _, st := range roleStatements(t, f.Name) {
			actions := strs(st["Action"])
			if slices.ContainsFunc(actions, func(a string) bool { return strings.HasPrefix(a, "xray:") }) {
				xray = append(xray, actions)
				if !slices.Equal(strs(st["Resource"]), []string{"*"}) {
					t.Errorf("%s: X-Ray on %v", f.Name, st["Resource"])
				}
			}
		}
		want := [][]string(nil)
		if f.Traced() {
			want = [][]string{{"xray:PutTraceSegments"}}
		}
		if !reflect.DeepEqual(xray, want) {
			t.Errorf("%s (traced: %v): X-Ray actions %v, want %v", f.Name, f.Traced(), xray, want)
		}
		_, fn := function(t, f.Name)
		envProps, _ := props(fn)["Environment"].(map[string]any)
		vars, _ := envProps["Variables"].(map[string]any)
		rate, slow := vars[tracing.EnvSampleRate], vars[tracing.EnvSlowMS]
		if f.Traced() && (rate != strconv.FormatFloat(groups.Observability.TraceSampleRate, 'f', -1, 64) || slow != strconv.Itoa(groups.Observability.TraceSlowMS)) {
			t.Errorf("%s: sampling %v, %v; want groups.Observability's", f.Name, rate, slow)
		}
		if !f.Traced() && (rate != nil || slow != nil) {
			t.Errorf("%s links no tracing, but is given sampling %v, %v", f.Name, rate, slow)
		}
	}
}

// Every function logs JSON without Lambda's INFO platform lines (START,
// END, REPORT), and its own lines pass whatever their level, LOG_LEVEL
// filtering them: what the cost benchmark prices (groups.Observability).
func TestLogging_NoPlatformLines(t *testing.T) {
	for id, fn := range resources(template, "AWS::Lambda::Function") {
		got := fmt.Sprint(props(fn)["LoggingConfig"])
		if !strings.Contains(got, "LogFormat:JSON") || !strings.Contains(got, "SystemLogLevel:WARN") || !strings.Contains(got, "ApplicationLogLevel:DEBUG") {
			t.Errorf("%s: logging %s", id, got)
		}
	}
}

// The signing keys: a generated secret in the {"current", ...} form, read
// by every function but the rotation one (GetSecretValue only) and those
// that verify no token (health, docs: Keyless, not granted it), rotated
// every keyRotationDays by the rotation function's alias, which alone may
// write it, with exactly the four calls of a rotation.
func TestSigningKeys(t *testing.T) {
	secret := logicalID(t, "SigningKeys")
	must(t, "generated as JSON", func() {
		template.HasResourceProperties(jsii.String("AWS::SecretsManager::Secret"), obj{
			"GenerateSecretString": obj{"SecretStringTemplate": "{}", "GenerateStringKey": "current", "PasswordLength": 64, "ExcludePunctuation": true},
		})
	})
	rotation := aliasOf(t, template, "keyrotation")
	must(t, "rotation schedule", func() {
		template.HasResourceProperties(jsii.String("AWS::SecretsManager::RotationSchedule"), obj{
			"SecretId":          obj{"Ref": secret},
			"RotationLambdaARN": obj{"Ref": rotation},
			"RotationRules":     obj{"ScheduleExpression": fmt.Sprintf("rate(%d days)", keyRotationDays)},
		})
		template.HasResourceProperties(jsii.String("AWS::Lambda::Permission"), obj{
			"FunctionName": obj{"Ref": rotation}, "Principal": "secretsmanager.amazonaws.com", "Action": "lambda:InvokeFunction",
		})
	})
	for _, f := range functions {
		var got []string
		for _, st := range roleStatements(t, f.Name) {
			if sid, _ := st["Sid"].(string); strings.HasPrefix(sid, "Read") && slices.ContainsFunc(issuedSecrets(&BackendStackProps{}), func(is issuedSecret) bool { return sid == "Read"+is.ID }) {
				continue // TestIssuedSecrets
			}
			for _, a := range strs(st["Action"]) {
				if strings.HasPrefix(a, "secretsmanager:") {
					got = append(got, a+" on "+fmt.Sprint(st["Resource"]))
				}
			}
		}
		slices.Sort(got)
		on := " on " + fmt.Sprint(obj{"Ref": secret})
		want := []string{"secretsmanager:GetSecretValue" + on}
		switch {
		case f.KeyRotation:
			want = []string{"secretsmanager:DescribeSecret" + on, "secretsmanager:GetSecretValue" + on, "secretsmanager:PutSecretValue" + on, "secretsmanager:UpdateSecretVersionStage" + on}
		case f.Keyless:
			want = nil
		}
		if !slices.Equal(got, want) {
			t.Errorf("%s: Secrets Manager grants %v, want %v", f.Name, got, want)
		}
	}
	// AND by name: the functions that verify no token may not read the
	// keys nor know where they are; the others do both
	for name, keyed := range map[string]bool{"health": false, "docs": false, "users": true, "auth": true, "authorizer": true} {
		reads := false
		for _, st := range roleStatements(t, name) {
			reads = reads || slices.Contains(strs(st["Action"]), "secretsmanager:GetSecretValue")
		}
		_, fn := function(t, name)
		_, named := fn["Properties"].(obj)["Environment"].(obj)["Variables"].(obj)[config.EnvJWTSecretARN]
		if reads != keyed || named != keyed {
			t.Errorf("%s: reads the signing keys %v, is told their secret %v; want %v", name, reads, named, keyed)
		}
	}
}

// WAF is off by default. On, one web ACL (AWS managed common rules and a
// per-address rate rule) screens the media CDN and the API's front door;
// the front door adds the origin secret, which the functions require
// (ORIGIN_VERIFY_SECRET), and the stack's API URL is the front door's.
func TestWAF(t *testing.T) {
	must(t, "off by default", func() {
		template.ResourceCountIs(jsii.String("AWS::WAFv2::WebACL"), jsii.Number(0))
		template.ResourceCountIs(jsii.String("AWS::CloudFront::Distribution"), jsii.Number(2)) // the media CDN and the store domains'
	})
	acls := resources(hardened, "AWS::WAFv2::WebACL")
	if len(acls) != 1 {
		t.Fatalf("%d web ACLs", len(acls))
	}
	var acl string
	for id, a := range acls {
		acl = id
		p := props(a)
		rules := fmt.Sprint(p["Rules"])
		if p["Scope"] != "CLOUDFRONT" || !strings.Contains(rules, "AWSManagedRulesCommonRuleSet") ||
			!strings.Contains(rules, "RateBasedStatement:map[AggregateKeyType:IP Limit:2000]") || !strings.Contains(rules, "Block") {
			t.Errorf("web ACL %v", p)
		}
	}
	dists := resources(hardened, "AWS::CloudFront::Distribution")
	if len(dists) != 3 {
		t.Fatalf("%d distributions, want the media CDN, the API's front door and the store domains'", len(dists))
	}
	for id, d := range dists {
		cfg := props(d)["DistributionConfig"].(obj)
		if got := fmt.Sprint(cfg["WebACLId"]); got != fmt.Sprint(obj{"Fn::GetAtt": []any{acl, "Arn"}}) {
			t.Errorf("distribution %s: web ACL %s", id, got)
		}
		if !strings.HasPrefix(id, "ApiFrontDoor") {
			continue
		}
		origin := fmt.Sprint(cfg["Origins"])
		for _, want := range []string{"OriginCustomHeaders:[map[HeaderName:" + app.OriginVerifyHeader, "resolve:secretsmanager", "OriginProtocolPolicy:https-only", "TLSv1.2", "ApiEndpoint"} {
			if !strings.Contains(origin, want) {
				t.Errorf("front door origin lacks %q: %s", want, origin)
			}
		}
		behavior := fmt.Sprint(cfg["DefaultCacheBehavior"])
		if !strings.Contains(behavior, "CachePolicyId:4135ea2d-6df8-44a3-9df3-4b5a84be39ad") || !strings.Contains(behavior, "ViewerProtocolPolicy:https-only") {
			t.Errorf("front door behavior %s: want nothing cached, HTTPS only", behavior)
		}
	}
	// AND the HTTP functions, which check the front door's secret, are
	// told where it is and may read it; no function holds its value, and
	// no other may read it
	var originSecret string
	for id := range resources(hardened, "AWS::SecretsManager::Secret") {
		if strings.HasPrefix(id, "OriginVerifySecret") {
			originSecret = id
		}
	}
	if originSecret == "" {
		t.Fatal("no origin secret")
	}
	for _, f := range functions {
		fnID := functionID(t, hardened, f.Name)
		vars := props(resources(hardened, "AWS::Lambda::Function")[fnID])["Environment"].(obj)["Variables"].(obj)
		if v, has := vars[config.EnvOriginVerifySecret]; has {
			t.Errorf("%s: %s holds the value: %v", f.Name, config.EnvOriginVerifySecret, v)
		}
		arn, told := vars[config.EnvOriginVerifySecretARN]
		if told != isHTTP(f) || (told && fmt.Sprint(arn) != fmt.Sprint(obj{"Ref": originSecret})) {
			t.Errorf("%s: %s = %v, want the origin secret's ARN on HTTP functions only", f.Name, config.EnvOriginVerifySecretARN, arn)
		}
		var reads []string
		for _, st := range statementsOf(hardened, fnID) {
			if strings.Contains(fmt.Sprint(st["Resource"]), originSecret) {
				reads = append(reads, fmt.Sprint(st["Action"]))
			}
		}
		var want []string
		if isHTTP(f) {
			want = []string{"secretsmanager:GetSecretValue"}
		}
		if !slices.Equal(reads, want) {
			t.Errorf("%s: actions on the origin secret %v, want %v", f.Name, reads, want)
		}
	}
	must(t, "the API URL is the front door's", func() {
		hardened.HasOutput(jsii.String(OutputAPIURL), obj{"Value": "https://" + hardenedOps.APIDomainName})
	})
}

func TestOpsFromContext(t *testing.T) {
	ctx := func(kv map[string]any) (OpsProps, error) {
		a := awscdk.NewApp(&awscdk.AppProps{Context: &kv})
		return OpsFromContext(a.Node())
	}
	o, err := ctx(map[string]any{})
	if err != nil || !reflect.DeepEqual(o, OpsProps{}) {
		t.Errorf("no context: %+v, %v", o, err)
	}
	o, err = ctx(map[string]any{CtxAlarmEmail: "ops@example.com", CtxLogRetentionDays: "90", CtxDeployment: "linear", CtxWAF: "true", CtxWAFRequestsPer5Min: 500})
	if err != nil || o.AlarmEmail != "ops@example.com" || o.LogRetentionDays != 90 || o.Deployment != DeployLinear || !o.WAF || o.WAFRequestsPer5Min != 500 {
		t.Errorf("context: %+v, %v", o, err)
	}
	for name, kv := range map[string]map[string]any{
		"not an email":                 {CtxAlarmEmail: "ops at example"},
		"a period CloudWatch lacks":    {CtxLogRetentionDays: "31"},
		"an unknown deployment":        {CtxDeployment: "blue-green"},
		"waf neither true nor false":   {CtxWAF: "maybe"},
		"a domain without certificate": {CtxMediaDomainName: "media.example.com"},
		"an API domain without WAF":    {CtxAPIDomainName: "api.example.com", CtxAPICertificateArn: "arn:aws:acm:us-east-1:1:certificate/x"},
	} {
		if _, err := ctx(kv); err == nil {
			t.Errorf("%s: accepted", name)
		}
	}
}

// The common rule set blocks a body over 8 KB, which every multipart
// upload (up to 5 MB) is and a legal JSON body may be (a note of 10,000
// characters): with WAF on, that rule only counts, and no rule of the ACL
// blocks on a body's size (the functions answer 413 over their limits).
func TestWAF_BodySizeOnlyCounted(t *testing.T) {
	var rules []any
	for _, a := range resources(hardened, "AWS::WAFv2::WebACL") {
		rules = props(a)["Rules"].([]any)
	}
	byName := map[string]obj{}
	for _, r := range rules {
		byName[r.(obj)["Name"].(string)] = r.(obj)
	}
	// THEN the managed rule's own action is overridden to count
	common := byName[commonRuleSet]
	if common == nil {
		t.Fatalf("no %s rule in %v", commonRuleSet, rules)
	}
	overrides := fmt.Sprint(common["Statement"].(obj)["ManagedRuleGroupStatement"].(obj)["RuleActionOverrides"])
	if overrides != fmt.Sprint([]any{obj{"Name": bodySizeRule, "ActionToUse": obj{"Count": obj{}}}}) {
		t.Errorf("%s overrides %s, want %s counted", commonRuleSet, overrides, bodySizeRule)
	}
	// AND no rule blocks on the body's size or on the rule's label
	for _, r := range rules {
		stmt := fmt.Sprint(r.(obj)["Statement"])
		for _, s := range []string{"SizeConstraintStatement", "LabelMatchStatement"} {
			if strings.Contains(stmt, s) {
				t.Errorf("rule %s: %s in %s", r.(obj)["Name"], s, stmt)
			}
		}
	}
	// AND the rules keep distinct priorities in their order
	for i, name := range []string{commonRuleSet, "AWSManagedRulesKnownBadInputsRuleSet", "RatePerAddress"} {
		if r := byName[name]; r == nil || r["Priority"].(float64) != float64(i) {
			t.Errorf("rule %s: %v, want priority %d", name, r, i)
		}
	}
	if len(rules) != 3 {
		t.Errorf("%d rules, want 3", len(rules))
	}
}
