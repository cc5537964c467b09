package queues

import (
	"context"
	"slices"
	"strings"
	"testing"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/credentials"
	"github.com/bookplatform/backend/shared/config"
	"github.com/bookplatform/backend/shared/effects"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func TestNames(t *testing.T) {
	assert.Equal(t, Name("csv-import-dlq"), CSVImport.DLQ())
	assert.Equal(t, "QUEUE_URL_CSV_IMPORT", CSVImport.URLEnv())
	assert.Equal(t, "QUEUE_URL_POS_SYNC", POSSync.URLEnv())
	seen := map[Name]bool{}
	for _, n := range All {
		assert.False(t, seen[n], "%s listed twice", n)
		seen[n] = true
	}
}

// The variable names live in shared/config with the others; URLEnv derives
// them. A queue added to All without its config name fails here.
func TestURLEnv_isNamedInConfig(t *testing.T) {
	var derived []string
	for _, n := range All {
		derived = append(derived, n.URLEnv())
		assert.Contains(t, config.Names, n.URLEnv(), "queue %s: add %s to shared/config", n, n.URLEnv())
	}
	for _, name := range config.Names {
		if strings.HasPrefix(name, "QUEUE_URL_") {
			assert.True(t, slices.Contains(derived, name), "config names %s, which no queue of All uses", name)
		}
	}
	assert.Equal(t, config.EnvQueueURLCSVImport, CSVImport.URLEnv())
	assert.Equal(t, config.EnvQueueURLPOSSync, POSSync.URLEnv())
	assert.Equal(t, config.EnvQueueURLWebhooks, Webhooks.URLEnv())
}

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
		CSVImport.URLEnv(): "http://sqs.local/000000000000/csv-import",
	}), CSVImport, POSSync, Webhooks)
	require.ErrorIs(t, err, ErrNoQueueURL)
	assert.Contains(t, err.Error(), "QUEUE_URL_POS_SYNC")
	assert.Contains(t, err.Error(), "QUEUE_URL_WEBHOOKS")
	assert.NotContains(t, err.Error(), "QUEUE_URL_CSV_IMPORT")
}

func TestSend_refusals(t *testing.T) {
	s, err := NewSender(NewClient(offlineConfig()), env(map[string]string{
		CSVImport.URLEnv(): "http://127.0.0.1:1/000000000000/csv-import",
	}), CSVImport)
	require.NoError(t, err)
	ctx := context.Background()

	t.Run("a queue the sender was not built for", func(t *testing.T) {
		err := s.Send(ctx, Webhooks, []byte(`{}`), "")
		require.ErrorIs(t, err, ErrNoQueueURL)
		assert.Contains(t, err.Error(), "QUEUE_URL_WEBHOOKS")
	})
	t.Run("a read-only context", func(t *testing.T) {
		err := s.Send(effects.ReadOnly(ctx), CSVImport, []byte(`{}`), "k")
		require.ErrorIs(t, err, effects.ErrReadOnly)
		assert.Contains(t, err.Error(), "sqs:SendMessage")
	})
	t.Run("a body that is not text", func(t *testing.T) {
		err := s.Send(ctx, CSVImport, []byte{0xff, 0xfe}, "")
		require.Error(t, err)
		assert.Contains(t, err.Error(), "UTF-8")
	})
}
