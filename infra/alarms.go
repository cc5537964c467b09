package main

import (
	"fmt"
	"slices"
	"strings"

	"github.com/aws/aws-cdk-go/awscdk/v2"
	"github.com/aws/aws-cdk-go/awscdk/v2/awsapigatewayv2"
	"github.com/aws/aws-cdk-go/awscdk/v2/awscloudwatch"
	"github.com/aws/aws-cdk-go/awscdk/v2/awscloudwatchactions"
	"github.com/aws/aws-cdk-go/awscdk/v2/awsdynamodb"
	"github.com/aws/aws-cdk-go/awscdk/v2/awsiam"
	"github.com/aws/aws-cdk-go/awscdk/v2/awskms"
	"github.com/aws/aws-cdk-go/awscdk/v2/awslambda"
	"github.com/aws/aws-cdk-go/awscdk/v2/awssns"
	"github.com/aws/aws-cdk-go/awscdk/v2/awssnssubscriptions"
	"github.com/aws/aws-cdk-go/awscdk/v2/awssqs"
	"github.com/aws/aws-cdk-go/awscdk/v2/interfaces/interfacesawscloudwatch"
	"github.com/aws/constructs-go/constructs/v10"
	"github.com/aws/jsii-runtime-go"
	"github.com/bookplatform/backend/shared/groups"
	"github.com/bookplatform/backend/shared/httpapi"
	"github.com/bookplatform/backend/shared/queues"
)

// Alarm thresholds. A function error is a crash or a timeout (handlers
// answer errors in the envelope, so Lambda's Errors counts only what
// escaped them): one is worth a look. Throttles mean the account's
// concurrency ran out. Server errors are the 5xx answers the access log
// counts (its metric filters, newAccessMetrics), a few of which (a 503 on contention) are normal.
const (
	alarmPeriodMinutes   = 1
	errorsThreshold      = 1
	throttlesThreshold   = 1
	serverErrorThreshold = 5 // 5xx answers of one function in a minute
	p99LatencyMillis     = 3000
	p99Minutes           = 5 // the p99 is judged over 5-minute periods...
	p99Periods           = 3 // ...three in a row
	api5xxPercent        = 1 // API 5xx rate over 5 minutes...
	api5xxMinRequests    = 20
	dynamoMinutes        = 5
	relayLagMinutes      = 5 // the oldest record the relay reads, in ms of IteratorAge
)

// functionAlarms are one function's alarms.
type functionAlarms struct {
	Errors, Throttles awscloudwatch.Alarm
	// ServerErrors (HTTP functions) counts 5xx answers in the access log.
	ServerErrors awscloudwatch.Alarm
	// P99 (functions a request waits for: HTTP and authorizer) is the
	// group's p99 duration.
	P99 awscloudwatch.Alarm
	// IteratorAge (the relay) is its stream falling behind: events
	// waiting to be delivered, which a relay failing every record shows
	// before anything else (its failed records are not Lambda Errors).
	IteratorAge awscloudwatch.Alarm
}

// all lists the alarms set.
func (a *functionAlarms) all() []awscloudwatch.Alarm {
	var out []awscloudwatch.Alarm
	for _, x := range []awscloudwatch.Alarm{a.Errors, a.Throttles, a.ServerErrors, a.P99, a.IteratorAge} {
		if x != nil {
			out = append(out, x)
		}
	}
	return out
}

// rollback are the alarms that stop a deployment and roll it back: all
// but the p99, which the cold starts of the new version alone can raise
// while it takes its first traffic.
func (a *functionAlarms) rollback() []awscloudwatch.Alarm {
	return slices.DeleteFunc(a.all(), func(x awscloudwatch.Alarm) bool { return x == a.P99 })
}

// observability is what the alarms and the dashboard are built from.
type observability struct {
	functions []groups.Function
	aliases   map[string]awslambda.Alias
	lambdas   map[string]awslambda.Function // their log groups carry the access metrics' filters
	api       awsapigatewayv2.HttpApi
	table     awsdynamodb.Table
	queues    map[queues.Name]awssqs.Queue
	relayDLQ  awssqs.Queue // nil without a relay function
	namespace string       // of the access log's metrics (newAccessMetrics)
	ops       OpsProps
}

