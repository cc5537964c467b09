package callstats

import (
	"context"
	"errors"
	"fmt"
	"net"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/aws/ratelimit"
	"github.com/aws/aws-sdk-go-v2/aws/retry"
	"github.com/aws/aws-sdk-go-v2/credentials"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"
	"github.com/aws/smithy-go/middleware"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func reasons(codes ...string) *types.TransactionCanceledException {
	e := &types.TransactionCanceledException{}
	for _, c := range codes {
		e.CancellationReasons = append(e.CancellationReasons, types.CancellationReason{Code: aws.String(c)})
	}
	return e
}

// Only failures that prove the call changed nothing are refusals.
func TestRefused(t *testing.T) {
	cases := []struct {
		name string
		err  error
		want bool
	}{
		{"no error", nil, false},
		{"condition failed", &types.ConditionalCheckFailedException{}, true},
		{"condition failed, wrapped", fmt.Errorf("put: %w", &types.ConditionalCheckFailedException{}), true},
		{"transaction cancelled by a condition", reasons("None", "ConditionalCheckFailed"), true},
		{"transaction cancelled by a conflict", reasons("TransactionConflict", "None"), true},
		{"transaction cancelled for an unknown reason", reasons("None", "SomethingNew"), false},
		{"transaction cancelled without a reason code", &types.TransactionCanceledException{CancellationReasons: []types.CancellationReason{{}}}, false},
		{"another attempt of the transaction is in progress", &types.TransactionInProgressException{}, false},
		{"the request was never sent (dial)", &net.OpError{Op: "dial", Net: "tcp", Err: syscall.ECONNREFUSED}, true},
		{"connection reset after sending", &net.OpError{Op: "read", Net: "tcp", Err: syscall.ECONNRESET}, false},
		{"context canceled", context.Canceled, false},
		{"deadline", context.DeadlineExceeded, false},
		{"anything else", errors.New("boom"), false},
	}
	for _, c := range cases {
		assert.Equal(t, c.want, Refused(c.err), c.name)
	}
}

// Failed calls count as changes unless refused: a request whose write
// failed ambiguously may have changed something.
func TestChangedSince_OnlyRefusalsChangedNothing(t *testing.T) {
	t0 := time.Now()
	for _, c := range []struct {
		name string
		call Call
		want bool
	}{
		{"a write that succeeded", Call{Operation: "PutItem"}, true},
		{"a write that failed ambiguously", Call{Operation: "PutItem", Failed: true}, true},
		{"a write that was refused", Call{Operation: "PutItem", Failed: true, Refused: true}, false},
		{"a read", Call{Operation: "GetItem"}, false},
	} {
		_, rec := With(context.Background())
		c.call.Service, c.call.Start, c.call.End = "dynamodb", t0, t0
		rec.Record(c.call)
		assert.Equal(t, c.want, rec.ChangedSince(t0, IsRead), c.name)
	}
}

// dynamoError is a DynamoDB JSON error answer.
type dynamoError struct {
	status int
	body   string
}

func errorOf(status int, typ string, extra string) dynamoError {
	return dynamoError{status, fmt.Sprintf(`{"__type":"com.amazonaws.dynamodb.v20120810#%s","message":"scripted"%s}`, typ, extra)}
}

// scripted is a DynamoDB stand-in that gives the scripted answers in
// order, one per attempt; a zero answer resets the connection.
func scripted(t *testing.T, answers ...dynamoError) *httptest.Server {
	var mu sync.Mutex
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		mu.Lock()
		defer mu.Unlock()
		if len(answers) == 0 {
			t.Errorf("more attempts than scripted")
			w.WriteHeader(http.StatusInternalServerError)
			return
		}
		a := answers[0]
		answers = answers[1:]
		if a.status == 0 {
			conn, _, err := w.(http.Hijacker).Hijack()
			require.NoError(t, err)
			_ = conn.(*net.TCPConn).SetLinger(0) // RST, not FIN
			_ = conn.Close()
			return
		}
		w.Header().Set("Content-Type", "application/x-amz-json-1.0")
		w.WriteHeader(a.status)
		_, _ = w.Write([]byte(a.body))
	}))
	t.Cleanup(func() {
		srv.Close()
		mu.Lock()
		defer mu.Unlock()
		assert.Empty(t, answers, "every scripted answer is an attempt")
	})
	return srv
}

