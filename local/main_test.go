package main

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/s3"
	"github.com/aws/aws-sdk-go-v2/service/sqs"
	sqstypes "github.com/aws/aws-sdk-go-v2/service/sqs/types"
	"github.com/bookplatform/backend/local/devserver"
	"github.com/bookplatform/backend/local/testenv"
	"github.com/bookplatform/backend/shared/api"
	"github.com/bookplatform/backend/shared/config"
	"github.com/bookplatform/backend/shared/dynamo"
	"github.com/bookplatform/backend/shared/queues"
	"github.com/bookplatform/backend/shared/queues/sqsqueue"
	"github.com/bookplatform/backend/shared/users"
	"github.com/bookplatform/backend/shared/worker"
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
	premium, err := dynamo.NewUsers(env.App.Table).GetUserByEmail(ctx, "premium@example.com")
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
	again, err := dynamo.NewUsers(env.App.Table).GetUserByEmail(ctx, "premium@example.com")
	require.NoError(t, err)
	assert.Equal(t, premium.ID, again.ID, "the account is not created twice")

	t.Run("the demo stores and their roles", func(t *testing.T) {
		login := func(email string) string {
			res := env.Do("POST", "/v1/auth/login", map[string]any{"email": email, "password": DemoPassword}, "")
			require.Equal(t, http.StatusOK, res.Status, res.String())
			return res.JSON["token"].(string)
		}
		mine := env.Do("GET", "/v1/stores/my", nil, login("owner@example.com"))
		require.Equal(t, http.StatusOK, mine.Status, mine.String())
		other := env.Do("GET", "/v1/stores/my", nil, login("owner2@example.com"))
		require.Equal(t, http.StatusOK, other.Status, other.String())
		assert.NotEqual(t, mine.JSON["city"], other.JSON["city"], "two cities")
		for _, st := range []map[string]any{mine.JSON, other.JSON} {
			assert.NotEmpty(t, st["addressLine1"])
			assert.NotNil(t, st["latitude"])
			assert.NotNil(t, st["longitude"])
			assert.Len(t, st["hours"], 7)
			assert.Greater(t, st["taxRate"], 0.0)
		}
		staff := login("staff@example.com")
		me := env.Do("GET", "/v1/users/me", nil, staff).JSON
		assert.Equal(t, "free", me["tier"])
		assert.Equal(t, []string{mine.JSON["id"].(string)}, env.Item(t, dynamo.UserKey(me["id"].(string)))["staffAt"])
		testenv.AssertError(t, env.Do("GET", "/v1/stores/my", nil, staff), http.StatusNotFound, "NotFound", "")
		seller := login("bookseller@example.com")
		testenv.AssertError(t, env.Do("GET", "/v1/stores/my", nil, seller), http.StatusNotFound, "NotFound", "")
		assert.Equal(t, "bookstore", env.Do("GET", "/v1/users/me", nil, seller).JSON["tier"])
		res := env.Do("GET", "/v1/stores/"+mine.JSON["slug"].(string)+"/staff", nil, login("owner@example.com"))
		assert.Len(t, res.JSON["items"], 1)
		require.NoError(t, seedDemo(ctx, env.App), "a third run changes no store")
		assert.Len(t, env.Do("GET", "/v1/stores/"+mine.JSON["slug"].(string)+"/staff", nil, login("owner@example.com")).JSON["items"], 1)
		t.Run("the first store hosts a club and a challenge, once", func(t *testing.T) {
			slug := mine.JSON["slug"].(string)
			clubs := env.Do("GET", "/v1/stores/"+slug+"/clubs", nil, "")
			require.Equal(t, http.StatusOK, clubs.Status, clubs.String())
			require.Len(t, clubs.JSON["clubs"], 1)
			c := clubs.JSON["clubs"].([]any)[0].(map[string]any)
			assert.Equal(t, true, c["isPublic"])
			assert.Equal(t, mine.JSON["ownerUserId"], c["hostId"])
			challenges := env.Do("GET", "/v1/stores/"+slug+"/challenges", nil, "")
			require.Equal(t, http.StatusOK, challenges.Status, challenges.String())
			assert.Len(t, challenges.JSON["challenges"], 1)
			assert.Empty(t, env.Do("GET", "/v1/stores/"+other.JSON["slug"].(string)+"/clubs", nil, "").JSON["clubs"])
		})
	})
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

// goaws keeps global state, so this is the only test that starts it; its
// subtests share the instance, each on queues of its own.
func TestSQS(t *testing.T) {
	t.Parallel()
	url, stop, err := startSQS()
	require.NoError(t, err)
	t.Cleanup(func() { _ = stop(context.Background()) })
	client := sqsqueue.NewClient(testenv.AWSConfig(map[string]string{"SQS": url}))

	t.Run("every queue has its dead-letter queue", func(t *testing.T) {
		t.Parallel()
		testQueuesCreated(t, client)
	})
	t.Run("a worker group consumes what the sender sends, once per key", func(t *testing.T) {
		t.Parallel()
		testWorkerConsumes(t, client)
	})
	t.Run("a message that always fails ends in the dead-letter queue", func(t *testing.T) {
		t.Parallel()
		testPoisonMessage(t, client)
	})
}