// alarms are every alarm of the stack.
type alarms struct {
	Topic     awssns.Topic
	Functions map[string]*functionAlarms
	DLQs      map[queues.Name]awscloudwatch.Alarm
	// RelayDLQ is the outbox relay's: stream records it gave up on.
	RelayDLQ awscloudwatch.Alarm
	API5xx   awscloudwatch.Alarm
	DynamoDB []awscloudwatch.Alarm
}

func (a *alarms) all() []interfacesawscloudwatch.IAlarmRef {
	var out []interfacesawscloudwatch.IAlarmRef
	names := make([]string, 0, len(a.Functions))
	for n := range a.Functions {
		names = append(names, n)
	}
	slices.Sort(names)
	for _, n := range names {
		for _, x := range a.Functions[n].all() {
			out = append(out, x)
		}
	}
	for _, n := range queues.All {
		if x, ok := a.DLQs[n]; ok {
			out = append(out, x)
		}
	}
	if a.RelayDLQ != nil {
		out = append(out, a.RelayDLQ)
	}
	out = append(out, a.API5xx)
	for _, x := range a.DynamoDB {
		out = append(out, x)
	}
	return out
}

// newAlarms creates the alarms in scope (the Operations nested stack),
// each sending to topic when it fires: per function its errors and
// throttles (and for an HTTP function its 5xx answers), per group its p99
// latency, per queue the messages in its dead-letter queue, the API's 5xx
// rate, and the table's throttled requests and system errors.
func newAlarms(scope constructs.Construct, topic awssns.Topic, o observability) *alarms {
	a := &alarms{Topic: topic, Functions: map[string]*functionAlarms{}, DLQs: map[queues.Name]awscloudwatch.Alarm{}}
	action := awscloudwatchactions.NewSnsAction(a.Topic)
	notify := func(x awscloudwatch.Alarm) awscloudwatch.Alarm {
		x.AddAlarmAction(action)
		return x
	}
	minute := awscdk.Duration_Minutes(jsii.Number(alarmPeriodMinutes))

	for _, f := range o.functions {
		alias := o.aliases[f.Name]
		id := func(what string) *string { return jsii.String(f.Name + what + "Alarm") }
		fa := &functionAlarms{
			Errors: notify(awscloudwatch.NewAlarm(scope, id("Errors"), &awscloudwatch.AlarmProps{
				AlarmDescription:   jsii.String(fmt.Sprintf("%s: the function crashed or timed out (Lambda Errors >= %d in a minute)", f.Name, errorsThreshold)),
				Metric:             alias.MetricErrors(&awscloudwatch.MetricOptions{Period: minute, Statistic: jsii.String("Sum")}),
				Threshold:          jsii.Number(errorsThreshold),
				EvaluationPeriods:  jsii.Number(1),
				ComparisonOperator: awscloudwatch.ComparisonOperator_GREATER_THAN_OR_EQUAL_TO_THRESHOLD,
				TreatMissingData:   awscloudwatch.TreatMissingData_NOT_BREACHING,
			})),
			Throttles: notify(awscloudwatch.NewAlarm(scope, id("Throttles"), &awscloudwatch.AlarmProps{
				AlarmDescription:   jsii.String(fmt.Sprintf("%s: invocations throttled (Lambda Throttles >= %d in a minute)", f.Name, throttlesThreshold)),
				Metric:             alias.MetricThrottles(&awscloudwatch.MetricOptions{Period: minute, Statistic: jsii.String("Sum")}),
				Threshold:          jsii.Number(throttlesThreshold),
				EvaluationPeriods:  jsii.Number(1),
				ComparisonOperator: awscloudwatch.ComparisonOperator_GREATER_THAN_OR_EQUAL_TO_THRESHOLD,
				TreatMissingData:   awscloudwatch.TreatMissingData_NOT_BREACHING,
			})),
		}
		if isHTTP(f) {
			fa.ServerErrors = notify(awscloudwatch.NewAlarm(scope, id("ServerErrors"), &awscloudwatch.AlarmProps{
				AlarmDescription:   jsii.String(fmt.Sprintf("%s: %d or more 5xx answers in a minute (access log metrics)", f.Name, serverErrorThreshold)),
				Metric:             groupRequests(o.namespace, f.Name, "5xx", minute),
				Threshold:          jsii.Number(serverErrorThreshold),
				EvaluationPeriods:  jsii.Number(1),
				ComparisonOperator: awscloudwatch.ComparisonOperator_GREATER_THAN_OR_EQUAL_TO_THRESHOLD,
				TreatMissingData:   awscloudwatch.TreatMissingData_NOT_BREACHING,
			}))
		}
		if isHTTP(f) || f.Authorizer {
			fa.P99 = notify(awscloudwatch.NewAlarm(scope, id("P99Latency"), &awscloudwatch.AlarmProps{
				AlarmDescription: jsii.String(fmt.Sprintf("%s: p99 duration over %d ms for %d periods of %d minutes", f.Name, p99LatencyMillis, p99Periods, p99Minutes)),
				Metric: alias.MetricDuration(&awscloudwatch.MetricOptions{
					Period: awscdk.Duration_Minutes(jsii.Number(p99Minutes)), Statistic: jsii.String("p99"),
				}),
				Threshold:          jsii.Number(p99LatencyMillis),
				EvaluationPeriods:  jsii.Number(p99Periods),
				ComparisonOperator: awscloudwatch.ComparisonOperator_GREATER_THAN_THRESHOLD,
				TreatMissingData:   awscloudwatch.TreatMissingData_NOT_BREACHING,
			}))
		}
		if f.Relay {
			fa.IteratorAge = notify(awscloudwatch.NewAlarm(scope, id("IteratorAge"), &awscloudwatch.AlarmProps{
				AlarmDescription: jsii.String(fmt.Sprintf("%s: events wait more than %d minutes to be delivered (stream IteratorAge, maximum over %d minutes)", f.Name, relayLagMinutes, relayLagMinutes)),
				Metric: alias.Metric(jsii.String("IteratorAge"), &awscloudwatch.MetricOptions{
					Period: awscdk.Duration_Minutes(jsii.Number(relayLagMinutes)), Statistic: jsii.String("Maximum"),
				}),
				Threshold:          jsii.Number(relayLagMinutes * 60 * 1000),
				EvaluationPeriods:  jsii.Number(1),
				ComparisonOperator: awscloudwatch.ComparisonOperator_GREATER_THAN_THRESHOLD,
				TreatMissingData:   awscloudwatch.TreatMissingData_NOT_BREACHING,
			}))
		}
		a.Functions[f.Name] = fa
	}

	for _, n := range queues.All {
		dlq := o.queues[n].DeadLetterQueue().Queue
		a.DLQs[n] = notify(awscloudwatch.NewAlarm(scope, jsii.String(queueID(n.DLQ())+"Alarm"), &awscloudwatch.AlarmProps{
			AlarmDescription: jsii.String(fmt.Sprintf("%s: messages in the dead-letter queue (failed %d times; see README, Operations)", n, queues.MaxReceiveCount)),
			Metric: dlq.MetricApproximateNumberOfMessagesVisible(&awscloudwatch.MetricOptions{
				Period: minute, Statistic: jsii.String("Maximum"),
			}),
			Threshold:          jsii.Number(1),
			EvaluationPeriods:  jsii.Number(1),
			ComparisonOperator: awscloudwatch.ComparisonOperator_GREATER_THAN_OR_EQUAL_TO_THRESHOLD,
			TreatMissingData:   awscloudwatch.TreatMissingData_NOT_BREACHING,
		}))
	}

	if o.relayDLQ != nil {
		a.RelayDLQ = notify(awscloudwatch.NewAlarm(scope, jsii.String("RelayDlqAlarm"), &awscloudwatch.AlarmProps{
			AlarmDescription: jsii.String(fmt.Sprintf("relay: stream records given up on after %d retries or %s (their outbox items stay undelivered; see README, Operations)", relayRetries, relayMaxAge)),
			Metric: o.relayDLQ.MetricApproximateNumberOfMessagesVisible(&awscloudwatch.MetricOptions{
				Period: minute, Statistic: jsii.String("Maximum"),
			}),
			Threshold:          jsii.Number(1),
			EvaluationPeriods:  jsii.Number(1),
			ComparisonOperator: awscloudwatch.ComparisonOperator_GREATER_THAN_OR_EQUAL_TO_THRESHOLD,
			TreatMissingData:   awscloudwatch.TreatMissingData_NOT_BREACHING,
		}))
	}

	five := awscdk.Duration_Minutes(jsii.Number(5))
	a.API5xx = notify(awscloudwatch.NewAlarm(scope, jsii.String("Api5xxRateAlarm"), &awscloudwatch.AlarmProps{
		AlarmDescription: jsii.String(fmt.Sprintf("API: %d %% or more of the requests answered 5xx over 5 minutes (at least %d requests)", api5xxPercent, api5xxMinRequests)),
		Metric: awscloudwatch.NewMathExpression(&awscloudwatch.MathExpressionProps{
			Expression: jsii.String(fmt.Sprintf("IF(requests >= %d, 100 * errors / requests, 0)", api5xxMinRequests)),
			UsingMetrics: &map[string]awscloudwatch.IMetric{
				"errors":   o.api.MetricServerError(&awscloudwatch.MetricOptions{Period: five, Statistic: jsii.String("Sum")}),
				"requests": o.api.MetricCount(&awscloudwatch.MetricOptions{Period: five, Statistic: jsii.String("Sum")}),
			},
			Label:  jsii.String("5xx %"),
			Period: five,
		}),
		Threshold:          jsii.Number(api5xxPercent),
		EvaluationPeriods:  jsii.Number(1),
		ComparisonOperator: awscloudwatch.ComparisonOperator_GREATER_THAN_OR_EQUAL_TO_THRESHOLD,
		TreatMissingData:   awscloudwatch.TreatMissingData_NOT_BREACHING,
	}))

	ops := dynamoOperations(o.functions)
	period := awscdk.Duration_Minutes(jsii.Number(dynamoMinutes))
	a.DynamoDB = []awscloudwatch.Alarm{
		notify(awscloudwatch.NewAlarm(scope, jsii.String("TableThrottlesAlarm"), &awscloudwatch.AlarmProps{
			AlarmDescription: jsii.String("DynamoDB: throttled requests on the table"),
			Metric: o.table.MetricThrottledRequestsForOperations(&awsdynamodb.OperationsMetricOptions{
				Operations: &ops, Period: period,
			}),
			Threshold:          jsii.Number(1),
			EvaluationPeriods:  jsii.Number(1),
			ComparisonOperator: awscloudwatch.ComparisonOperator_GREATER_THAN_OR_EQUAL_TO_THRESHOLD,
			TreatMissingData:   awscloudwatch.TreatMissingData_NOT_BREACHING,
		})),
		notify(awscloudwatch.NewAlarm(scope, jsii.String("TableSystemErrorsAlarm"), &awscloudwatch.AlarmProps{
			AlarmDescription: jsii.String("DynamoDB: system errors (HTTP 500) on the table"),
			Metric: o.table.MetricSystemErrorsForOperations(&awsdynamodb.SystemErrorsForOperationsMetricOptions{
				Operations: &ops, Period: period,
			}),
			Threshold:          jsii.Number(1),
			EvaluationPeriods:  jsii.Number(1),
			ComparisonOperator: awscloudwatch.ComparisonOperator_GREATER_THAN_OR_EQUAL_TO_THRESHOLD,
			TreatMissingData:   awscloudwatch.TreatMissingData_NOT_BREACHING,
		})),
	}
	return a
}