// client is a DynamoDB client of endpoint with Middleware and up to
// attempts attempts, without delay between them.
func client(endpoint string, attempts int) *dynamodb.Client {
	return dynamodb.New(dynamodb.Options{
		Region:       "us-east-1",
		Credentials:  credentials.NewStaticCredentialsProvider("k", "s", ""),
		BaseEndpoint: aws.String(endpoint),
		Retryer: retry.NewStandard(func(o *retry.StandardOptions) {
			o.MaxAttempts = attempts
			o.RateLimiter = ratelimit.None
			o.Backoff = retry.BackoffDelayerFunc(func(int, error) (time.Duration, error) { return 0, nil })
		}),
		DisableValidateResponseChecksum: true,
		APIOptions:                      []func(*middleware.Stack) error{Middleware("dynamodb", nil)},
	})
}

// The middleware records a failed call as refused only when every
// attempt the SDK made was: a retry that fails its condition after an
// attempt whose answer was lost proves nothing (that attempt may have
// written the item the condition then found).
func TestMiddleware_RecordsRefusalsOfEveryAttempt(t *testing.T) {
	canceled := ", \"CancellationReasons\":[{\"Code\":\"None\"},{\"Code\":\"ConditionalCheckFailed\",\"Message\":\"x\"}]"
	cases := []struct {
		name    string
		tx      bool
		answers []dynamoError
		refused bool
	}{
		{"condition failed", false, []dynamoError{errorOf(400, "ConditionalCheckFailedException", "")}, true},
		{"validation", false, []dynamoError{errorOf(400, "ValidationException", "")}, true},
		{"throttled, then condition failed", false, []dynamoError{errorOf(400, "ThrottlingException", ""), errorOf(400, "ConditionalCheckFailedException", "")}, true},
		{"transaction cancelled by a condition", true, []dynamoError{errorOf(400, "TransactionCanceledException", canceled)}, true},
		{"transaction in progress", true, []dynamoError{errorOf(400, "TransactionInProgressException", "")}, false},
		{"a 5xx", false, []dynamoError{errorOf(500, "InternalServerError", ""), errorOf(500, "InternalServerError", "")}, false},
		{"a 5xx, then condition failed", false, []dynamoError{errorOf(500, "InternalServerError", ""), errorOf(400, "ConditionalCheckFailedException", "")}, false},
		{"connection reset, then condition failed", false, []dynamoError{{}, errorOf(400, "ConditionalCheckFailedException", "")}, false},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			db := client(scripted(t, c.answers...).URL, len(c.answers))
			ctx, rec := With(context.Background())
			mark := time.Now()
			var err error
			if c.tx {
				_, err = db.TransactWriteItems(ctx, &dynamodb.TransactWriteItemsInput{TransactItems: []types.TransactWriteItem{
					{Put: &types.Put{TableName: aws.String("t"), Item: item("a")}},
					{Put: &types.Put{TableName: aws.String("t"), Item: item("b")}},
				}})
			} else {
				_, err = db.PutItem(ctx, &dynamodb.PutItemInput{TableName: aws.String("t"), Item: item("a")})
			}
			require.Error(t, err)
			calls := rec.Calls()
			require.Len(t, calls, 1, "one call, whatever its attempts")
			assert.True(t, calls[0].Failed)
			assert.Equal(t, c.refused, calls[0].Refused)
			assert.Equal(t, !c.refused, rec.ChangedSince(mark, IsRead))
		})
	}

	t.Run("a canceled context", func(t *testing.T) {
		release := make(chan struct{})
		srv := httptest.NewServer(http.HandlerFunc(func(http.ResponseWriter, *http.Request) { <-release }))
		defer srv.Close()
		defer close(release)
		ctx, rec := With(context.Background())
		ctx, cancel := context.WithTimeout(ctx, 50*time.Millisecond)
		defer cancel()
		_, err := client(srv.URL, 1).PutItem(ctx, &dynamodb.PutItemInput{TableName: aws.String("t"), Item: item("a")})
		require.Error(t, err)
		require.Len(t, rec.Calls(), 1)
		assert.False(t, rec.Calls()[0].Refused, "the write may have arrived")
	})
	t.Run("nothing listening", func(t *testing.T) {
		l, err := net.Listen("tcp", "127.0.0.1:0")
		require.NoError(t, err)
		addr := l.Addr().String()
		require.NoError(t, l.Close())
		ctx, rec := With(context.Background())
		_, err = client("http://"+addr, 2).PutItem(ctx, &dynamodb.PutItemInput{TableName: aws.String("t"), Item: item("a")})
		require.Error(t, err)
		require.Len(t, rec.Calls(), 1)
		assert.True(t, rec.Calls()[0].Refused, "never sent: %v", err)
	})
}

