package app

import (
	"context"
	"errors"
	"net/http"
	"net/http/httptest"
	"sync/atomic"
	"testing"
	"time"

	"github.com/aws/aws-lambda-go/events"
	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/credentials"
	"github.com/bookplatform/backend/shared/tracing"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// A worker's, the relay's or a job's invocation is the root of its own
// trace, kept (sent to X-Ray) when it failed: an error, or records given
// back for another attempt; a successful one is not, at rate 0.
func TestTraced_KeepsFailedInvocations(t *testing.T) {
	var puts atomic.Int32
	xray := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		puts.Add(1)
		_, _ = w.Write([]byte(`{"UnprocessedTraceSegments":[]}`))
	}))
	defer xray.Close()
	env := map[string]string{"AWS_LAMBDA_FUNCTION_NAME": "bookplatform-webhookdelivery", tracing.EnvEndpoint: xray.URL, tracing.EnvSampleRate: "0"}
	cfg := aws.Config{Region: "us-east-1", Credentials: credentials.NewStaticCredentialsProvider("k", "s", "")}
	on, err := tracing.Setup(func(k string) string { return env[k] }, cfg, nil)
	require.NoError(t, err)
	require.True(t, on)
	defer func() { _ = tracing.Shutdown(context.Background()) }()

	sqs := func(failures int, err error) func(context.Context, events.SQSEvent) (events.SQSEventResponse, error) {
		return traced("worker webhooks", func(context.Context, events.SQSEvent) (events.SQSEventResponse, error) {
			var r events.SQSEventResponse
			for range failures {
				r.BatchItemFailures = append(r.BatchItemFailures, events.SQSBatchItemFailure{ItemIdentifier: "m1"})
			}
			return r, err
		})
	}
	stream := traced("relay", func(context.Context, events.DynamoDBEvent) (events.DynamoDBEventResponse, error) {
		return events.DynamoDBEventResponse{BatchItemFailures: []events.DynamoDBBatchItemFailure{{ItemIdentifier: "1"}}}, nil
	})

	_, _ = sqs(0, nil)(t.Context(), events.SQSEvent{})
	assert.Zero(t, puts.Load(), "a successful batch is not kept at rate 0")
	r, _ := sqs(1, nil)(t.Context(), events.SQSEvent{})
	assert.Len(t, r.BatchItemFailures, 1, "the handler's answer, unchanged")
	assert.EqualValues(t, 1, puts.Load(), "a batch with a failed message is kept")
	_, err = sqs(0, errors.New("down"))(t.Context(), events.SQSEvent{})
	assert.EqualError(t, err, "down")
	assert.EqualValues(t, 2, puts.Load(), "a failed invocation is kept")
	_, _ = stream(t.Context(), events.DynamoDBEvent{})
	assert.EqualValues(t, 3, puts.Load(), "a stream batch with a failed record is kept")

	job := traced("job", func(context.Context, struct{}) (struct{}, error) { panic("boom") })
	assert.PanicsWithValue(t, "boom", func() { _, _ = job(t.Context(), struct{}{}) }, "the panic goes on")
	assert.EqualValues(t, 4, puts.Load(), "a panicking invocation is kept and sent first")

	near, cancel := context.WithTimeout(t.Context(), 30*time.Millisecond)
	defer cancel()
	_, _ = sqs(1, nil)(near, events.SQSEvent{})
	assert.EqualValues(t, 4, puts.Load(), "too near its deadline, a kept trace is not sent")
}
