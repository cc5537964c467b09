package effects

import (
	"context"
	"testing"

	"github.com/stretchr/testify/assert"
)

func TestIsRead(t *testing.T) {
	for _, op := range []string{"GetItem", "Query", "Scan", "BatchGetItem", "TransactGetItems", "DescribeTable", "ListTables", "HeadObject", "GetObject", "ReceiveMessage"} {
		if op == "ReceiveMessage" {
			assert.False(t, IsRead(op), "receiving hides a message from other consumers: a side effect")
			continue
		}
		assert.True(t, IsRead(op), op)
	}
	for _, op := range []string{"PutItem", "UpdateItem", "DeleteItem", "TransactWriteItems", "BatchWriteItem", "PutObject", "SendMessage", "SomethingNew"} {
		assert.False(t, IsRead(op), op)
	}
}

func TestCheck(t *testing.T) {
	ctx := context.Background()
	assert.NoError(t, Check(ctx, "x"))
	assert.False(t, IsReadOnly(ctx))
	ro := ReadOnly(ctx)
	assert.True(t, IsReadOnly(ro))
	err := Check(ro, "dynamodb:PutItem")
	assert.ErrorIs(t, err, ErrReadOnly)
	assert.Contains(t, err.Error(), "dynamodb:PutItem")
}