func item(pk string) map[string]types.AttributeValue {
	return map[string]types.AttributeValue{"PK": &types.AttributeValueMemberS{Value: pk}}
}

// An outbound request that was never sent changed nothing; one whose
// connection broke after it was sent may have.
func TestTransport_RecordsRefusals(t *testing.T) {
	l, err := net.Listen("tcp", "127.0.0.1:0")
	require.NoError(t, err)
	closed := l.Addr().String()
	require.NoError(t, l.Close())
	reset := scripted(t, dynamoError{})

	for _, c := range []struct {
		name, url string
		refused   bool
	}{
		{"nothing listening", "http://" + closed, true},
		{"connection reset", reset.URL, false},
	} {
		ctx, rec := With(context.Background())
		mark := time.Now()
		req, err := http.NewRequestWithContext(ctx, http.MethodPost, c.url, strings.NewReader("x"))
		require.NoError(t, err)
		_, err = (&http.Client{Transport: Transport(&http.Transport{DisableKeepAlives: true})}).Do(req)
		require.Error(t, err, c.name)
		require.Len(t, rec.Calls(), 1, c.name)
		assert.Equal(t, c.refused, rec.Calls()[0].Refused, c.name)
		assert.Equal(t, !c.refused, rec.ChangedSince(mark, IsRead), c.name)
	}
}

// The middleware records the actions its service's rule names for the
// call's input; without a rule, the action of the operation's name.
func TestMiddleware_RecordsActionsByTheServiceRule(t *testing.T) {
	srv := scripted(t, dynamoError{200, `{}`}, dynamoError{200, `{}`})
	ctx, rec := With(context.Background())
	_, err := client(srv.URL, 1).PutItem(ctx, &dynamodb.PutItemInput{TableName: aws.String("t"), Item: item("a")})
	require.NoError(t, err)

	parts := func(op string, in any) []string {
		tx, ok := in.(*dynamodb.TransactWriteItemsInput)
		require.True(t, ok, "the rule gets the operation's input")
		return []string{fmt.Sprintf("dynamodb:%s of %d parts", op, len(tx.TransactItems))}
	}
	db := dynamodb.New(dynamodb.Options{
		Region: "us-east-1", Credentials: credentials.NewStaticCredentialsProvider("k", "s", ""), BaseEndpoint: aws.String(srv.URL),
		DisableValidateResponseChecksum: true, APIOptions: []func(*middleware.Stack) error{Middleware("dynamodb", parts)},
	})
	_, err = db.TransactWriteItems(ctx, &dynamodb.TransactWriteItemsInput{TransactItems: []types.TransactWriteItem{
		{Put: &types.Put{TableName: aws.String("t"), Item: item("a")}}, {Put: &types.Put{TableName: aws.String("t"), Item: item("b")}},
	}})
	require.NoError(t, err)
	assert.Equal(t, []string{"dynamodb:PutItem", "dynamodb:TransactWriteItems of 2 parts"}, rec.Actions())
}
