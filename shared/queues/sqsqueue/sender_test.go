package sqsqueue

import (
	"context"
	"testing"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/credentials"
	"github.com/bookplatform/backend/shared/effects"
	"github.com/bookplatform/backend/shared/queues"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// offlineConfig points the client at an endpoint that refuses connections: a
// call that gets past the checks under test fails with a network error,
// not with the error the test expects.
func offlineConfig() aws.Config {
	return aws.Config{
		Region:       "us-east-1",
		Credentials:  credentials.NewStaticCredentialsProvider("test", "test", ""),
		BaseEndpoint: aws.String("http://127.0.0.1:1"),
	}
}

func env(m map[string]string) func(string) string { return func(k string) string { return m[k] } }

func TestNewSender_namesEveryMissingVariable(t *testing.T) {
	_, err := NewSender(NewClient(offlineConfig()), env(map[string]string{
		queues.CSVImport.URLEnv(): "http://sqs.local/000000000000/csv-import",
	}), queues.CSVImport, queues.POSSync, queues.Webhooks)
	require.ErrorIs(t, err, ErrNoQueueURL)
	assert.Contains(t, err.Error(), "QUEUE_URL_POS_SYNC")
	assert.Contains(t, err.Error(), "QUEUE_URL_WEBHOOKS")
	assert.NotContains(t, err.Error(), "QUEUE_URL_CSV_IMPORT")
}

func TestSend_refusals(t *testing.T) {
	s, err := NewSender(NewClient(offlineConfig()), env(map[string]string{
		queues.CSVImport.URLEnv(): "http://127.0.0.1:1/000000000000/csv-import",
	}), queues.CSVImport)
	require.NoError(t, err)
	ctx := context.Background()

	t.Run("a queue the sender was not built for", func(t *testing.T) {
		err := s.Send(ctx, queues.Webhooks, []byte(`{}`), "")
		require.ErrorIs(t, err, ErrNoQueueURL)
		assert.Contains(t, err.Error(), "QUEUE_URL_WEBHOOKS")
	})
	t.Run("a read-only context", func(t *testing.T) {
		err := s.Send(effects.ReadOnly(ctx), queues.CSVImport, []byte(`{}`), "k")
		require.ErrorIs(t, err, effects.ErrReadOnly)
		assert.Contains(t, err.Error(), "sqs:SendMessage")
	})
	t.Run("a delay SQS does not take", func(t *testing.T) {
		for _, d := range []time.Duration{-time.Second, MaxDelay + time.Second} {
			err := s.SendDelayed(ctx, queues.CSVImport, []byte(`{}`), "k", d)
			require.Error(t, err)
			assert.Contains(t, err.Error(), "delay")
		}
	})
	t.Run("a body that is not text", func(t *testing.T) {
		err := s.Send(ctx, queues.CSVImport, []byte{0xff, 0xfe}, "")
		require.Error(t, err)
		assert.Contains(t, err.Error(), "UTF-8")
	})
}
