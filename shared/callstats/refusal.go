package callstats

import (
	"errors"
	"net"

	"github.com/aws/aws-sdk-go-v2/aws/retry"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"
	"github.com/aws/smithy-go"
	"github.com/aws/smithy-go/middleware"
)

// A failed call changed nothing only when its failure proves it: the
// service answered that it refused the request, or the request never
// left. Any other failure is ambiguous — a 5xx, a timeout, a connection
// reset or a context canceled while the request was on the wire may come
// after the service applied the write — and counts as a change
// (ChangedSince), so that an idempotency key is not released for a
// request that may have taken effect.

// Refused reports whether err, the failure of one AWS call attempt or
// outbound request, proves that it changed nothing:
//
//   - ConditionalCheckFailedException;
//   - TransactionCanceledException whose every reason is one DynamoDB
//     documents as cancelling the whole transaction (None, a condition
//     failure, a conflict, throttling, a validation error, an item
//     collection over its size): nothing of it was written;
//   - any other error the service answered with a 4xx status (validation,
//     throttling, access denied, no such table or bucket), except
//     TransactionInProgressException and
//     IdempotentParameterMismatchException, which report another attempt
//     with the same token that may commit;
//   - a connection that was never made (a dial or DNS failure).
//
// A 5xx, any other transport error and a canceled or expired context are
// not refusals.
func Refused(err error) bool {
	if err == nil {
		return false
	}
	var txe *types.TransactionCanceledException
	if errors.As(err, &txe) {
		for _, r := range txe.CancellationReasons {
			if r.Code == nil || !cancelsTransaction[*r.Code] {
				return false
			}
		}
		return true
	}
	var api smithy.APIError
	if errors.As(err, &api) {
		switch api.ErrorCode() {
		case "TransactionInProgressException", "IdempotentParameterMismatchException":
			return false
		case "ConditionalCheckFailedException":
			return true
		}
	}
	// The SDK wraps a failure to send in a response error too, with
	// status 0: only a status the service sent counts.
	var status interface{ HTTPStatusCode() int }
	if errors.As(err, &status) && status.HTTPStatusCode() != 0 {
		code := status.HTTPStatusCode()
		return code >= 400 && code < 500
	}
	var op *net.OpError
	return errors.As(err, &op) && op.Op == "dial"
}

// cancelsTransaction are the cancellation reasons DynamoDB documents; a
// transaction cancelled for any of them wrote nothing. An unknown code is
// taken as ambiguous.
var cancelsTransaction = map[string]bool{
	"None": true, "ConditionalCheckFailed": true, "TransactionConflict": true, "ThrottlingError": true,
	"ProvisionedThroughputExceeded": true, "ValidationError": true, "ItemCollectionSizeLimitExceeded": true,
}

// refusedCall reports whether an AWS call that failed with err changed
// nothing: every attempt the SDK made was refused. A retry's refusal
// alone proves nothing of the attempt before it: a conditional put whose
// first answer was lost and whose retry fails its condition did write,
// once.
func refusedCall(md middleware.Metadata, err error) bool {
	if attempts, ok := retry.GetAttemptResults(md); ok {
		for _, a := range attempts.Results {
			if !Refused(a.Err) {
				return false
			}
		}
	}
	return Refused(err)
}