func testQueuesCreated(t *testing.T, client *sqs.Client) {
	ctx := context.Background()
	urls, err := createQueues(ctx, client, queues.All)
	require.NoError(t, err)
	again, err := createQueues(ctx, client, queues.All)
	require.NoError(t, err, "creating the queues again is a no-op")
	assert.Equal(t, urls, again)
	assert.Len(t, urls, 2*len(queues.All))

	for _, n := range queues.All {
		attrs := queueAttributes(t, client, urls[n])
		var policy map[string]any
		require.NoError(t, json.Unmarshal([]byte(attrs["RedrivePolicy"]), &policy), "queue %s", n)
		assert.Equal(t, strconv.Itoa(queues.MaxReceiveCount), fmt.Sprint(policy["maxReceiveCount"]), "queue %s", n)
		assert.True(t, strings.HasSuffix(fmt.Sprint(policy["deadLetterTargetArn"]), ":"+string(n.DLQ())), "queue %s: %v", n, policy)
		assert.Equal(t, strconv.Itoa(int(queues.VisibilityTimeout/time.Second)), attrs["VisibilityTimeout"], "queue %s", n)
		assert.NotEmpty(t, urls[n.DLQ()], "queue %s", n.DLQ())
		assert.Equal(t, strconv.Itoa(int(queues.DLQRetention/time.Second)), queueAttributes(t, client, urls[n.DLQ()])["MessageRetentionPeriod"],
			"queue %s: the dead letters' retention, as in CDK", n.DLQ())
	}

	// The process gets one URL variable per queue, under config's names.
	env := queueURLEnv(urls, queues.All)
	assert.Len(t, env, len(queues.All))
	assert.Equal(t, urls[queues.CSVImport], env[config.EnvQueueURLCSVImport])
	assert.Equal(t, urls[queues.Webhooks], env[config.EnvQueueURLWebhooks])
}

func testWorkerConsumes(t *testing.T, client *sqs.Client) {
	ctx := context.Background()
	env := testenv.New(t)
	const q queues.Name = "test-consume"
	urls, err := createQueues(ctx, client, []queues.Name{q})
	require.NoError(t, err)

	// GIVEN a worker group on q (beside a group without a worker, which gets no poller)
	got := make(chan worker.Message, 10)
	groups := []api.Group{
		{Name: "http"},
		{Name: "consumer", Worker: &api.Worker{Queue: q, BatchSize: 10, Handle: func(_ context.Context, m worker.Message) error {
			got <- m
			return nil
		}}},
	}
	stopWorkers, err := startWorkers(client, urls, groups, env.App)
	require.NoError(t, err)

	// WHEN the sender sends a message with a key, one without, and the first one's work again
	sender, err := sqsqueue.NewSender(client, lookup(queueURLEnv(urls, []queues.Name{q})), q)
	require.NoError(t, err)
	require.NoError(t, sender.Send(ctx, q, []byte(`{"uploadId":"u1"}`), "upload-u1"))
	require.NoError(t, sender.Send(ctx, q, []byte(`{"ping":true}`), ""))
	require.NoError(t, sender.Send(ctx, q, []byte(`{"uploadId":"u1","resent":true}`), "upload-u1"))

	// THEN every message leaves the queue and the handler ran once per key
	waitFor(t, 30*time.Second, "the queue to be empty", func() bool {
		return queueAttributes(t, client, urls[q])["ApproximateNumberOfMessages"] == "0"
	})
	stopCtx, cancel := context.WithTimeout(ctx, 5*time.Second)
	defer cancel()
	require.NoError(t, stopWorkers(stopCtx), "the pollers stop, long poll or not")
	close(got)
	var msgs []worker.Message
	for m := range got {
		msgs = append(msgs, m)
	}
	require.Len(t, msgs, 2, "%+v", msgs)
	assert.Equal(t, "upload-u1", msgs[0].Key, "the key attribute reaches the handler")
	assert.Equal(t, `{"uploadId":"u1"}`, string(msgs[0].Body))
	assert.Equal(t, msgs[1].ID, msgs[1].Key, "a message without a key is keyed by its id")
	assert.Equal(t, `{"ping":true}`, string(msgs[1].Body))
	assert.Equal(t, 1, msgs[1].ReceiveCount)
}

