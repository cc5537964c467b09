package testenv_test

import (
	"bytes"
	"context"
	"io"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"
	"github.com/aws/aws-sdk-go-v2/service/s3"
	"github.com/bookplatform/backend/local/testenv"
	"github.com/bookplatform/backend/shared/config"
	"github.com/bookplatform/backend/shared/dynamo"
	"github.com/bookplatform/backend/shared/payments"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func TestMain(m *testing.M) { testenv.Main(m) }

func TestNew_tableHasSchemaAndTTL(t *testing.T) {
	t.Parallel()
	env := testenv.New(t)
	ctx := context.Background()

	desc, err := env.App.DB.DescribeTable(ctx, &dynamodb.DescribeTableInput{TableName: aws.String(env.Config.TableName)})
	require.NoError(t, err)
	assert.Equal(t, types.TableStatusActive, desc.Table.TableStatus)
	var indexes []string
	for _, ix := range desc.Table.GlobalSecondaryIndexes {
		indexes = append(indexes, aws.ToString(ix.IndexName))
	}
	var want []string
	for _, ix := range dynamo.Table.Indexes {
		want = append(want, ix.Name)
	}
	assert.ElementsMatch(t, want, indexes)
	assert.Contains(t, indexes, "GSI3")

	ttl, err := env.App.DB.DescribeTimeToLive(ctx, &dynamodb.DescribeTimeToLiveInput{TableName: aws.String(env.Config.TableName)})
	require.NoError(t, err)
	assert.Equal(t, types.TimeToLiveStatusEnabled, ttl.TimeToLiveDescription.TimeToLiveStatus)
	assert.Equal(t, dynamo.AttrTTL, aws.ToString(ttl.TimeToLiveDescription.AttributeName))
}

func TestNew_tablesAreSeparateAndRemoved(t *testing.T) {
	t.Parallel()
	var first string
	t.Run("first", func(t *testing.T) {
		env := testenv.New(t)
		first = env.Config.TableName
		_, err := env.App.DB.PutItem(context.Background(), &dynamodb.PutItemInput{
			TableName: aws.String(first),
			Item: map[string]types.AttributeValue{
				dynamo.AttrPK: &types.AttributeValueMemberS{Value: "X#1"},
				dynamo.AttrSK: &types.AttributeValueMemberS{Value: "Y"},
				"n":           &types.AttributeValueMemberN{Value: "7"},
			},
		})
		require.NoError(t, err)
		k := dynamo.Key{PK: "X#1", SK: "Y"}
		assert.Equal(t, map[string]any{"PK": "X#1", "SK": "Y", "n": float64(7)}, env.Item(t, k))
		env.DeleteItem(t, k)
		assert.Nil(t, env.Item(t, k))
	})
	env := testenv.New(t)
	assert.NotEqual(t, first, env.Config.TableName)
	_, err := env.App.DB.DescribeTable(context.Background(), &dynamodb.DescribeTableInput{TableName: aws.String(first)})
	var notFound *types.ResourceNotFoundException
	assert.ErrorAs(t, err, &notFound, "the first test's table is deleted when it ends")
}

func TestNew_s3RoundTrip(t *testing.T) {
	t.Parallel()
	env := testenv.New(t)
	ctx := context.Background()

	_, err := env.S3.PutObject(ctx, &s3.PutObjectInput{
		Bucket: aws.String(env.MediaSettings.Bucket), Key: aws.String("uploads/a b.csv"),
		Body: strings.NewReader("isbn,qty\n1,2\n"), ContentType: aws.String("text/csv"),
	})
	require.NoError(t, err)
	got, err := env.S3.GetObject(ctx, &s3.GetObjectInput{Bucket: aws.String(env.MediaSettings.Bucket), Key: aws.String("uploads/a b.csv")})
	require.NoError(t, err)
	data, _ := io.ReadAll(got.Body)
	got.Body.Close()
	assert.Equal(t, "isbn,qty\n1,2\n", string(data))
	assert.Equal(t, "text/csv", aws.ToString(got.ContentType))

}

func TestNew_mediaRouteServesUploads(t *testing.T) {
	t.Parallel()
	env := testenv.New(t)
	png := []byte("\x89PNG\r\n\x1a\nnot really")
	url, err := env.Media.PutImage(context.Background(), "avatars/u1/pic one.png", "image/png", png)
	require.NoError(t, err)
	require.True(t, strings.HasPrefix(url, env.MediaSettings.BaseURL+"/"), url)

	res, err := http.Get(url)
	require.NoError(t, err)
	body, _ := io.ReadAll(res.Body)
	res.Body.Close()
	assert.Equal(t, http.StatusOK, res.StatusCode)
	assert.Equal(t, "image/png", res.Header.Get("Content-Type"))
	assert.Equal(t, "nosniff", res.Header.Get("X-Content-Type-Options"))
	assert.True(t, bytes.Equal(png, body))

	missing := env.Do("GET", "/media/avatars/nobody.png", nil, "")
	assert.Equal(t, http.StatusNotFound, missing.Status)
	assert.Equal(t, "NotFound", missing.JSON["error"].(map[string]any)["name"])
	assert.Equal(t, http.StatusMethodNotAllowed, env.Do("DELETE", url, nil, "").Status)
}

func TestDo_health(t *testing.T) {
	t.Parallel()
	env := testenv.New(t)
	res := env.Do("GET", "/health", nil, "")
	require.Equal(t, http.StatusOK, res.Status, res.String())
	assert.Equal(t, "ok", res.JSON["status"])
	assert.NotEmpty(t, res.Header.Get("X-Request-Id"))

	var typed struct{ Status string }
	res.Decode(&typed)
	assert.Equal(t, "ok", typed.Status)

	assert.Equal(t, http.StatusNotFound, env.Do("GET", "/no/such/route", nil, "").Status)
}

func TestWithClock_appReadsTheFakeTime(t *testing.T) {
	t.Parallel()
	start := time.Now().UTC().Truncate(time.Second).Add(-time.Hour)
	clock := testenv.NewClock(start)
	env := testenv.New(t, testenv.WithClock(clock))
	assert.Same(t, clock, env.Clock)

	assert.Equal(t, start.Format(time.RFC3339), env.Do("GET", "/health", nil, "").JSON["timestamp"])
	later := clock.Advance(90 * time.Minute)
	assert.Equal(t, later.Format(time.RFC3339), env.Do("GET", "/health", nil, "").JSON["timestamp"])
}

func TestWithConfig_editsTheConfiguration(t *testing.T) {
	t.Parallel()
	env := testenv.New(t, testenv.WithConfig(func(c *config.Config) { c.MaxBodyBytes = 2048 }))
	assert.Equal(t, int64(2048), env.Config.MaxBodyBytes)
	assert.Equal(t, int64(2048), env.App.Config.MaxBodyBytes)
}

// Rate limits are off unless a test turns them on: 61 anonymous requests
// in one minute are all served, and with WithRateLimits the 61st is 429.
func TestWithRateLimits(t *testing.T) {
	t.Parallel()
	count := func(env *testenv.Env) (ok, limited int) {
		for range 61 {
			switch env.Do("GET", "/v1/books/isbn/9780306406157", nil, "").Status {
			case http.StatusTooManyRequests:
				limited++
			default:
				ok++
			}
		}
		return ok, limited
	}
	clock := testenv.NewClock(time.Date(2026, 3, 2, 9, 0, 0, 0, time.UTC))
	ok, limited := count(testenv.New(t, testenv.WithClock(clock)))
	assert.Equal(t, 61, ok)
	assert.Zero(t, limited)
	ok, limited = count(testenv.New(t, testenv.WithClock(clock), testenv.WithRateLimits()))
	assert.Equal(t, 60, ok)
	assert.Equal(t, 1, limited)
}

func TestSignupLoginAndErrors(t *testing.T) {
	t.Parallel()
	env := testenv.New(t)
	ann := env.Signup(t, "ann")
	assert.NotEmpty(t, ann.ID)
	me := env.Do("GET", "/v1/users/me", nil, ann.Token)
	require.Equal(t, http.StatusOK, me.Status, me.String())
	assert.Equal(t, ann.ID, me.JSON["id"])

	again := env.Login(t, ann)
	assert.Equal(t, ann.ID, again.ID)
	assert.NotEqual(t, ann.Refresh, again.Refresh)

	env.SetTier(t, ann, "premium")
	assert.Equal(t, "premium", env.Do("GET", "/v1/users/me", nil, ann.Token).JSON["tier"])

	res := env.Do("POST", "/v1/auth/signup", map[string]any{"email": "nope", "password": "x"}, "")
	testenv.AssertError(t, res, http.StatusBadRequest, "ValidationError", "Invalid request")
	assert.Contains(t, testenv.FieldErrors(t, res), "email")
	assert.Contains(t, testenv.FieldErrors(t, res), "password")
}

// Each environment has its own payment stand-in, which the payments
// settings of its configuration name: a provider built from them, as a
// group builds it, charges there, and the stand-in's webhooks go to the
// environment's receiver route.
func TestNew_paymentsStandIn(t *testing.T) {
	t.Parallel()
	env := testenv.New(t)
	p, err := payments.FromEnv(env.Config.Env(), payments.Runtime{})
	require.NoError(t, err)
	s, err := p.Authorize(context.Background(), payments.Authorization{OrderID: "o1", AmountCents: 1000, Currency: "usd",
		PaymentMethodID: "pm_card_visa", IdempotencyKey: "o1"})
	require.NoError(t, err)
	assert.Equal(t, payments.Authorized, s.Status)
	assert.Equal(t, 1, env.Payments.Created())
	in, ok := env.Payments.Intent(s.ID)
	assert.True(t, ok)
	assert.Equal(t, int64(1000), in.AmountCents)

	other := testenv.New(t)
	assert.Zero(t, other.Payments.Created(), "environments share a stand-in")
	assert.NotEqual(t, env.PaymentsURL, other.PaymentsURL)
}
