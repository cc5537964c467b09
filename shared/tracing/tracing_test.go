package tracing_test

import (
	"context"
	"encoding/json"
	"net"
	"strings"
	"testing"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"
	"github.com/bookplatform/backend/local/testenv"
	"github.com/bookplatform/backend/shared/dynamo"
	"github.com/bookplatform/backend/shared/tracing"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"go.opentelemetry.io/otel/trace"
)

func TestMain(m *testing.M) { testenv.Main(m) }

const header = "Root=1-5759e988-bd862e3fe1be46a994272793;Parent=53995c3f42cd8ad8;Sampled=1;Lineage=a87bd80c:0"

//nolint:staticcheck // aws-lambda-go's key is a plain string.
func lambdaContext(h string) context.Context {
	return context.WithValue(context.Background(), "x-amzn-trace-id", h)
}

// A sampled invocation: the route's span and each DynamoDB call reach the
// daemon as X-Ray subsegments of the invocation's trace, the route's under
// the function's segment (the header's Parent), the calls under the
// route's, with what X-Ray shows of an AWS call. An unsampled invocation
// sends nothing.
func TestTracing_SubsegmentsReachTheDaemon(t *testing.T) {
	daemon, err := net.ListenPacket("udp", "127.0.0.1:0")
	require.NoError(t, err)
	defer daemon.Close()
	on, err := tracing.Setup(func(k string) string {
		return map[string]string{tracing.EnvDaemonAddress: "tcp:127.0.0.1:1 udp:" + daemon.LocalAddr().String(), "AWS_LAMBDA_FUNCTION_NAME": "bench"}[k]
	})
	require.NoError(t, err)
	require.True(t, on)
	defer func() { _ = tracing.Shutdown(context.Background()) }()

	cfg := testenv.AWSConfig(map[string]string{dynamodb.ServiceID: testenv.DynamoDBEndpoint(t)})
	tracing.Instrument(&cfg)
	db := dynamodb.NewFromConfig(cfg)
	table := "tracing-" + strings.ReplaceAll(t.Name(), "/", "-")
	require.NoError(t, dynamo.Table.EnsureTable(t.Context(), db, table))
	defer db.DeleteTable(context.Background(), &dynamodb.DeleteTableInput{TableName: aws.String(table)})
	drain(daemon) // the table's creation was not in a trace: nothing was sent

	key := map[string]types.AttributeValue{"PK": &types.AttributeValueMemberS{Value: "A"}, "SK": &types.AttributeValueMemberS{Value: "B"}}
	ctx, span := tracing.Start(tracing.FromLambda(lambdaContext(header)), "GET /v1/books/{id}")
	_, err = db.GetItem(ctx, &dynamodb.GetItemInput{TableName: aws.String(table), Key: key})
	require.NoError(t, err)
	_, err = db.GetItem(ctx, &dynamodb.GetItemInput{TableName: aws.String("no-such-table"), Key: key})
	require.Error(t, err)
	tracing.End(span, "GET /v1/books/{id}", "books", 200)

	docs := receive(t, daemon, 3)
	got, missing, route := docs[0], docs[1], docs[2]
	for _, d := range docs {
		assert.Equal(t, "1-5759e988-bd862e3fe1be46a994272793", d["trace_id"])
		assert.Equal(t, "subsegment", d["type"])
		assert.Len(t, d["id"], 16)
		assert.Less(t, d["start_time"], d["end_time"])
	}

	assert.Equal(t, "GET /v1/books/:id", route["name"])
	assert.Equal(t, "53995c3f42cd8ad8", route["parent_id"], "under the function's segment")
	assert.Equal(t, map[string]any{"route": "GET /v1/books/{id}", "status": float64(200), "group": "books"}, route["annotations"])
	assert.Equal(t, map[string]any{"response": map[string]any{"status": float64(200)}}, route["http"])

	assert.Equal(t, "DynamoDB", got["name"])
	assert.Equal(t, "aws", got["namespace"])
	assert.Equal(t, route["id"], got["parent_id"], "under the route's span")
	assert.Equal(t, "GetItem", got["aws"].(map[string]any)["operation"])
	assert.Equal(t, table, got["aws"].(map[string]any)["table_name"])
	assert.Equal(t, testenv.Region, got["aws"].(map[string]any)["region"])
	assert.NotEmpty(t, got["aws"].(map[string]any)["request_id"])
	assert.Equal(t, map[string]any{"response": map[string]any{"status": float64(200)}}, got["http"])
	assert.Nil(t, got["error"])

	assert.Equal(t, true, missing["error"], "a 400 is the caller's error: %v", missing)
	assert.Nil(t, missing["fault"])

	// Unsampled: nothing.
	ctx, span = tracing.Start(tracing.FromLambda(lambdaContext(strings.Replace(header, "Sampled=1", "Sampled=0", 1))), "GET /v1/books/{id}")
	_, err = db.GetItem(ctx, &dynamodb.GetItemInput{TableName: aws.String(table), Key: key})
	require.NoError(t, err)
	tracing.End(span, "GET /v1/books/{id}", "books", 200)
	assert.False(t, trace.SpanFromContext(ctx).IsRecording())
	assert.Empty(t, receiveFor(daemon, 200*time.Millisecond))
}

// receive reads n datagrams, each the daemon's header line and a document.
func receive(t *testing.T, conn net.PacketConn, n int) []map[string]any {
	t.Helper()
	var raws []string
	for len(raws) < n {
		got := receiveFor(conn, 5*time.Second)
		if len(got) == 0 {
			t.Fatalf("got %d of %d documents", len(raws), n)
		}
		raws = append(raws, got...)
	}
	out := make([]map[string]any, 0, n)
	for _, raw := range raws[:n] {
		head, body, ok := strings.Cut(raw, "\n")
		require.True(t, ok, raw)
		assert.JSONEq(t, `{"format": "json", "version": 1}`, head)
		var d map[string]any
		require.NoError(t, json.Unmarshal([]byte(body), &d), body)
		out = append(out, d)
	}
	return out
}

// receiveFor returns the datagrams that arrive within d.
func receiveFor(conn net.PacketConn, d time.Duration) []string {
	var out []string
	buf := make([]byte, 64<<10)
	_ = conn.SetReadDeadline(time.Now().Add(d))
	for {
		n, _, err := conn.ReadFrom(buf)
		if err != nil {
			return out
		}
		out = append(out, string(buf[:n]))
		_ = conn.SetReadDeadline(time.Now().Add(100 * time.Millisecond))
	}
}

func drain(conn net.PacketConn) { receiveFor(conn, 50*time.Millisecond) }
