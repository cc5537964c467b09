package dynamo_test

import (
	"context"
	"fmt"
	"slices"
	"testing"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"
	"github.com/bookplatform/backend/local/testenv"
	"github.com/bookplatform/backend/shared/dynamo"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func TestMain(m *testing.M) { testenv.Main(m) }

// A local run keeps its table between starts; when the schema gains an
// index, the next start must add it rather than leave queries of it
// failing.
func TestEnsureTable_AddsMissingIndexes(t *testing.T) {
	ctx := t.Context()
	client := dynamo.NewClient(testenv.AWSConfig(map[string]string{dynamodb.ServiceID: testenv.DynamoDBEndpoint(t)}))
	name := fmt.Sprintf("ensure-%d", time.Now().UnixNano())
	t.Cleanup(func() {
		ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
		defer cancel()
		_, _ = client.DeleteTable(ctx, &dynamodb.DeleteTableInput{TableName: aws.String(name)})
	})

	older := dynamo.Table
	older.Indexes = slices.Clone(dynamo.Table.Indexes[:1])
	require.NoError(t, older.EnsureTable(ctx, client, name))
	require.Equal(t, []string{"GSI1"}, indexes(t, client, name))

	require.NoError(t, dynamo.Table.EnsureTable(ctx, client, name))
	var want []string
	for _, ix := range dynamo.Table.Indexes {
		want = append(want, ix.Name)
	}
	assert.Equal(t, want, indexes(t, client, name))

	require.NoError(t, dynamo.Table.EnsureTable(ctx, client, name), "nothing left to add")
}

func indexes(t *testing.T, client *dynamodb.Client, name string) []string {
	t.Helper()
	out, err := client.DescribeTable(t.Context(), &dynamodb.DescribeTableInput{TableName: aws.String(name)})
	require.NoError(t, err)
	var names []string
	for _, ix := range out.Table.GlobalSecondaryIndexes {
		names = append(names, aws.ToString(ix.IndexName))
	}
	slices.Sort(names)
	return names
}

// The outbox relay reads the table's stream: a new table has it, and a
// local run's table kept from before the outbox gets it at the next
// start.
func TestEnsureTable_Stream(t *testing.T) {
	ctx := t.Context()
	client := dynamo.NewClient(testenv.AWSConfig(map[string]string{dynamodb.ServiceID: testenv.DynamoDBEndpoint(t)}))
	name := fmt.Sprintf("stream-%d", time.Now().UnixNano())
	t.Cleanup(func() {
		ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
		defer cancel()
		_, _ = client.DeleteTable(ctx, &dynamodb.DeleteTableInput{TableName: aws.String(name)})
	})
	stream := func() *types.StreamSpecification {
		out, err := client.DescribeTable(ctx, &dynamodb.DescribeTableInput{TableName: aws.String(name)})
		require.NoError(t, err)
		return out.Table.StreamSpecification
	}

	older := dynamo.Table
	older.Stream = ""
	require.NoError(t, older.EnsureTable(ctx, client, name))
	if s := stream(); s != nil {
		require.False(t, aws.ToBool(s.StreamEnabled))
	}

	require.NoError(t, dynamo.Table.EnsureTable(ctx, client, name))
	s := stream()
	require.NotNil(t, s)
	assert.True(t, aws.ToBool(s.StreamEnabled))
	assert.Equal(t, types.StreamViewTypeNewImage, s.StreamViewType)
	require.NoError(t, dynamo.Table.EnsureTable(ctx, client, name), "nothing left to change")
}
