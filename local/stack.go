package main

import (
	"context"
	"errors"
	"fmt"
	"github.com/bookplatform/backend/shared/dynamo"
	"net"
	"net/http"
	"os"
	"path/filepath"
	"strconv"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/sqs"
	sqstypes "github.com/aws/aws-sdk-go-v2/service/sqs/types"
	"github.com/bookplatform/backend/local/sqslocal"
	"github.com/bookplatform/backend/local/streampoll"
	"github.com/bookplatform/backend/local/stripelocal"
	"github.com/bookplatform/backend/shared/api"
	"github.com/bookplatform/backend/shared/app"
	"github.com/bookplatform/backend/shared/payments"
	"github.com/bookplatform/backend/shared/queues"
	"github.com/bookplatform/backend/shared/relay"
	"github.com/bookplatform/backend/shared/relay/registry"
	"github.com/bookplatform/backend/shared/worker"
	"github.com/bookplatform/backend/shared/worker/sqspoll"
	"github.com/johannesboyne/gofakes3"
	"github.com/johannesboyne/gofakes3/backend/s3bolt"
	bolt "go.etcd.io/bbolt"
	"golang.org/x/sync/errgroup"
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

// startPayments serves the Stripe stand-in (in memory) on its own
// loopback port, sending its webhooks to api's receiver
// (/v1/payments/webhook), and points the payments settings at it, unless
// they name another provider: a key alone (or its ARN) is Stripe's test
// mode, STRIPE_API_BASE another stand-in. It returns the stand-in's URL.
func startPayments(api string) (string, stopper, error) {
	url, stop, err := serveLoopback(stripelocal.New(stripelocal.WithWebhook(api+"/v1/payments/webhook", stripelocal.WebhookSecret)))
	if err != nil {
		return "", nil, err
	}
	if os.Getenv(payments.EnvStripeAPIBase) == "" && os.Getenv(payments.EnvStripeAPIKey) == "" && os.Getenv(payments.EnvStripeAPIKeySecretARN) == "" {
		setAll(map[string]string{payments.EnvStripeAPIBase: url, payments.EnvStripeAPIKey: stripelocal.APIKey,
			payments.EnvStripeWebhookSecret: stripelocal.WebhookSecret, payments.EnvStripeWebhookSecretARN: ""})
	}
	return url, stop, nil
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

// startSQS serves the SQS stand-in (goaws, local/sqslocal) in this
// process. It is in memory: queued messages do not survive a restart,
// which is what a developer expects of a local run.
func startSQS() (string, stopper, error) {
	url, err := sqslocal.Start()
	return url, sqslocal.Stop, err
}

// createQueues creates each named queue (the local run passes
// queues.All) with its dead-letter queue and the settings the CDK stack
// gives them: the redrive policy after queues.MaxReceiveCount receipts and
// the visibility timeout. It returns the URL of each queue and of each
// dead-letter queue. Creating an existing queue is a no-op in SQS, so
// this is idempotent.
func createQueues(ctx context.Context, client *sqs.Client, names []queues.Name) (map[queues.Name]string, error) {
	urls := map[queues.Name]string{}
	for _, name := range names {
		// As infra/queues.go: the dead-letter queue keeps a message for
		// queues.DLQRetention (goaws records it, expires nothing).
		dlq, err := client.CreateQueue(ctx, &sqs.CreateQueueInput{QueueName: aws.String(string(name.DLQ())),
			Attributes: map[string]string{
				string(sqstypes.QueueAttributeNameMessageRetentionPeriod): strconv.Itoa(int(queues.DLQRetention / time.Second)),
			}})
		if err != nil {
			return nil, fmt.Errorf("create queue %s: %w", name.DLQ(), err)
		}
		attrs, err := client.GetQueueAttributes(ctx, &sqs.GetQueueAttributesInput{
			QueueUrl: dlq.QueueUrl, AttributeNames: []sqstypes.QueueAttributeName{sqstypes.QueueAttributeNameQueueArn},
		})
		if err != nil {
			return nil, fmt.Errorf("queue %s: %w", name.DLQ(), err)
		}
		policy := fmt.Sprintf(`{"maxReceiveCount":%d,"deadLetterTargetArn":%q}`,
			queues.MaxReceiveCount, attrs.Attributes[string(sqstypes.QueueAttributeNameQueueArn)])
		q, err := client.CreateQueue(ctx, &sqs.CreateQueueInput{
			QueueName: aws.String(string(name)),
			Attributes: map[string]string{
				string(sqstypes.QueueAttributeNameRedrivePolicy):     policy,
				string(sqstypes.QueueAttributeNameVisibilityTimeout): strconv.Itoa(int(queues.VisibilityTimeout / time.Second)),
			},
		})
		if err != nil {
			return nil, fmt.Errorf("create queue %s: %w", name, err)
		}
		urls[name], urls[name.DLQ()] = aws.ToString(q.QueueUrl), aws.ToString(dlq.QueueUrl)
	}
	return urls, nil
}

// queueURLEnv is the QUEUE_URL_* variable of each named queue, for a
// process whose functions send to them (shared/queues/sqsqueue: NewSender).
func queueURLEnv(urls map[queues.Name]string, names []queues.Name) map[string]string {
	env := map[string]string{}
	for _, n := range names {
		env[n.URLEnv()] = urls[n]
	}
	return env
}

// withDLQs is names and each one's dead-letter queue: a worker that
// gives up on a message itself sends it there (the webhook deliveries).
func withDLQs(names []queues.Name) []queues.Name {
	var out []queues.Name
	for _, n := range names {
		out = append(out, n, n.DLQ())
	}
	return out
}

// startWorkers starts one poller per worker group of groups, each running
// the group's handler through worker.Lambda on its queue as its Lambda
// does in AWS, with the app's idempotency records. The stopper ends the
// pollers and waits for the batches they are running.
func startWorkers(client *sqs.Client, urls map[queues.Name]string, groups []api.Group, a *app.App) (stopper, error) {
	for _, grp := range groups {
		if w := grp.Worker; w != nil && urls[w.Queue] == "" {
			return nil, fmt.Errorf("worker group %s consumes queue %s, which the local run did not create", grp.Name, w.Queue)
		}
	}
	ctx, cancel := context.WithCancel(context.Background())
	var g errgroup.Group
	for _, grp := range groups {
		w := grp.Worker
		if w == nil {
			continue
		}
		logger := a.Logger.With("group", grp.Name)
		handle := worker.Lambda(w.Handle, dynamo.NewIdempotency(a.Table), w.Queue, a.Now, logger)
		g.Go(func() error {
			sqspoll.Poll(ctx, client, urls[w.Queue], w.BatchSize, handle, logger)
			return nil
		})
	}
	return func(stopCtx context.Context) error {
		cancel()
		done := make(chan error, 1)
		go func() { done <- g.Wait() }()
		select {
		case err := <-done:
			return err
		case <-stopCtx.Done():
			return fmt.Errorf("workers still running a batch: %w", stopCtx.Err())
		}
	}, nil
}

// startRelay runs the outbox relay (shared/relay, with every registered
// consumer) fed by DynamoDB Local's stream of the table, as the relay
// function is fed by the stream event source in AWS. The stopper ends the
// poller and waits for the batch it is running.
func startRelay(a *app.App, awsCfg aws.Config, endpoint string) stopper {
	ctx, cancel := context.WithCancel(context.Background())
	logger := a.Logger.With("function", "relay")
	r := a.Relay(registry.Consumers(a.Deps())...)
	done := make(chan error, 1)
	go func() {
		done <- streampoll.Run(ctx, streampoll.Options{
			AWS: awsCfg, Endpoint: endpoint, DB: a.DB, Table: a.Config.TableName,
			Filter: relay.Selects, Handle: r.Handle, Logger: logger,
		})
	}()
	return func(stopCtx context.Context) error {
		cancel()
		select {
		case err := <-done:
			return err
		case <-stopCtx.Done():
			return fmt.Errorf("relay still running a batch: %w", stopCtx.Err())
		}
	}
}
