package main

import (
	"context"
	"errors"
	"fmt"
	"net"
	"net/http"
	"os"
	"path/filepath"
	"strconv"
	"time"

	"github.com/Admiral-Piett/goaws/app/gosqs"
	"github.com/Admiral-Piett/goaws/app/models"
	goawsrouter "github.com/Admiral-Piett/goaws/app/router"
	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/sqs"
	sqstypes "github.com/aws/aws-sdk-go-v2/service/sqs/types"
	"github.com/johannesboyne/gofakes3"
	"github.com/johannesboyne/gofakes3/backend/s3bolt"
	"github.com/sirupsen/logrus"
	bolt "go.etcd.io/bbolt"
)

// Queues are the work queues of the service; each gets a dead-letter queue
// named <queue>-dlq that takes a message after maxReceiveCount failed
// receipts, as in AWS.
var Queues = []string{"csv-import", "pos-sync", "webhooks"}

const (
	dlqSuffix       = "-dlq"
	maxReceiveCount = 5
	sqsAccountID    = "000000000000"
)

// stopper releases one part of the stack.
type stopper func(ctx context.Context) error

// serveLoopback serves h on a free loopback port and returns its URL.
func serveLoopback(h http.Handler) (string, stopper, error) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return "", nil, err
	}
	srv := &http.Server{Handler: h, ReadHeaderTimeout: 10 * time.Second}
	go func() { _ = srv.Serve(ln) }()
	return "http://" + ln.Addr().String(), srv.Shutdown, nil
}

// startS3 serves gofakes3 with the bolt backend, so uploaded media survive
// a restart. bolt locks its file: a second local run on the same data
// fails after a short wait instead of hanging.
func startS3(dir, bucket string) (string, stopper, error) {
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return "", nil, err
	}
	file := filepath.Join(dir, "s3.db")
	db, err := bolt.Open(file, 0o600, &bolt.Options{Timeout: 2 * time.Second})
	if errors.Is(err, bolt.ErrTimeout) {
		return "", nil, fmt.Errorf("%s is in use: is another local run going on?", file)
	}
	if err != nil {
		return "", nil, fmt.Errorf("open %s: %w", file, err)
	}
	backend := s3bolt.New(db)
	ok, err := backend.BucketExists(bucket)
	if err == nil && !ok {
		err = backend.CreateBucket(bucket)
	}
	if err != nil {
		_ = db.Close()
		return "", nil, fmt.Errorf("bucket %s: %w", bucket, err)
	}
	url, stop, err := serveLoopback(gofakes3.New(backend).Server())
	if err != nil {
		_ = db.Close()
		return "", nil, err
	}
	return url, func(ctx context.Context) error {
		return errors.Join(stop(ctx), db.Close())
	}, nil
}

// startSQS serves goaws in this process. Its state is global (one
// instance per process) and in memory: queued messages do not survive a
// restart, which is what a developer expects of a local run.
func startSQS() (string, stopper, error) {
	// goaws logs every call at info level; keep stdout for the API's logs.
	logrus.SetOutput(os.Stderr)
	logrus.SetLevel(logrus.WarnLevel)

	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return "", nil, err
	}
	port := strconv.Itoa(ln.Addr().(*net.TCPAddr).Port)
	// Queue URLs are built from these. With a region set goaws puts it in
	// front of the host name (us-east-1.127.0.0.1), which does not resolve.
	models.CurrentEnvironment = models.Environment{
		Host: "127.0.0.1", Port: port, SqsPort: port, AccountID: sqsAccountID,
		QueueAttributeDefaults: models.EnvQueueAttributes{
			VisibilityTimeout: 30, ReceiveMessageWaitTimeSeconds: 0,
			MaximumMessageSize: 262144, MessageRetentionPeriod: 345600,
		},
	}
	srv := &http.Server{Handler: goawsrouter.New(), ReadHeaderTimeout: 10 * time.Second}
	go func() { _ = srv.Serve(ln) }()
	// Visibility timeouts and moves to dead-letter queues run on this tick.
	quit := make(chan bool)
	go gosqs.PeriodicTasks(time.Second, quit)
	return "http://127.0.0.1:" + port, func(ctx context.Context) error {
		close(quit)
		return srv.Shutdown(ctx)
	}, nil
}

// createQueues creates every queue and its dead-letter queue; creating an
// existing queue is a no-op in SQS, so this is idempotent.
func createQueues(ctx context.Context, client *sqs.Client) (map[string]string, error) {
	urls := map[string]string{}
	for _, name := range Queues {
		dlq, err := client.CreateQueue(ctx, &sqs.CreateQueueInput{QueueName: aws.String(name + dlqSuffix)})
		if err != nil {
			return nil, fmt.Errorf("create queue %s: %w", name+dlqSuffix, err)
		}
		attrs, err := client.GetQueueAttributes(ctx, &sqs.GetQueueAttributesInput{
			QueueUrl: dlq.QueueUrl, AttributeNames: []sqstypes.QueueAttributeName{sqstypes.QueueAttributeNameQueueArn},
		})
		if err != nil {
			return nil, fmt.Errorf("queue %s: %w", name+dlqSuffix, err)
		}
		policy := fmt.Sprintf(`{"maxReceiveCount":%d,"deadLetterTargetArn":%q}`,
			maxReceiveCount, attrs.Attributes[string(sqstypes.QueueAttributeNameQueueArn)])
		q, err := client.CreateQueue(ctx, &sqs.CreateQueueInput{
			QueueName:  aws.String(name),
			Attributes: map[string]string{string(sqstypes.QueueAttributeNameRedrivePolicy): policy},
		})
		if err != nil {
			return nil, fmt.Errorf("create queue %s: %w", name, err)
		}
		urls[name], urls[name+dlqSuffix] = aws.ToString(q.QueueUrl), aws.ToString(dlq.QueueUrl)
	}
	return urls, nil
}
