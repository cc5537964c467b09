// Package sqsqueue sends to the work queues (shared/queues) through SQS.
// It is apart from shared/queues, which every function imports for the
// queues' names, so that only a function whose group sends (its Sends)
// links the SQS client; shared/groups tests this with go list.
package sqsqueue

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/sqs"
	"github.com/aws/aws-sdk-go-v2/service/sqs/types"
	"github.com/bookplatform/backend/shared/callstats"
	"github.com/bookplatform/backend/shared/queues"
)

// ErrNoQueueURL is a send to a queue the Sender was not given, or a
// queue whose URL variable is not set.
var ErrNoQueueURL = errors.New("queue URL not configured")

// NewClient builds the SQS client. The endpoint comes from the SDK's
// standard AWS_ENDPOINT_URL_SQS, so one binary runs against the local
// stand-in or AWS. Every call goes through callstats.Middleware: it is
// recorded, and a send from a context that may have no side effects is
// refused.
func NewClient(cfg aws.Config) *sqs.Client {
	return sqs.NewFromConfig(cfg, func(o *sqs.Options) {
		o.APIOptions = append(o.APIOptions, callstats.Middleware("sqs", nil))
	})
}

// Sender sends messages to the work queues.
type Sender struct {
	client *sqs.Client
	urls   map[queues.Name]string
}

// NewSender returns a sender over client (NewClient) to the queues of
// names: a function passes its group's Sends, the local run All. Each
// queue's URL is read once, now, from its variable (Name.URLEnv) through
// getenv (os.Getenv; a map in tests), so a missing variable stops the
// process at start rather than failing its first send; the error names
// every missing variable at once. Errors: ErrNoQueueURL.
func NewSender(client *sqs.Client, getenv func(string) string, names ...queues.Name) (*Sender, error) {
	s := &Sender{client: client, urls: map[queues.Name]string{}}
	var errs []error
	for _, n := range names {
		u := strings.TrimSpace(getenv(n.URLEnv()))
		if u == "" {
			errs = append(errs, fmt.Errorf("queue %s: %w: %s is not set", n, ErrNoQueueURL, n.URLEnv()))
			continue
		}
		s.urls[n] = u
	}
	if len(errs) > 0 {
		return nil, errors.Join(errs...)
	}
	return s, nil
}

// Send sends body to queue q as one message (one SendMessage call: the
// local stand-in answers SendMessageBatch with a reply the SDK misreads).
// key, when not empty, goes in the queues.KeyAttribute attribute; a consumer
// then runs the work of a key once however often it is sent. body must be
// UTF-8 text (JSON), as SQS requires.
//
// Errors: ErrNoQueueURL, effects.ErrReadOnly (a send before the request
// is admitted), and SQS failures.
func (s *Sender) Send(ctx context.Context, q queues.Name, body []byte, key string) error {
	return s.SendDelayed(ctx, q, body, key, 0)
}

// MaxDelay is the longest SQS hides a new message (DelaySeconds).
const MaxDelay = 15 * time.Minute

// SendDelayed is Send with the message hidden from consumers for delay
// (whole seconds, at most MaxDelay; a longer wait is the sender's to
// split, as the webhook retries' hops do). Errors: as Send's, and a
// delay out of range.
func (s *Sender) SendDelayed(ctx context.Context, q queues.Name, body []byte, key string, delay time.Duration) error {
	if delay < 0 || delay > MaxDelay {
		return fmt.Errorf("send to %s: delay %s is not within 0 and %s", q, delay, MaxDelay)
	}
	url, ok := s.urls[q]
	if !ok {
		return fmt.Errorf("send to %s: %w: the sender was built without it (list it in the group's Sends; its URL variable is %s)", q, ErrNoQueueURL, q.URLEnv())
	}
	if !utf8.Valid(body) {
		return fmt.Errorf("send to %s: body is not UTF-8 text", q)
	}
	in := &sqs.SendMessageInput{QueueUrl: aws.String(url), MessageBody: aws.String(string(body))}
	if secs := int32(delay / time.Second); secs > 0 {
		in.DelaySeconds = secs
	}
	if key != "" {
		in.MessageAttributes = map[string]types.MessageAttributeValue{
			queues.KeyAttribute: {DataType: aws.String("String"), StringValue: aws.String(key)},
		}
	}
	if _, err := s.client.SendMessage(ctx, in); err != nil {
		return fmt.Errorf("send to %s: %w", q, err)
	}
	return nil
}
