package callstats

import (
	"context"
	"net/http"
	"net/http/httptest"
	"sync/atomic"
	"testing"
	"time"

	"github.com/bookplatform/backend/shared/effects"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// Outbound HTTP from a read-only request never leaves the process; from
// any other request it does, and is recorded.
func TestClient_RefusesOutboundRequestsOfReadOnlyContexts(t *testing.T) {
	var hits atomic.Int32
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) { hits.Add(1) }))
	defer srv.Close()
	c := Client()

	ctx, rec := With(context.Background())
	req, err := http.NewRequestWithContext(effects.ReadOnly(ctx), http.MethodGet, srv.URL, nil)
	require.NoError(t, err)
	_, err = c.Do(req)
	assert.ErrorIs(t, err, effects.ErrReadOnly)
	assert.Zero(t, hits.Load())
	assert.Empty(t, rec.Calls(), "a refused request made no call")

	mark := time.Now()
	req, err = http.NewRequestWithContext(ctx, http.MethodPost, srv.URL, nil)
	require.NoError(t, err)
	res, err := c.Do(req)
	require.NoError(t, err)
	_ = res.Body.Close()
	assert.EqualValues(t, 1, hits.Load())
	require.Len(t, rec.Calls(), 1)
	assert.Equal(t, "http", rec.Calls()[0].Service)
	assert.True(t, rec.ChangedSince(mark, IsRead), "an outbound POST is a side effect")
}

func TestIsRead(t *testing.T) {
	assert.True(t, IsRead("GET api.example.com"))
	assert.True(t, IsRead("HEAD api.example.com"))
	assert.True(t, IsRead("GetItem"))
	assert.False(t, IsRead("POST api.example.com"))
	assert.False(t, IsRead("PutItem"))
}
