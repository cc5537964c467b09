package tracing_test

import (
	"strings"
	"testing"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"
	"github.com/bookplatform/backend/local/testenv"
	"github.com/bookplatform/backend/shared/dynamo"
	"github.com/bookplatform/backend/shared/tracing"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"go.opentelemetry.io/otel/attribute"
	"go.opentelemetry.io/otel/codes"
	sdktrace "go.opentelemetry.io/otel/sdk/trace"
	"go.opentelemetry.io/otel/sdk/trace/tracetest"
	"go.opentelemetry.io/otel/trace"
)

// Every SDK call is one client span under the caller's, named and
// described as OpenTelemetry's otelaws did (the exporter reads these
// attributes back): service and operation, region, the answer's status
// and request id, and for DynamoDB the tables the call names, those of
// a transaction's parts included. A failed call is marked failed with
// its error's type.
func TestSDKMiddleware_spanPerCall(t *testing.T) {
	rec := tracetest.NewSpanRecorder()
	tp := sdktrace.NewTracerProvider(sdktrace.WithSpanProcessor(rec))
	cfg := testenv.AWSConfig(map[string]string{dynamodb.ServiceID: testenv.DynamoDBEndpoint(t)})
	cfg.APIOptions = append(cfg.APIOptions, tracing.SDKMiddleware(tp.Tracer("test")))
	db := dynamodb.NewFromConfig(cfg)
	table := "tracing-" + strings.ReplaceAll(t.Name(), "/", "-")
	require.NoError(t, dynamo.Table.EnsureTable(t.Context(), db, table))
	t.Cleanup(func() { _, _ = db.DeleteTable(t.Context(), &dynamodb.DeleteTableInput{TableName: aws.String(table)}) })
	before := len(rec.Ended())

	ctx, route := tp.Tracer("test").Start(t.Context(), "GET /v1/books/{id}")
	key := map[string]types.AttributeValue{"PK": &types.AttributeValueMemberS{Value: "A"}, "SK": &types.AttributeValueMemberS{Value: "B"}}
	_, err := db.GetItem(ctx, &dynamodb.GetItemInput{TableName: aws.String(table), Key: key})
	require.NoError(t, err)
	_, err = db.TransactWriteItems(ctx, &dynamodb.TransactWriteItemsInput{TransactItems: []types.TransactWriteItem{
		{Put: &types.Put{TableName: aws.String(table), Item: key}},
		{ConditionCheck: &types.ConditionCheck{TableName: aws.String(table), ConditionExpression: aws.String("attribute_not_exists(PK)"),
			Key: map[string]types.AttributeValue{"PK": &types.AttributeValueMemberS{Value: "C"}, "SK": &types.AttributeValueMemberS{Value: "D"}}}},
	}})
	require.NoError(t, err)
	_, err = db.GetItem(ctx, &dynamodb.GetItemInput{TableName: aws.String("no-such-table"), Key: key})
	require.Error(t, err)
	route.End()

	spans := rec.Ended()[before:]
	require.Len(t, spans, 4, "one span per call, and the route's")
	get, tx, missing := spans[0], spans[1], spans[2]
	for _, s := range spans[:3] {
		assert.Equal(t, trace.SpanKindClient, s.SpanKind())
		assert.Equal(t, route.SpanContext().SpanID(), s.Parent().SpanID(), "%s is under the caller's span", s.Name())
	}
	assert.Equal(t, "DynamoDB.GetItem", get.Name())
	attrs := attributes(get)
	assert.Equal(t, "aws-api", attrs["rpc.system.name"].AsString())
	assert.Equal(t, "DynamoDB", attrs["rpc.service"].AsString())
	assert.Equal(t, "DynamoDB/GetItem", attrs["rpc.method"].AsString())
	assert.Equal(t, testenv.Region, attrs["aws.region"].AsString())
	assert.NotEmpty(t, attrs["aws.request_id"].AsString())
	assert.Equal(t, int64(200), attrs["http.response.status_code"].AsInt64())
	assert.Equal(t, "aws.dynamodb", attrs["db.system.name"].AsString())
	assert.Equal(t, []string{table}, attrs["aws.dynamodb.table_names"].AsStringSlice())
	assert.Equal(t, codes.Unset, get.Status().Code)

	assert.Equal(t, "DynamoDB.TransactWriteItems", tx.Name())
	attrs = attributes(tx)
	assert.Equal(t, "DynamoDB/TransactWriteItems", attrs["rpc.method"].AsString())
	assert.Equal(t, []string{table}, attrs["aws.dynamodb.table_names"].AsStringSlice(), "the tables of the transaction's parts, once")

	assert.Equal(t, "DynamoDB.GetItem", missing.Name())
	attrs = attributes(missing)
	assert.Equal(t, int64(400), attrs["http.response.status_code"].AsInt64())
	assert.Equal(t, []string{"no-such-table"}, attrs["aws.dynamodb.table_names"].AsStringSlice())
	assert.NotEmpty(t, attrs["error.type"].AsString())
	assert.Equal(t, codes.Error, missing.Status().Code)
}

func attributes(s sdktrace.ReadOnlySpan) map[attribute.Key]attribute.Value {
	out := map[attribute.Key]attribute.Value{}
	for _, kv := range s.Attributes() {
		out[kv.Key] = kv.Value
	}
	return out
}
