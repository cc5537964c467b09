package main

import (
	"context"
	"testing"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"
	"github.com/bookplatform/backend/local/testenv"
	"github.com/bookplatform/backend/shared/callstats"
	"github.com/bookplatform/backend/shared/dynamo"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// TestDynamoDBLocal_DoublesTransactionIndexWrites holds the one
// correction billedCapacity makes to what DynamoDB Local reports: the
// same change to an item in two indexes, made alone and then inside a
// transaction, is reported with its index writes doubled by the
// transaction, like its table write. DynamoDB bills the index writes of
// a transaction once (billedCapacity's comment says why), so the
// benchmark halves them; should a DynamoDB Local stop doubling them,
// this test fails and the halving must go.
func TestDynamoDBLocal_DoublesTransactionIndexWrites(t *testing.T) {
	env := testenv.New(t)
	db := dynamo.NewClient(env.AWS)
	table := aws.String(env.Config.TableName)
	str := func(v string) types.AttributeValue { return &types.AttributeValueMemberS{Value: v} }
	key := map[string]types.AttributeValue{"PK": str("BENCH#tx-index"), "SK": str("ITEM")}
	item := map[string]types.AttributeValue{
		"PK": key["PK"], "SK": key["SK"], "n": &types.AttributeValueMemberN{Value: "0"},
		"GSI1PK": str("BENCH#one"), "GSI1SK": str("1"), "GSI2PK": str("BENCH#two"), "GSI2SK": str("1"),
	}
	add := func() *dynamodb.UpdateItemInput {
		return &dynamodb.UpdateItemInput{TableName: table, Key: key, UpdateExpression: aws.String("ADD n :one"),
			ExpressionAttributeValues: map[string]types.AttributeValue{":one": &types.AttributeValueMemberN{Value: "1"}}}
	}
	// measure runs one call with a recorder and returns what it reported.
	measure := func(call func(ctx context.Context) error) []callstats.Call {
		ctx, rec := callstats.With(t.Context())
		require.NoError(t, call(ctx))
		return rec.Calls()
	}

	measure(func(ctx context.Context) error {
		_, err := db.PutItem(ctx, &dynamodb.PutItemInput{TableName: table, Item: item})
		return err
	})
	alone := measure(func(ctx context.Context) error { _, err := db.UpdateItem(ctx, add()); return err })
	inTx := measure(func(ctx context.Context) error {
		u := add()
		_, err := db.TransactWriteItems(ctx, &dynamodb.TransactWriteItemsInput{TransactItems: []types.TransactWriteItem{{Update: &types.Update{
			TableName: u.TableName, Key: u.Key, UpdateExpression: u.UpdateExpression, ExpressionAttributeValues: u.ExpressionAttributeValues,
		}}}})
		return err
	})
	require.Len(t, alone, 1)
	require.Len(t, inTx, 1)
	one, tx := alone[0].Capacity, inTx[0].Capacity
	require.Equal(t, 2.0, one.IndexWrite, "the item is in two indexes: one write each")
	assert.Equal(t, 2*one.TableWrite, tx.TableWrite, "a transaction's table write is billed twice")
	assert.Equal(t, 2*one.IndexWrite, tx.IndexWrite, "DynamoDB Local reports a transaction's index writes doubled")

	billed, local := billedCapacity(inTx)
	assert.Equal(t, tx.IndexWrite, local)
	assert.Equal(t, one.IndexWrite, billed.IndexWrite, "billed: the index writes once")
	assert.Equal(t, tx.TableWrite, billed.TableWrite, "billed: the table write twice")
	billedAlone, _ := billedCapacity(alone)
	assert.Equal(t, one, billedAlone, "a call outside a transaction is billed as reported")
}
