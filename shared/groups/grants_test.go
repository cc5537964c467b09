package groups

import (
	"slices"
	"testing"

	"github.com/stretchr/testify/assert"
)

// iamTableActions are the DynamoDB item and query actions IAM knows that
// a function may be granted on the table. dynamodb:TransactWriteItems
// and TransactGetItems are not among them: IAM authorizes a transaction
// by its parts (shared/dynamo, IAMActions).
var iamTableActions = []string{
	"dynamodb:BatchGetItem", "dynamodb:BatchWriteItem", "dynamodb:ConditionCheckItem", "dynamodb:DeleteItem",
	"dynamodb:GetItem", "dynamodb:PutItem", "dynamodb:Query", "dynamodb:Scan", "dynamodb:UpdateItem",
}

// Grants name only real IAM actions; whether each is needed, and enough,
// is the call benchmark's test (local/bench, TestCallCounts).
func TestFunctions_grantOnlyIAMActions(t *testing.T) {
	for _, f := range Functions() {
		for _, a := range f.TableActions {
			assert.True(t, slices.Contains(iamTableActions, a), "function %s is granted %s, which is no IAM action on items", f.Name, a)
		}
	}
}

// Only the functions whose routes verify no token (the payment
// provider's webhook signs with its own secret), and the outbox relay
// (it has no routes), run without the signing keys.
func TestFunctions_keyless(t *testing.T) {
	var keyless []string
	for _, f := range Functions() {
		if f.Keyless {
			keyless = append(keyless, f.Name)
		}
	}
	assert.Equal(t, []string{"health", "payments", "docs", "relay", "poolpayouts"}, keyless)
}
