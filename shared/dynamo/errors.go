package dynamo

import (
	"errors"

	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"
)

// cancelReasons returns the cancellation reason codes of a cancelled
// transaction, one per item in request order ("None" for items that passed).
func cancelReasons(err error) ([]string, bool) {
	var txe *types.TransactionCanceledException
	if !errors.As(err, &txe) {
		return nil, false
	}
	codes := make([]string, len(txe.CancellationReasons))
	for i, r := range txe.CancellationReasons {
		if r.Code != nil {
			codes[i] = *r.Code
		}
	}
	return codes, true
}

// failedCondition reports whether item i of a cancelled transaction failed its condition.
func failedCondition(codes []string, i int) bool {
	return i < len(codes) && codes[i] == "ConditionalCheckFailed"
}