func testPoisonMessage(t *testing.T, client *sqs.Client) {
	ctx := context.Background()
	env := testenv.New(t)
	const q queues.Name = "test-poison"
	urls, err := createQueues(ctx, client, []queues.Name{q})
	require.NoError(t, err)
	// A one-second visibility timeout (AWS: queues.VisibilityTimeout) makes
	// the five receipts take seconds, not minutes.
	_, err = client.SetQueueAttributes(ctx, &sqs.SetQueueAttributesInput{
		QueueUrl:   aws.String(urls[q]),
		Attributes: map[string]string{string(sqstypes.QueueAttributeNameVisibilityTimeout): "1"},
	})
	require.NoError(t, err)

	var (
		calls    atomic.Int32
		mu       sync.Mutex
		receipts []int // the ReceiveCount each call saw
	)
	stopWorkers, err := startWorkers(client, urls, []api.Group{{Name: "poison", Worker: &api.Worker{Queue: q, BatchSize: 1,
		Handle: func(_ context.Context, m worker.Message) error {
			calls.Add(1)
			mu.Lock()
			receipts = append(receipts, m.ReceiveCount)
			mu.Unlock()
			return errors.New("cannot parse the upload")
		}}}}, env.App)
	require.NoError(t, err)
	t.Cleanup(func() { _ = stopWorkers(context.Background()) })

	sender, err := sqsqueue.NewSender(client, lookup(queueURLEnv(urls, []queues.Name{q})), q)
	require.NoError(t, err)
	require.NoError(t, sender.Send(ctx, q, []byte(`{"uploadId":"bad"}`), "upload-bad"))

	var dead []sqstypes.Message
	waitFor(t, time.Minute, "the message in the dead-letter queue", func() bool {
		out, err := client.ReceiveMessage(ctx, &sqs.ReceiveMessageInput{QueueUrl: aws.String(urls[q.DLQ()]), WaitTimeSeconds: 1,
			MessageSystemAttributeNames: []sqstypes.MessageSystemAttributeName{sqstypes.MessageSystemAttributeNameAll}})
		require.NoError(t, err)
		dead = out.Messages
		return len(dead) > 0
	})
	require.Len(t, dead, 1)
	assert.Equal(t, `{"uploadId":"bad"}`, aws.ToString(dead[0].Body))
	assert.Equal(t, int32(queues.MaxReceiveCount), calls.Load(), "each receipt ran the handler: a failure releases its idempotency record")
	// The stand-in counts receipts as SQS does: the handler saw 1, 2, ...
	// MaxReceiveCount, and the message moved after exactly that many.
	want := make([]int, queues.MaxReceiveCount)
	for i := range want {
		want[i] = i + 1
	}
	mu.Lock()
	assert.Equal(t, want, receipts, "the ReceiveCount of each receipt")
	mu.Unlock()
	assert.Equal(t, strconv.Itoa(queues.MaxReceiveCount+1), dead[0].Attributes[string(sqstypes.MessageSystemAttributeNameApproximateReceiveCount)],
		"the dead-letter queue's receipt continues the count, as in SQS")
	assert.Equal(t, "0", queueAttributes(t, client, urls[q])["ApproximateNumberOfMessages"], "the message left the queue")
}

// queueAttributes reads every attribute of a queue.
func queueAttributes(t *testing.T, client *sqs.Client, url string) map[string]string {
	t.Helper()
	out, err := client.GetQueueAttributes(context.Background(), &sqs.GetQueueAttributesInput{
		QueueUrl: aws.String(url), AttributeNames: []sqstypes.QueueAttributeName{sqstypes.QueueAttributeNameAll},
	})
	require.NoError(t, err)
	return out.Attributes
}

// waitFor polls cond until it holds or timeout passes.
func waitFor(t *testing.T, timeout time.Duration, what string, cond func() bool) {
	t.Helper()
	deadline := time.Now().Add(timeout)
	for !cond() {
		if time.Now().After(deadline) {
			t.Fatalf("gave up after %s waiting for %s", timeout, what)
		}
		time.Sleep(100 * time.Millisecond)
	}
}

func lookup(m map[string]string) func(string) string { return func(k string) string { return m[k] } }

// The server's limits come from the LOCAL_* variables over the defaults;
// every bad variable is reported at once, and limits that cannot work
// together stop the start.
func TestServerSettings(t *testing.T) {
	t.Parallel()
	s, err := serverSettings(lookup(nil))
	require.NoError(t, err)
	assert.Equal(t, devserver.DefaultSettings(), s)

	s, err = serverSettings(lookup(map[string]string{envReadTimeout: "5s", envRequestTimeout: "2s", envMaxHeaderBytes: "32768"}))
	require.NoError(t, err)
	assert.Equal(t, 5*time.Second, s.ReadTimeout)
	assert.Equal(t, 2*time.Second, s.RequestTimeout)
	assert.Equal(t, 32768, s.MaxHeaderBytes)
	assert.Equal(t, 60*time.Second, s.WriteTimeout, "unset: the default")

	_, err = serverSettings(lookup(map[string]string{envIdleTimeout: "soon", envWriteTimeout: "-1s", envMaxHeaderBytes: "10k"}))
	require.Error(t, err)
	for _, name := range []string{envIdleTimeout, envWriteTimeout, envMaxHeaderBytes} {
		assert.Contains(t, err.Error(), name)
	}

	_, err = serverSettings(lookup(map[string]string{envRequestTimeout: "90s"}))
	assert.ErrorContains(t, err, "must be shorter than write timeout")
}
