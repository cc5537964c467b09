// Package sqslocal runs the SQS stand-in (goaws) in this process, for the
// local run and for tests. goaws keeps its queues in package-level state,
// so a process has one instance: Start starts it once and later calls
// return the same endpoint.
package sqslocal

import (
	"context"
	"encoding/json"
	"net"
	"net/http"
	"os"
	"strconv"
	"sync"
	"time"

	"github.com/Admiral-Piett/goaws/app/gosqs"
	"github.com/Admiral-Piett/goaws/app/models"
	goawsrouter "github.com/Admiral-Piett/goaws/app/router"
	"github.com/sirupsen/logrus"
)

// AccountID is the account in the stand-in's queue ARNs and URLs.
const AccountID = "000000000000"

var instance struct {
	once sync.Once
	url  string
	srv  *http.Server
	quit chan bool
	err  error
}

// Start serves goaws on a free loopback port (once per process) and
// returns its endpoint. Its periodic tasks (visibility timeouts, moves to
// dead-letter queues) run every second.
func Start() (string, error) {
	instance.once.Do(func() {
		// goaws logs every call at info level, and every long poll that
		// ends empty at warn level (a line per worker every 20 s): keep
		// stdout for the API's logs and stderr for real errors.
		logrus.SetOutput(os.Stderr)
		logrus.SetLevel(logrus.ErrorLevel)
		ln, err := net.Listen("tcp", "127.0.0.1:0")
		if err != nil {
			instance.err = err
			return
		}
		port := strconv.Itoa(ln.Addr().(*net.TCPAddr).Port)
		// Queue URLs are built from these. With a region set goaws puts it
		// in front of the host name (us-east-1.127.0.0.1), which does not
		// resolve.
		models.CurrentEnvironment = models.Environment{
			Host: "127.0.0.1", Port: port, SqsPort: port, AccountID: AccountID,
			QueueAttributeDefaults: models.EnvQueueAttributes{
				VisibilityTimeout: 30, ReceiveMessageWaitTimeSeconds: 0,
				MaximumMessageSize: 262144, MessageRetentionPeriod: 345600,
			},
		}
		instance.srv = &http.Server{Handler: countReceives(goawsrouter.New()), ReadHeaderTimeout: 10 * time.Second}
		go func() { _ = instance.srv.Serve(ln) }()
		instance.quit = make(chan bool)
		go gosqs.PeriodicTasks(time.Second, instance.quit)
		instance.url = "http://127.0.0.1:" + port
	})
	return instance.url, instance.err
}

// Stop shuts the stand-in down (the local run's exit).
func Stop(ctx context.Context) error {
	if instance.srv == nil {
		return nil
	}
	close(instance.quit)
	return instance.srv.Shutdown(ctx)
}

// countReceives answers ReceiveMessage (in the JSON protocol the SDK
// speaks) itself, through goaws' own handler, and passes everything else
// to goaws. goaws counts a message's returns to its queue (Retry: a
// visibility timeout that ran out, or a visibility set to 0), and moves
// the message to the dead-letter queue when that count reaches the
// redrive policy's maxReceiveCount; but it reports ApproximateReceiveCount
// from NumberOfReceives, a field it never increments, so every receipt
// said 1 and worker.Message.ReceiveCount was wrong locally. A message is
// received once more than it has returned, so the receipt's count is
// Retry+1: the same count the redrive uses, as in SQS, where the message
// moves after maxReceiveCount receipts.
func countReceives(next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.Header.Get("Content-Type") != "application/x-amz-json-1.0" || r.Header.Get("X-Amz-Target") != "AmazonSQS.ReceiveMessage" {
			next.ServeHTTP(w, r)
			return
		}
		status, body := gosqs.ReceiveMessageV1(r)
		if res, ok := body.(models.ReceiveMessageResponse); ok {
			setReceiveCounts(res.Result.Messages)
		}
		// As goaws' router encodes a JSON-protocol answer.
		w.Header().Set("x-amzn-RequestId", body.GetRequestId())
		w.Header().Set("Content-Type", "application/x-amz-json-1.0")
		w.WriteHeader(status)
		if result := body.GetResult(); result != nil {
			_ = json.NewEncoder(w).Encode(result)
		}
	})
}

// setReceiveCounts sets each received message's ApproximateReceiveCount
// from the stand-in's state: the message still in flight under the
// receipt handle just issued.
func setReceiveCounts(msgs []*models.ResultMessage) {
	if len(msgs) == 0 {
		return
	}
	byHandle := make(map[string]*models.ResultMessage, len(msgs))
	for _, m := range msgs {
		byHandle[m.ReceiptHandle] = m
	}
	models.SyncQueues.RLock()
	defer models.SyncQueues.RUnlock()
	for _, q := range models.SyncQueues.Queues {
		for i := range q.Messages {
			if m := byHandle[q.Messages[i].ReceiptHandle]; m != nil && q.Messages[i].ReceiptHandle != "" {
				if m.Attributes == nil {
					m.Attributes = map[string]string{}
				}
				m.Attributes["ApproximateReceiveCount"] = strconv.Itoa(q.Messages[i].Retry + 1)
			}
		}
	}
}
