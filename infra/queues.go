package main

import (
	"fmt"
	"strings"

	"github.com/aws/aws-cdk-go/awscdk/v2"
	"github.com/aws/aws-cdk-go/awscdk/v2/awslambda"
	"github.com/aws/aws-cdk-go/awscdk/v2/awslambdaeventsources"
	"github.com/aws/aws-cdk-go/awscdk/v2/awssqs"
	"github.com/aws/constructs-go/constructs/v10"
	"github.com/aws/jsii-runtime-go"
	"github.com/bookplatform/backend/shared/groups"
	"github.com/bookplatform/backend/shared/queues"
)

// newQueues creates every queue of queues.All with its dead-letter queue,
// as README describes and the local run mirrors (local/stack.go): a
// message received queues.MaxReceiveCount times without being deleted
// moves to the dead-letter queue, which keeps it for queues.DLQRetention.
// Both are encrypted with SQS-managed keys (no KMS key to grant or pay
// for) and refuse requests without TLS. CloudFormation names them: two
// stacks in one account do not collide.
func newQueues(scope constructs.Construct) map[queues.Name]awssqs.Queue {
	out := map[queues.Name]awssqs.Queue{}
	for _, n := range queues.All {
		dlq := awssqs.NewQueue(scope, jsii.String(queueID(n.DLQ())), &awssqs.QueueProps{
			RetentionPeriod: awscdk.Duration_Seconds(jsii.Number(queues.DLQRetention.Seconds())),
			Encryption:      awssqs.QueueEncryption_SQS_MANAGED,
			EnforceSSL:      jsii.Bool(true),
		})
		// A function may send to a dead-letter queue itself (the webhook
		// deliveries that failed for good): it is named beside its queue.
		out[n.DLQ()] = dlq
		out[n] = awssqs.NewQueue(scope, jsii.String(queueID(n)), &awssqs.QueueProps{
			VisibilityTimeout: awscdk.Duration_Seconds(jsii.Number(queues.VisibilityTimeout.Seconds())),
			DeadLetterQueue:   &awssqs.DeadLetterQueue{Queue: dlq, MaxReceiveCount: jsii.Number(queues.MaxReceiveCount)},
			Encryption:        awssqs.QueueEncryption_SQS_MANAGED,
			EnforceSSL:        jsii.Bool(true),
		})
	}
	return out
}

// queueID is the construct ID of a queue: "csv-import" is CsvImportQueue.
func queueID(n queues.Name) string {
	var b strings.Builder
	for _, part := range strings.Split(string(n), "-") {
		if part != "" {
			b.WriteString(strings.ToUpper(part[:1]) + part[1:])
		}
	}
	return b.String() + "Queue"
}

// queueOf returns the queue f names, and refuses a name the stack did not
// create (one missing from queues.All).
func queueOf(work map[queues.Name]awssqs.Queue, f groups.Function, n queues.Name) awssqs.Queue {
	q, ok := work[n]
	if !ok {
		panic(fmt.Sprintf("infra: function %s names queue %q, which is not in queues.All", f.Name, n))
	}
	return q
}

// consume makes fn the consumer of its worker's queue: an event source
// mapping with partial batch responses, so only the messages the handler
// reports as failed are retried (shared/worker.Lambda). Binding the event
// source grants the role the consume actions on that queue
// (GrantConsumeMessages: receive, delete, change visibility, read
// attributes) and nothing else.
func consume(fn awslambda.IFunction, f groups.Function, work map[queues.Name]awssqs.Queue) {
	if len(f.Routes) > 0 {
		panic(fmt.Sprintf("infra: worker function %s has routes: a worker group is a queue consumer only", f.Name))
	}
	fn.AddEventSource(awslambdaeventsources.NewSqsEventSource(queueOf(work, f, f.Worker.Queue), &awslambdaeventsources.SqsEventSourceProps{
		BatchSize:               jsii.Number(f.Worker.BatchSize),
		ReportBatchItemFailures: jsii.Bool(true),
	}))
}