// newAlarmTopic is the topic every alarm sends to, encrypted with a key of
// its own that CloudWatch may use (the AWS-managed SNS key does not let
// CloudWatch publish), TLS only, with ops.AlarmEmail subscribed when set.
// It stays in the root stack while the alarms are nested
// (newOperationsStack): its ARN, and so every subscription an operator
// made to it by hand, outlives any change to the nested stack.
func newAlarmTopic(scope constructs.Construct, ops OpsProps) awssns.Topic {
	key := awskms.NewKey(scope, jsii.String("AlarmsKey"), &awskms.KeyProps{
		Description:       jsii.String("Encrypts the alarm topic"),
		EnableKeyRotation: jsii.Bool(true),
		RemovalPolicy:     awscdk.RemovalPolicy_DESTROY,
	})
	key.AddToResourcePolicy(awsiam.NewPolicyStatement(&awsiam.PolicyStatementProps{
		Sid:        jsii.String("CloudWatchAlarmsPublish"),
		Principals: &[]awsiam.IPrincipal{awsiam.NewServicePrincipal(jsii.String("cloudwatch.amazonaws.com"), nil)},
		Actions:    jsii.Strings("kms:Decrypt", "kms:GenerateDataKey*"),
		Resources:  jsii.Strings("*"), // in a key policy, "*" is this key
	}), nil)
	topic := awssns.NewTopic(scope, jsii.String("Alarms"), &awssns.TopicProps{
		DisplayName: jsii.String("bookplatform alarms"),
		MasterKey:   key,
		EnforceSSL:  jsii.Bool(true),
	})
	if ops.AlarmEmail != "" {
		topic.AddSubscription(awssnssubscriptions.NewEmailSubscription(jsii.String(ops.AlarmEmail), nil))
	}
	return topic
}

