package app_test

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"
	"github.com/aws/aws-sdk-go-v2/service/s3"
	"github.com/aws/aws-sdk-go-v2/service/sqs"
	sqstypes "github.com/aws/aws-sdk-go-v2/service/sqs/types"
	"github.com/bookplatform/backend/local/sqslocal"
	"github.com/bookplatform/backend/local/testenv"
	"github.com/bookplatform/backend/shared/callstats"
	"github.com/bookplatform/backend/shared/dynamo"
	"github.com/bookplatform/backend/shared/effects"
	"github.com/bookplatform/backend/shared/httpapi"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func TestMain(m *testing.M) { testenv.Main(m) }

// effectsWorld is a router of the app's pipeline whose routes cause one
// side effect of every kind the service has: a DynamoDB write, an S3
// write, an SQS message, an outbound HTTP call, and CPU work (bcrypt in
// the real routes: here a counter of handler runs). Each effect is
// observable on a real stand-in, so a test can prove it did not happen.
type effectsWorld struct {
	env      *testenv.Env
	srv      *httptest.Server
	sqs      *sqs.Client
	queueURL string
	hits     atomic.Int32 // requests that reached the outbound HTTP target
	runs     atomic.Int32 // handler runs
	errs     chan error   // what each attempted effect returned
}

func newEffectsWorld(t *testing.T, clock *testenv.Clock) *effectsWorld {
	t.Helper()
	env := testenv.New(t, testenv.WithClock(clock), testenv.WithRateLimits())
	w := &effectsWorld{env: env, errs: make(chan error, 16)}

	target := httptest.NewServer(http.HandlerFunc(func(http.ResponseWriter, *http.Request) { w.hits.Add(1) }))
	t.Cleanup(target.Close)
	sqsURL, err := sqslocal.Start()
	require.NoError(t, err)
	cfg := env.AWS.Copy()
	cfg.BaseEndpoint = aws.String(sqsURL)
	w.sqs = sqs.NewFromConfig(cfg, func(o *sqs.Options) { o.APIOptions = append(o.APIOptions, callstats.Middleware("sqs", nil)) })
	q, err := w.sqs.CreateQueue(t.Context(), &sqs.CreateQueueInput{QueueName: aws.String(fmt.Sprintf("effects-%d", time.Now().UnixNano()))})
	require.NoError(t, err)
	w.queueURL = aws.ToString(q.QueueUrl)
	out := callstats.Client()

	// effects tries every side effect under the request's context and
	// reports each outcome; n names what it writes.
	effects := func(r *http.Request, n string) {
		ctx := r.Context()
		w.runs.Add(1)
		k := dynamo.Key{PK: "EFFECT#" + n, SK: "EFFECT"}
		_, err := env.App.DB.PutItem(ctx, &dynamodb.PutItemInput{TableName: aws.String(env.Config.TableName), Item: map[string]types.AttributeValue{
			dynamo.AttrPK: &types.AttributeValueMemberS{Value: k.PK}, dynamo.AttrSK: &types.AttributeValueMemberS{Value: k.SK},
		}})
		w.errs <- err
		_, err = env.S3.PutObject(ctx, &s3.PutObjectInput{Bucket: aws.String(env.MediaSettings.Bucket), Key: aws.String("effects/" + n), Body: strings.NewReader(n)})
		w.errs <- err
		_, err = w.sqs.SendMessage(ctx, &sqs.SendMessageInput{QueueUrl: aws.String(w.queueURL), MessageBody: aws.String(n)})
		w.errs <- err
		req, _ := http.NewRequestWithContext(ctx, http.MethodPost, target.URL, strings.NewReader(n))
		res, err := out.Do(req)
		if err == nil {
			_ = res.Body.Close()
		}
		w.errs <- err
	}
	routes := []httpapi.Route{
		{Method: "POST", Path: "/t/effects/{n}", Auth: httpapi.AuthBearer, Actions: []string{"report"}, Handler: func(rw http.ResponseWriter, r *http.Request) error {
			effects(r, r.PathValue("n"))
			return httpapi.JSON(rw, http.StatusCreated, map[string]bool{"ok": true})
		}},
		{Method: "GET", Path: "/t/effects/{n}", Auth: httpapi.AuthBearer, Handler: func(rw http.ResponseWriter, r *http.Request) error {
			effects(r, r.PathValue("n"))
			return httpapi.JSON(rw, http.StatusOK, map[string]bool{"ok": true})
		}},
	}
	// The app's real pipeline (identity, counters, idempotency) over these
	// routes, and the real groups for signing up.
	mux := http.NewServeMux()
	mux.Handle("/t/", env.App.RouterFor(routes))
	mux.Handle("/", env.Handler())
	w.srv = httptest.NewServer(mux)
	t.Cleanup(w.srv.Close)
	return w
}

