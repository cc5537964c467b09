package testenv

import (
	"context"
	"fmt"
	"strconv"
	"sync"
	"testing"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/sqs"
	sqstypes "github.com/aws/aws-sdk-go-v2/service/sqs/types"
	"github.com/bookplatform/backend/local/sqslocal"
	"github.com/bookplatform/backend/shared/dynamo"
	"github.com/bookplatform/backend/shared/groups"
	"github.com/bookplatform/backend/shared/queues"
	"github.com/bookplatform/backend/shared/queues/sqsqueue"
	"github.com/bookplatform/backend/shared/worker"
	"github.com/bookplatform/backend/shared/worker/sqspoll"
)

// WithQueues gives the environment real work queues: every queue of
// queues.All (with its dead-letter queue, as the local run creates them)
// on the SQS stand-in of the test binary (local/sqslocal, in process),
// named for this environment alone, their URLs in the QUEUE_URL_*
// variables the groups that send read. Without it those variables name
// an address that refuses connections: a group that sends is built, and
// a send fails. StartWorkers then consumes them.
func WithQueues() Option {
	return func(s *settings) { s.queues = true }
}

// WithWorkers is WithQueues with the worker groups consuming the queues
// from the start (StartWorkers), as on the local run: for tests of a
// route whose answer waits for a worker (the point-of-sale sync).
func WithWorkers() Option {
	return func(s *settings) { s.queues, s.workers = true, true }
}

// unreachableQueue is the URL of queue n without WithQueues.
func unreachableQueue(n queues.Name) string { return "http://127.0.0.1:1/000000000000/" + string(n) }

// setUpQueues creates this environment's queues and returns the SQS
// endpoint and each queue's URL (dead-letter queues included).
func setUpQueues(tb testing.TB, suffix string) (string, map[queues.Name]string) {
	tb.Helper()
	endpoint, err := sqslocal.Start()
	if err != nil {
		tb.Fatalf("testenv: SQS stand-in: %v", err)
	}
	client := sqsqueue.NewClient(AWSConfig(map[string]string{sqs.ServiceID: endpoint}))
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	urls := map[queues.Name]string{}
	for _, n := range queues.All {
		dlq, err := client.CreateQueue(ctx, &sqs.CreateQueueInput{QueueName: aws.String(string(n.DLQ()) + "-" + suffix)})
		if err != nil {
			tb.Fatalf("testenv: create queue %s: %v", n.DLQ(), err)
		}
		attrs, err := client.GetQueueAttributes(ctx, &sqs.GetQueueAttributesInput{
			QueueUrl: dlq.QueueUrl, AttributeNames: []sqstypes.QueueAttributeName{sqstypes.QueueAttributeNameQueueArn},
		})
		if err != nil {
			tb.Fatalf("testenv: queue %s: %v", n.DLQ(), err)
		}
		policy := fmt.Sprintf(`{"maxReceiveCount":%d,"deadLetterTargetArn":%q}`,
			queues.MaxReceiveCount, attrs.Attributes[string(sqstypes.QueueAttributeNameQueueArn)])
		q, err := client.CreateQueue(ctx, &sqs.CreateQueueInput{
			QueueName: aws.String(string(n) + "-" + suffix),
			Attributes: map[string]string{
				string(sqstypes.QueueAttributeNameRedrivePolicy):     policy,
				string(sqstypes.QueueAttributeNameVisibilityTimeout): strconv.Itoa(int(queues.VisibilityTimeout / time.Second)),
			},
		})
		if err != nil {
			tb.Fatalf("testenv: create queue %s: %v", n, err)
		}
		urls[n], urls[n.DLQ()] = aws.ToString(q.QueueUrl), aws.ToString(dlq.QueueUrl)
	}
	return endpoint, urls
}

// StartWorkers consumes the environment's queues (WithQueues) as the
// local run does (local/stack.go, startWorkers): one poller per worker
// group, each running its handler through worker.Lambda with the app's
// idempotency records. They stop when the test ends; stop stops them
// sooner (a test of what a stopped worker leaves).
func (e *Env) StartWorkers(tb testing.TB) (stop func()) {
	tb.Helper()
	if e.SQS == nil {
		tb.Fatalf("testenv: StartWorkers needs WithQueues")
	}
	ctx, cancel := context.WithCancel(context.Background())
	var wg sync.WaitGroup
	for _, g := range groups.All(e.App.Deps()) {
		w := g.Worker
		if w == nil {
			continue
		}
		handle := worker.Lambda(w.Handle, dynamo.NewIdempotency(e.App.Table), w.Queue, e.App.Now, e.App.Logger.With("group", g.Name))
		wg.Go(func() { sqspoll.Poll(ctx, e.SQS, e.QueueURLs[w.Queue], w.BatchSize, handle, e.App.Logger) })
	}
	var once sync.Once
	stop = func() { once.Do(func() { cancel(); wg.Wait() }) }
	tb.Cleanup(stop)
	return stop
}
