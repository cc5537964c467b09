package main

import (
	"encoding/json"
	"fmt"
	"slices"
	"strings"
	"testing"

	"github.com/aws/aws-cdk-go/awscdk/v2/assertions"
	"github.com/aws/jsii-runtime-go"
	"github.com/bookplatform/backend/shared/groups"
	"github.com/bookplatform/backend/shared/relay"
)

// relayStreamActions are what the stream event source grants the relay:
// the stream's reads (ListStreams takes no resource).
var relayStreamActions = []string{"dynamodb:DescribeStream", "dynamodb:GetRecords", "dynamodb:GetShardIterator", "dynamodb:ListStreams"}

func relayFunction(t *testing.T) groups.Function {
	t.Helper()
	for _, f := range functions {
		if f.Relay {
			return f
		}
	}
	t.Fatal("no relay function in groups.Functions()")
	panic("unreachable")
}

func TestRelay(t *testing.T) {
	f := relayFunction(t)
	table := logicalID(t, "Table")
	dlq := logicalID(t, "RelayDlqQueue")
	pattern, err := json.Marshal(relay.FilterPattern())
	if err != nil {
		t.Fatal(err)
	}

	// THEN the table's stream invokes the relay's alias with outbox INSERTs only, partial batch responses,
	// bisection, a retry limit, a maximum record age and a dead-letter queue
	must(t, "stream event source", func() {
		found := *template.FindResources(jsii.String("AWS::Lambda::EventSourceMapping"), obj{"Properties": obj{
			"EventSourceArn":             obj{"Fn::GetAtt": arr(table, "StreamArn")},
			"StartingPosition":           "TRIM_HORIZON",
			"FunctionResponseTypes":      arr("ReportBatchItemFailures"),
			"BisectBatchOnFunctionError": true,
			"MaximumRetryAttempts":       relayRetries,
			"MaximumRecordAgeInSeconds":  relayMaxAge.Seconds(),
			"FilterCriteria":             obj{"Filters": arr(obj{"Pattern": string(pattern)})},
			"DestinationConfig":          obj{"OnFailure": obj{"Destination": obj{"Fn::GetAtt": arr(dlq, "Arn")}}},
		}})
		if len(found) != 1 {
			t.Fatalf("%d event source mappings of the table's stream", len(found))
		}
		alias := aliasOf(t, template, f.Name)
		for _, m := range found {
			if name := fmt.Sprint((*m)["Properties"].(obj)["FunctionName"]); !strings.Contains(name, alias) {
				t.Errorf("the stream invokes %s, want the relay's alias", name)
			}
		}
	})

	// AND the relay reads the stream (and only the stream) with its stream actions, and has its table actions on the table.
	// Each stream action must be granted, not merely not misgranted:
	// a template without them would pass a check of the statements
	// that name them.
	granted := map[string]int{}
	for _, st := range roleStatements(t, f.Name) {
		actions := strs(st["Action"])
		if !slices.ContainsFunc(actions, func(a string) bool { return slices.Contains(relayStreamActions, a) }) {
			continue
		}
		res := fmt.Sprint(st["Resource"])
		if slices.Contains(actions, "dynamodb:ListStreams") {
			if res != "*" || len(actions) != 1 {
				t.Errorf("ListStreams statement: %v on %v", actions, res)
			}
			granted["dynamodb:ListStreams"]++
			continue
		}
		if !strings.Contains(res, table) || !strings.Contains(res, "StreamArn") {
			t.Errorf("stream actions %v on %v, want the table's stream", actions, res)
			continue
		}
		for _, a := range actions {
			granted[a]++
		}
	}
	for _, a := range relayStreamActions {
		if granted[a] == 0 {
			t.Errorf("the relay is not granted %s (on the table's stream, or * for ListStreams)", a)
		}
	}

	// AND it lives at least as long as its dedupe lock, which outlasts a
	// consumer call and its mark (shared/relay's settings), and has no
	// route
	_, fn := function(t, f.Name)
	if timeout, _ := fn["Properties"].(obj)["Timeout"].(float64); timeout != relay.Timeout.Seconds() || timeout < relay.Lock.Seconds() {
		t.Errorf("relay timeout = %v s, want %v, no less than its lock %v", timeout, relay.Timeout, relay.Lock)
	}
	if relay.ConsumeTimeout+relay.MarkTime >= relay.Lock {
		t.Errorf("a consumer call (%v) and its mark (%v) outlast the lock (%v)", relay.ConsumeTimeout, relay.MarkTime, relay.Lock)
	}
	if len(f.Routes) > 0 {
		t.Errorf("the relay serves routes")
	}

	// AND its dead-letter queue and its lag alarm send to the topic
	ops := operationsOf(t, stack).Template
	must(t, "relay alarms", func() {
		ops.HasResourceProperties(jsii.String("AWS::CloudWatch::Alarm"), obj{
			"MetricName": "ApproximateNumberOfMessagesVisible",
			"Dimensions": assertions.Match_ArrayWith(arr(obj{"Name": "QueueName", "Value": obj{"Fn::GetAtt": arr(dlq, "QueueName")}})),
		})
		ops.HasResourceProperties(jsii.String("AWS::CloudWatch::Alarm"), obj{
			"MetricName": "IteratorAge",
			"Threshold":  relayLagMinutes * 60 * 1000,
		})
	})
}
