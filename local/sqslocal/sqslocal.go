// Package sqslocal runs the SQS stand-in (goaws) in this process, for the
// local run and for tests. goaws keeps its queues in package-level state,
// so a process has one instance: Start starts it once and later calls
// return the same endpoint.
package sqslocal

import (
	"context"
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
		instance.srv = &http.Server{Handler: goawsrouter.New(), ReadHeaderTimeout: 10 * time.Second}
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
