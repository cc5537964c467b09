package main

import (
	"bytes"
	"context"
	"io"
	"net/http"
	"testing"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/s3"
	"github.com/aws/aws-sdk-go-v2/service/sqs"
	sqstypes "github.com/aws/aws-sdk-go-v2/service/sqs/types"
	"github.com/bookplatform/backend/local/testenv"
	"github.com/bookplatform/backend/shared/users"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func TestMain(m *testing.M) { testenv.Main(m) }

func TestSeedDemo_createsMissingAccountsOnce(t *testing.T) {
	t.Parallel()
	env := testenv.New(t)
	ctx := context.Background()
	require.NoError(t, seedDemo(ctx, env.App))

	// A demo account whose tier was changed gets it back; the rest is kept.
	premium, err := env.App.Store.GetUserByEmail(ctx, "premium@example.com")
	require.NoError(t, err)
	_, err = env.App.Users.SetTier(ctx, premium.ID, users.TierFree)
	require.NoError(t, err)
	require.NoError(t, seedDemo(ctx, env.App), "a second run finds the accounts")

	for _, d := range demoAccounts {
		t.Run(d.Email, func(t *testing.T) {
			res := env.Do("POST", "/v1/auth/login", map[string]any{"email": d.Email, "password": DemoPassword}, "")
			require.Equal(t, http.StatusOK, res.Status, res.String())
			me := env.Do("GET", "/v1/users/me", nil, res.JSON["token"].(string))
			assert.Equal(t, string(d.Tier), me.JSON["tier"])
			assert.Equal(t, d.Username, me.JSON["username"])
		})
	}
	again, err := env.App.Store.GetUserByEmail(ctx, "premium@example.com")
	require.NoError(t, err)
	assert.Equal(t, premium.ID, again.ID, "the account is not created twice")
}

func TestStartS3_keepsObjectsAcrossRestarts(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	ctx := context.Background()
	client := func(url string) *s3.Client {
		return s3.NewFromConfig(testenv.AWSConfig(map[string]string{"S3": url}), func(o *s3.Options) { o.UsePathStyle = true })
	}

	url, stop, err := startS3(dir, "media")
	require.NoError(t, err)
	_, err = client(url).PutObject(ctx, &s3.PutObjectInput{
		Bucket: aws.String("media"), Key: aws.String("avatars/u/a.png"),
		Body: bytes.NewReader([]byte("png bytes")), ContentType: aws.String("image/png"),
	})
	require.NoError(t, err)
	require.NoError(t, stop(ctx))

	url, stop, err = startS3(dir, "media")
	require.NoError(t, err)
	defer stop(ctx)
	got, err := client(url).GetObject(ctx, &s3.GetObjectInput{Bucket: aws.String("media"), Key: aws.String("avatars/u/a.png")})
	require.NoError(t, err)
	data, _ := io.ReadAll(got.Body)
	got.Body.Close()
	assert.Equal(t, "png bytes", string(data))
	assert.Equal(t, "image/png", aws.ToString(got.ContentType))
}

// goaws keeps global state, so this is the only test that starts it.
func TestStartSQS_queuesWithDeadLetterQueues(t *testing.T) {
	t.Parallel()
	url, stop, err := startSQS()
	require.NoError(t, err)
	defer stop(context.Background())
	ctx := context.Background()
	client := sqs.NewFromConfig(testenv.AWSConfig(map[string]string{"SQS": url}))

	queues, err := createQueues(ctx, client)
	require.NoError(t, err)
	again, err := createQueues(ctx, client)
	require.NoError(t, err, "creating the queues again is a no-op")
	assert.Equal(t, queues, again)
	assert.Len(t, queues, 2*len(Queues))

	q := queues["csv-import"]
	attrs, err := client.GetQueueAttributes(ctx, &sqs.GetQueueAttributesInput{QueueUrl: aws.String(q), AttributeNames: []sqstypes.QueueAttributeName{sqstypes.QueueAttributeNameRedrivePolicy}})
	require.NoError(t, err)
	assert.Contains(t, attrs.Attributes["RedrivePolicy"], "csv-import-dlq")

	_, err = client.SendMessage(ctx, &sqs.SendMessageInput{QueueUrl: aws.String(q), MessageBody: aws.String(`{"uploadId":"u1"}`)})
	require.NoError(t, err)
	out, err := client.ReceiveMessage(ctx, &sqs.ReceiveMessageInput{QueueUrl: aws.String(q), MaxNumberOfMessages: 1})
	require.NoError(t, err)
	require.Len(t, out.Messages, 1)
	assert.Equal(t, `{"uploadId":"u1"}`, aws.ToString(out.Messages[0].Body))
}
