package main

import (
	"fmt"

	"github.com/aws/aws-cdk-go/awscdk/v2"
	"github.com/aws/aws-cdk-go/awscdk/v2/awsdynamodb"
	"github.com/aws/aws-cdk-go/awscdk/v2/awslambda"
	"github.com/aws/aws-cdk-go/awscdk/v2/awslambdaeventsources"
	"github.com/aws/aws-cdk-go/awscdk/v2/awssqs"
	"github.com/aws/constructs-go/constructs/v10"
	"github.com/aws/jsii-runtime-go"
	"github.com/bookplatform/backend/shared/dynamo"
	"github.com/bookplatform/backend/shared/groups"
	"github.com/bookplatform/backend/shared/queues"
	"github.com/bookplatform/backend/shared/relay"
)

// newTable builds the one table from dynamo.Table, the schema the local
// server and the tests create too.
func newTable(scope constructs.Construct) awsdynamodb.Table {
	s := dynamo.Table
	table := awsdynamodb.NewTable(scope, jsii.String("Table"), &awsdynamodb.TableProps{
		PartitionKey:        &awsdynamodb.Attribute{Name: jsii.String(s.PartitionKey), Type: awsdynamodb.AttributeType_STRING},
		SortKey:             &awsdynamodb.Attribute{Name: jsii.String(s.SortKey), Type: awsdynamodb.AttributeType_STRING},
		BillingMode:         awsdynamodb.BillingMode_PAY_PER_REQUEST,
		TimeToLiveAttribute: jsii.String(s.TTLAttribute),
		// The outbox relay's event source (shared/relay).
		Stream: streamViewType(s),
		PointInTimeRecoverySpecification: &awsdynamodb.PointInTimeRecoverySpecification{
			PointInTimeRecoveryEnabled: jsii.Bool(true),
		},
		// The table is the system of record: deleting the stack must not
		// delete the users.
		RemovalPolicy: awscdk.RemovalPolicy_RETAIN,
	})
	for _, ix := range s.Indexes {
		table.AddGlobalSecondaryIndex(&awsdynamodb.GlobalSecondaryIndexProps{
			IndexName:      jsii.String(ix.Name),
			PartitionKey:   &awsdynamodb.Attribute{Name: jsii.String(ix.PartitionKey), Type: awsdynamodb.AttributeType_STRING},
			SortKey:        &awsdynamodb.Attribute{Name: jsii.String(ix.SortKey), Type: awsdynamodb.AttributeType_STRING},
			ProjectionType: awsdynamodb.ProjectionType_ALL,
		})
	}
	return table
}

// streamViewType is the CDK name of the schema's stream view.
func streamViewType(s dynamo.Schema) awsdynamodb.StreamViewType {
	v, ok := map[string]awsdynamodb.StreamViewType{
		"NEW_IMAGE": awsdynamodb.StreamViewType_NEW_IMAGE, "NEW_AND_OLD_IMAGES": awsdynamodb.StreamViewType_NEW_AND_OLD_IMAGES,
		"OLD_IMAGE": awsdynamodb.StreamViewType_OLD_IMAGE, "KEYS_ONLY": awsdynamodb.StreamViewType_KEYS_ONLY,
	}[string(s.Stream)]
	if !ok {
		panic(fmt.Sprintf("infra: stream view %q of the table schema has no CDK name", s.Stream))
	}
	return v
}

// relayEvents makes fn (the relay) the consumer of the table's stream:
// an event source filtered to outbox INSERTs (relay.FilterPattern: the
// delivered mark and TTL's removals never invoke it), with partial batch
// responses, bisection on error, relayRetries retries, relayMaxAge, and
// an SQS dead-letter queue for the records it gives up on. Binding the
// source grants the role the stream's read actions (DescribeStream,
// GetRecords, GetShardIterator on the stream, ListStreams, which takes
// no resource) and sending to the dead-letter queue; nothing else.
func relayEvents(scope constructs.Construct, fn awslambda.IFunction, f groups.Function, table awsdynamodb.Table) awssqs.Queue {
	if len(f.Routes) > 0 || f.Worker != nil {
		panic(fmt.Sprintf("infra: relay function %s has routes or a queue: it consumes the table's stream only", f.Name))
	}
	dlq := awssqs.NewQueue(scope, jsii.String("RelayDlqQueue"), &awssqs.QueueProps{
		RetentionPeriod: awscdk.Duration_Seconds(jsii.Number(queues.DLQRetention.Seconds())),
		Encryption:      awssqs.QueueEncryption_SQS_MANAGED,
		EnforceSSL:      jsii.Bool(true),
	})
	pattern := relay.FilterPattern()
	fn.AddEventSource(awslambdaeventsources.NewDynamoEventSource(table, &awslambdaeventsources.DynamoEventSourceProps{
		StartingPosition:        awslambda.StartingPosition_TRIM_HORIZON,
		BatchSize:               jsii.Number(relayBatchSize),
		BisectBatchOnError:      jsii.Bool(true),
		ReportBatchItemFailures: jsii.Bool(true),
		RetryAttempts:           jsii.Number(relayRetries),
		MaxRecordAge:            awscdk.Duration_Seconds(jsii.Number(relayMaxAge.Seconds())),
		OnFailure:               awslambdaeventsources.NewSqsDlq(dlq),
		Filters:                 &[]*map[string]any{awslambda.FilterCriteria_Filter(&pattern)},
	}))
	return dlq
}