func (w *effectsWorld) do(t *testing.T, method, path, token string) int {
	t.Helper()
	req, err := http.NewRequest(method, w.srv.URL+path, nil)
	require.NoError(t, err)
	if token != "" {
		req.Header.Set("Authorization", "Bearer "+token)
	}
	res, err := w.srv.Client().Do(req)
	require.NoError(t, err)
	_ = res.Body.Close()
	return res.StatusCode
}

// stored reports whether effect n's item and object exist; messages and
// outbound hits are counted instead.
func (w *effectsWorld) stored(t *testing.T, n string) (item, object bool) {
	t.Helper()
	item = w.env.Item(t, dynamo.Key{PK: "EFFECT#" + n, SK: "EFFECT"}) != nil
	_, err := w.env.S3.HeadObject(context.Background(), &s3.HeadObjectInput{Bucket: aws.String(w.env.MediaSettings.Bucket), Key: aws.String("effects/" + n)})
	return item, err == nil
}

func (w *effectsWorld) messages(t *testing.T) int {
	t.Helper()
	out, err := w.sqs.GetQueueAttributes(context.Background(), &sqs.GetQueueAttributesInput{
		QueueUrl: aws.String(w.queueURL), AttributeNames: []sqstypes.QueueAttributeName{sqstypes.QueueAttributeNameApproximateNumberOfMessages},
	})
	require.NoError(t, err)
	var n int
	_, _ = fmt.Sscan(out.Attributes["ApproximateNumberOfMessages"], &n)
	return n
}

// A request refused by a rate limit or by authentication causes no side
// effect of any kind: its handler never starts.
func TestRefusedRequestsChangeNothing(t *testing.T) {
	clock := testenv.NewClock(time.Date(2026, 3, 2, 9, 30, 0, 0, time.UTC))
	w := newEffectsWorld(t, clock)
	ann := w.env.Signup(t, "ann")
	for i := range 10 { // report: 10 an hour
		require.Equal(t, http.StatusCreated, w.do(t, "POST", fmt.Sprintf("/t/effects/%d", i), ann.Token))
		for range 4 {
			require.NoError(t, <-w.errs)
		}
	}
	require.EqualValues(t, 10, w.hits.Load())
	require.Equal(t, 10, w.messages(t))
	item, object := w.stored(t, "9")
	require.True(t, item && object, "admitted requests do change things")

	assert.Equal(t, http.StatusTooManyRequests, w.do(t, "POST", "/t/effects/limited", ann.Token))

	gone := w.env.Signup(t, "gone")
	w.env.DeleteItem(t, dynamo.UserKey(gone.ID))
	assert.Equal(t, http.StatusUnauthorized, w.do(t, "POST", "/t/effects/gone", gone.Token), "a token whose user is gone")
	assert.Equal(t, http.StatusUnauthorized, w.do(t, "POST", "/t/effects/forged", ann.Token+"x"), "a forged token")
	assert.Equal(t, http.StatusUnauthorized, w.do(t, "POST", "/t/effects/anonymous", ""), "no token")
	clock.Advance(w.env.Config.AccessTokenTTL + time.Minute)
	assert.Equal(t, http.StatusUnauthorized, w.do(t, "POST", "/t/effects/expired", ann.Token), "an expired token")

	assert.EqualValues(t, 10, w.runs.Load(), "no refused request ran its handler")
	for _, n := range []string{"limited", "gone", "forged", "anonymous", "expired"} {
		item, object := w.stored(t, n)
		assert.False(t, item, "%s: DynamoDB write", n)
		assert.False(t, object, "%s: S3 write", n)
	}
	assert.Equal(t, 10, w.messages(t), "no SQS message")
	assert.EqualValues(t, 10, w.hits.Load(), "no outbound HTTP call")
}

// A GET handler starts before its request is admitted, so it may have no
// side effect: every kind is refused by construction, whether or not the
// request is then admitted.
func TestGetHandlersCannotCauseSideEffects(t *testing.T) {
	w := newEffectsWorld(t, testenv.NewClock(time.Date(2026, 3, 2, 9, 30, 0, 0, time.UTC)))
	ann := w.env.Signup(t, "ann")
	assert.Equal(t, http.StatusOK, w.do(t, "GET", "/t/effects/read", ann.Token))
	for _, kind := range []string{"DynamoDB write", "S3 write", "SQS message", "outbound HTTP"} {
		err := <-w.errs
		assert.True(t, errors.Is(err, effects.ErrReadOnly), "%s: %v", kind, err)
	}
	item, object := w.stored(t, "read")
	assert.False(t, item)
	assert.False(t, object)
	assert.Zero(t, w.messages(t))
	assert.Zero(t, w.hits.Load())
}
