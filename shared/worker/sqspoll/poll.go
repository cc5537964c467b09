// Package sqspoll is the local run's stand-in for Lambda's SQS event
// source. It is apart from shared/worker, which every worker function
// links, because in AWS a worker never calls SQS itself: only the local
// run (and its tests) link the SQS client for it.
package sqspoll

import (
	"context"
	"log/slog"
	"time"

	"github.com/aws/aws-lambda-go/events"
	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/sqs"
	"github.com/aws/aws-sdk-go-v2/service/sqs/types"
	"github.com/bookplatform/backend/shared/worker"
)

// Poll settings. The long poll returns as soon as a message arrives, and
// the local stand-in ends it when the poller's context ends, so a long
// wait costs neither latency nor a slow shutdown.
const (
	pollWait   = 20 // seconds, SQS's maximum
	retryPause = time.Second
)

// Poll is the local run's stand-in for Lambda's SQS event source: it
// long-polls queueURL for up to batchSize messages (1-10), hands them to
// handle as the SQSEvent Lambda would build, deletes the messages handle
// did not report as failed, and leaves the failed ones to reappear after
// the visibility timeout (and, after queues.MaxReceiveCount receipts, to
// go to the dead-letter queue). An error from handle fails the whole
// batch, as an invocation error does in Lambda. SQS errors are logged and
// retried after a pause, as the event source does. Poll returns when ctx
// ends.
//
// Messages are deleted one DeleteMessage each: the local stand-in answers
// DeleteMessageBatch with a reply the SDK misreads.
func Poll(ctx context.Context, client *sqs.Client, queueURL string, batchSize int, handle worker.BatchHandler, logger *slog.Logger) {
	if logger == nil {
		logger = slog.Default()
	}
	for ctx.Err() == nil {
		out, err := client.ReceiveMessage(ctx, &sqs.ReceiveMessageInput{
			QueueUrl:                    aws.String(queueURL),
			MaxNumberOfMessages:         int32(batchSize),
			WaitTimeSeconds:             pollWait,
			MessageAttributeNames:       []string{"All"},
			MessageSystemAttributeNames: []types.MessageSystemAttributeName{types.MessageSystemAttributeNameAll},
		})
		if ctx.Err() != nil {
			return
		}
		if err != nil {
			logger.Warn("worker: receive failed", "queue", queueURL, "error", err.Error())
			pause(ctx, retryPause)
			continue
		}
		if len(out.Messages) == 0 {
			continue
		}

		resp, err := handle(ctx, eventOf(out.Messages))
		failed := map[string]bool{}
		for _, f := range resp.BatchItemFailures {
			failed[f.ItemIdentifier] = true
		}
		// The batch's outcome is decided: record it even if ctx has just
		// ended, or done work would be delivered again.
		dctx := context.WithoutCancel(ctx)
		for _, m := range out.Messages {
			if err != nil || failed[aws.ToString(m.MessageId)] {
				continue
			}
			if _, derr := client.DeleteMessage(dctx, &sqs.DeleteMessageInput{QueueUrl: aws.String(queueURL), ReceiptHandle: m.ReceiptHandle}); derr != nil {
				logger.Warn("worker: delete failed", "queue", queueURL, "messageId", aws.ToString(m.MessageId), "error", derr.Error())
			}
		}
		if err != nil {
			logger.Warn("worker: batch failed", "queue", queueURL, "error", err.Error())
		}
	}
}

// eventOf builds the event Lambda would deliver for msgs.
func eventOf(msgs []types.Message) events.SQSEvent {
	ev := events.SQSEvent{Records: make([]events.SQSMessage, len(msgs))}
	for i, m := range msgs {
		r := events.SQSMessage{
			MessageId:              aws.ToString(m.MessageId),
			ReceiptHandle:          aws.ToString(m.ReceiptHandle),
			Body:                   aws.ToString(m.Body),
			Md5OfBody:              aws.ToString(m.MD5OfBody),
			Md5OfMessageAttributes: aws.ToString(m.MD5OfMessageAttributes),
			Attributes:             map[string]string{},
			MessageAttributes:      map[string]events.SQSMessageAttribute{},
			EventSource:            "aws:sqs",
		}
		for k, v := range m.Attributes {
			r.Attributes[k] = v
		}
		for k, v := range m.MessageAttributes {
			r.MessageAttributes[k] = events.SQSMessageAttribute{
				DataType: aws.ToString(v.DataType), StringValue: v.StringValue, BinaryValue: v.BinaryValue,
				StringListValues: v.StringListValues, BinaryListValues: v.BinaryListValues,
			}
		}
		ev.Records[i] = r
	}
	return ev
}

// pause waits d or until ctx ends.
func pause(ctx context.Context, d time.Duration) {
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-ctx.Done():
	case <-t.C:
	}
}
