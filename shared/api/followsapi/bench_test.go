package followsapi_test

import (
	"context"
	"fmt"
	"net/http"
	"sync"
	"testing"

	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"
	"github.com/aws/smithy-go/middleware"
	"github.com/bookplatform/backend/local/testenv"
)

// writeUnits adds up the capacity every TransactWriteItems consumed: it
// asks DynamoDB for it (ReturnConsumedCapacity) on each call.
type writeUnits struct {
	mu    sync.Mutex
	units float64
	calls int
}

func (w *writeUnits) middleware(stack *middleware.Stack) error {
	return stack.Initialize.Add(middleware.InitializeMiddlewareFunc("benchCapacity",
		func(ctx context.Context, in middleware.InitializeInput, next middleware.InitializeHandler) (middleware.InitializeOutput, middleware.Metadata, error) {
			tx, ok := in.Parameters.(*dynamodb.TransactWriteItemsInput)
			if ok {
				tx.ReturnConsumedCapacity = types.ReturnConsumedCapacityTotal
			}
			out, md, err := next.HandleInitialize(ctx, in)
			if o, isTx := out.Result.(*dynamodb.TransactWriteItemsOutput); ok && isTx && err == nil {
				w.mu.Lock()
				for _, c := range o.ConsumedCapacity {
					if c.CapacityUnits != nil {
						w.units += *c.CapacityUnits
					}
				}
				w.calls++
				w.mu.Unlock()
			}
			return out, md, err
		}), middleware.After)
}

func (w *writeUnits) take() (float64, int) {
	w.mu.Lock()
	defer w.mu.Unlock()
	u, n := w.units, w.calls
	w.units, w.calls = 0, 0
	return u, n
}

// BenchmarkFollowUser times POST /v1/follows/users/{userId} through the
// router against DynamoDB Local (the unfollow that makes the next follow
// possible is not timed), and reports the write units of the follow's
// TransactWriteItems. No relay runs: what is measured is the request.
//
//	go run ./local/withdynamodb go test -run '^$' -bench FollowUser -benchtime 300x ./shared/api/followsapi/
func BenchmarkFollowUser(b *testing.B) {
	var wu writeUnits
	env := testenv.New(b, testenv.WithAPIOptions(wu.middleware))
	ann := env.Signup(b, "ann")
	bob := env.Signup(b, "bob")
	path := "/v1/follows/users/" + bob.ID
	var units float64
	var follows int
	wu.take() // the sign-ups'
	b.ResetTimer()
	for range b.N {
		res := env.Do("POST", path, nil, ann.Token)
		b.StopTimer()
		if res.Status != http.StatusOK {
			b.Fatal(res.String())
		}
		u, n := wu.take()
		units += u
		follows += n
		if res := env.Do("DELETE", path, nil, ann.Token); res.Status != http.StatusOK {
			b.Fatal(res.String())
		}
		wu.take()
		b.StartTimer()
	}
	if follows != b.N {
		b.Fatal(fmt.Sprintf("%d transactions for %d follows", follows, b.N))
	}
	b.ReportMetric(units/float64(b.N), "WCU/follow")
}
