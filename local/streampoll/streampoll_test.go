package streampoll_test

import (
	"errors"
	"net/http"
	"sync/atomic"
	"testing"

	"github.com/bookplatform/backend/local/testenv"
	"github.com/bookplatform/backend/shared/events"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func TestMain(m *testing.M) { testenv.Main(m) }

// A record the handler reports failed is read again from the stream (as
// the event source retries from it) until it succeeds, and its event is
// then consumed once.
func TestRun_retriesAFailedRecord(t *testing.T) {
	env := testenv.New(t, testenv.WithStream())
	ann := env.Signup(t, "ann")
	bob := env.Signup(t, "bob")
	rec := testenv.NewRecorder("flaky")
	var tries atomic.Int32
	rec.SetFail(func(events.Event) error {
		if tries.Add(1) < 3 {
			return errors.New("not yet")
		}
		return nil
	})
	stop := env.StartRelay(rec)
	require.Equal(t, http.StatusOK, env.Do("POST", "/v1/follows/users/"+bob.ID, nil, ann.Token).Status)

	items := env.WaitDelivered(t, 1)
	stop()
	assert.EqualValues(t, 3, tries.Load(), "two failures, then the success")
	got := rec.Events()
	require.Len(t, got, 1)
	assert.Equal(t, items[0].Event.ID, got[0].ID)
}
