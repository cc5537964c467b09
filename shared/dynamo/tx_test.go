package dynamo_test

import (
	"net"
	"net/http"
	"sync/atomic"
	"syscall"
	"testing"
	"time"

	"github.com/bookplatform/backend/local/testenv"
	"github.com/bookplatform/backend/shared/dynamo"
	"github.com/bookplatform/backend/shared/users"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// loseFirstAnswer sends every request but loses the answer of the first
// one, as a connection reset after DynamoDB committed would.
type loseFirstAnswer struct {
	next http.RoundTripper
	lost atomic.Bool
}

func (l *loseFirstAnswer) RoundTrip(r *http.Request) (*http.Response, error) {
	res, err := l.next.RoundTrip(r)
	if err == nil && l.lost.CompareAndSwap(false, true) {
		_ = res.Body.Close()
		return nil, &net.OpError{Op: "read", Net: "tcp", Err: syscall.ECONNRESET}
	}
	return res, err
}

// A transaction carries one client request token over its attempts: when
// the answer of one that committed is lost, the SDK's retry succeeds as
// that commit instead of failing its own conditions (a sign-up would
// report its own email as taken).
func TestTx_RetryOfACommittedTransactionSucceeds(t *testing.T) {
	env := testenv.New(t)
	cfg := env.AWS.Copy()
	lossy := &loseFirstAnswer{next: http.DefaultTransport}
	cfg.HTTPClient = &http.Client{Transport: lossy}
	lossyUsers := dynamo.NewUsers(dynamo.Handle{DB: dynamo.NewClient(cfg), Table: env.Config.TableName})

	now := time.Now().UTC()
	u := &users.User{ID: "u-retried", Username: "retried", Email: "retried@example.com", DisplayName: "R", Tier: users.TierFree, CreatedAt: now, UpdatedAt: now}
	require.NoError(t, lossyUsers.CreateUser(t.Context(), u))
	require.True(t, lossy.lost.Load(), "the first answer was lost")
	got, err := dynamo.NewUsers(env.App.Table).GetUser(t.Context(), u.ID)
	require.NoError(t, err)
	assert.Equal(t, "retried", got.Username)
}
