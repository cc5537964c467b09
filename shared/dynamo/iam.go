package dynamo

import (
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
)

// IAMActions are the IAM actions one DynamoDB call needs
// (callstats.Actions, recorded for every call of NewClient's client).
// IAM authorizes a transaction by its parts, each as the single-item
// call it stands for: a TransactWriteItems by one dynamodb:PutItem,
// UpdateItem, DeleteItem or ConditionCheckItem per part, a
// TransactGetItems by one dynamodb:GetItem per part;
// dynamodb:TransactWriteItems is no IAM action at all. Every other call
// (BatchWriteItem and BatchGetItem included) is authorized by the action
// of its own name. The grants of groups.Functions must cover what the
// call benchmark records through this (local/bench, checkGrants).
func IAMActions(operation string, input any) []string {
	switch in := input.(type) {
	case *dynamodb.TransactWriteItemsInput:
		out := make([]string, 0, len(in.TransactItems))
		for _, it := range in.TransactItems {
			switch {
			case it.Put != nil:
				out = append(out, "dynamodb:PutItem")
			case it.Update != nil:
				out = append(out, "dynamodb:UpdateItem")
			case it.Delete != nil:
				out = append(out, "dynamodb:DeleteItem")
			case it.ConditionCheck != nil:
				out = append(out, "dynamodb:ConditionCheckItem")
			}
		}
		return out
	case *dynamodb.TransactGetItemsInput:
		out := make([]string, 0, len(in.TransactItems))
		for range in.TransactItems {
			out = append(out, "dynamodb:GetItem")
		}
		return out
	}
	return []string{"dynamodb:" + operation}
}