// groupRequests counts a function's answers of one status class, from
// the access log's metrics: each line is one sample of durationMs.
func groupRequests(namespace, group, class string, period awscdk.Duration) awscloudwatch.Metric {
	return awscloudwatch.NewMetric(&awscloudwatch.MetricProps{
		Namespace:     jsii.String(namespace),
		MetricName:    jsii.String(httpapi.MetricDuration),
		DimensionsMap: &map[string]*string{httpapi.DimGroup: jsii.String(group), httpapi.DimStatusClass: jsii.String(class)},
		Statistic:     jsii.String("SampleCount"),
		Period:        period,
	})
}

// dynamoOperations are the DynamoDB operations the functions call (their
// grants), for the table's per-operation metrics.
func dynamoOperations(functions []groups.Function) []awsdynamodb.Operation {
	var names []string
	for _, f := range functions {
		for _, a := range f.TableActions {
			names = append(names, strings.TrimPrefix(a, "dynamodb:"))
		}
	}
	slices.Sort(names)
	names = slices.Compact(names)
	ops := make([]awsdynamodb.Operation, 0, len(names))
	for _, n := range names {
		byAction, ok := dynamoOperationNames[n]
		if !ok {
			panic(fmt.Sprintf("infra: no DynamoDB metric operation for dynamodb:%s", n))
		}
		for _, op := range byAction {
			if !slices.Contains(ops, op) {
				ops = append(ops, op)
			}
		}
	}
	return ops
}

