package dynamo_test

import (
	"testing"

	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"
	"github.com/bookplatform/backend/local/testenv"
	"github.com/bookplatform/backend/shared/callstats"
	"github.com/bookplatform/backend/shared/dynamo"
	"github.com/bookplatform/backend/shared/users"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// A transaction is authorized part by part: the rule names each part's
// single-item action and never dynamodb:TransactWriteItems, which is no
// IAM action.
func TestIAMActions_TransactionsByTheirParts(t *testing.T) {
	write := &dynamodb.TransactWriteItemsInput{TransactItems: []types.TransactWriteItem{
		{Put: &types.Put{}}, {Update: &types.Update{}}, {Delete: &types.Delete{}}, {ConditionCheck: &types.ConditionCheck{}}, {Put: &types.Put{}},
	}}
	assert.Equal(t, []string{"dynamodb:PutItem", "dynamodb:UpdateItem", "dynamodb:DeleteItem", "dynamodb:ConditionCheckItem", "dynamodb:PutItem"},
		dynamo.IAMActions("TransactWriteItems", write))
	get := &dynamodb.TransactGetItemsInput{TransactItems: []types.TransactGetItem{{Get: &types.Get{}}, {Get: &types.Get{}}}}
	assert.Equal(t, []string{"dynamodb:GetItem", "dynamodb:GetItem"}, dynamo.IAMActions("TransactGetItems", get))
	assert.Equal(t, []string{"dynamodb:BatchWriteItem"}, dynamo.IAMActions("BatchWriteItem", &dynamodb.BatchWriteItemInput{}))
	assert.Equal(t, []string{"dynamodb:Query"}, dynamo.IAMActions("Query", &dynamodb.QueryInput{}))
}

// The client records the parts of the transactions the stores send: a
// sign-up puts its account with its username and email claims in one
// transaction, which IAM authorizes as dynamodb:PutItem.
func TestClient_RecordsTransactionParts(t *testing.T) {
	env := testenv.New(t)
	ctx, rec := callstats.With(t.Context())
	_, err := env.App.Users.Signup(ctx, users.SignupInput{Username: "iam_parts", Email: "iam.parts@example.com", Password: "password-123456", DisplayName: "Parts"})
	require.NoError(t, err)
	assert.Contains(t, rec.Operations(), "dynamodb:TransactWriteItems")
	assert.Contains(t, rec.Actions(), "dynamodb:PutItem")
	assert.NotContains(t, rec.Actions(), "dynamodb:TransactWriteItems")
}