// dynamoOperationNames are the operations whose metrics an IAM action's
// calls report under. The grants name a transaction by its parts
// (shared/dynamo, IAMActions), so every action a transaction part is
// granted by also stands for TransactWriteItems. No store reads through
// TransactGetItems: GetItem stands for GetItem alone.
var dynamoOperationNames = map[string][]awsdynamodb.Operation{
	"BatchGetItem": {awsdynamodb.Operation_BATCH_GET_ITEM}, "BatchWriteItem": {awsdynamodb.Operation_BATCH_WRITE_ITEM},
	"DeleteItem": {awsdynamodb.Operation_DELETE_ITEM, awsdynamodb.Operation_TRANSACT_WRITE_ITEMS},
	"GetItem":    {awsdynamodb.Operation_GET_ITEM},
	"PutItem":    {awsdynamodb.Operation_PUT_ITEM, awsdynamodb.Operation_TRANSACT_WRITE_ITEMS},
	"Query":      {awsdynamodb.Operation_QUERY}, "Scan": {awsdynamodb.Operation_SCAN},
	"UpdateItem":         {awsdynamodb.Operation_UPDATE_ITEM, awsdynamodb.Operation_TRANSACT_WRITE_ITEMS},
	"ConditionCheckItem": {awsdynamodb.Operation_TRANSACT_WRITE_ITEMS},
}

// isHTTP reports whether f serves API routes (its router writes the
// access log the 5xx alarm reads).
func isHTTP(f groups.Function) bool {
	return !f.Authorizer && !f.KeyRotation && f.Worker == nil && !f.Relay && f.Schedule == ""
}
