package webhooks

import (
	"context"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
)

func client(allowPrivate bool, timeout time.Duration) *Client {
	return NewClient(Settings{AllowPrivateTargets: allowPrivate, Timeout: timeout})
}

// Outside the local run nothing private is connected to, judged on the
// address the connection is about to reach: a literal private address,
// a name that resolves to loopback (as a rebinding name does after the
// check of a URL), and plain http are all refused, and the receiver on
// loopback never sees a request.
func TestClient_refusesPrivateTargets(t *testing.T) {
	var hits atomic.Int32
	srv := httptest.NewTLSServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) { hits.Add(1) }))
	defer srv.Close()
	port := srv.URL[strings.LastIndex(srv.URL, ":")+1:]
	c := client(false, 2*time.Second)
	ctx := context.Background()
	for _, target := range []string{
		"https://127.0.0.1:" + port + "/hook", // loopback, literally
		"https://localhost:" + port + "/hook", // a name resolving to loopback
		"https://10.0.0.1/hook",               // private: refused before any packet
		"https://169.254.169.254/latest/meta-data/",
		"https://[::1]:" + port + "/hook",
		"https://[::1%25lo]:" + port + "/hook", // a zone does not hide loopback
	} {
		a := c.Post(ctx, target, http.Header{}, []byte(`{}`))
		assert.Equal(t, 0, a.ResponseCode, target)
		assert.Contains(t, a.Error, "refused: the address is private", target)
	}
	a := c.Post(ctx, "http://example.com/hook", http.Header{}, []byte(`{}`))
	assert.Equal(t, "refused: only https URLs are delivered to", a.Error)
	assert.Zero(t, hits.Load(), "nothing reached the receiver")
}

// A redirect is not followed: it is a failed attempt, and its target is
// never asked.
func TestClient_followsNoRedirect(t *testing.T) {
	var followed atomic.Int32
	target := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) { followed.Add(1) }))
	defer target.Close()
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		http.Redirect(w, r, target.URL, http.StatusTemporaryRedirect)
	}))
	defer srv.Close()
	a := client(true, 2*time.Second).Post(context.Background(), srv.URL, http.Header{}, []byte(`{}`))
	assert.Equal(t, http.StatusTemporaryRedirect, a.ResponseCode)
	assert.Equal(t, "redirect not followed (HTTP 307)", a.Error)
	assert.Zero(t, followed.Load())
}

// A receiver that does not answer in time fails the attempt as a
// timeout; one that streams an endless body after its 2xx costs the
// worker only ResponseLimit bytes: the attempt succeeds at once.
func TestClient_timeoutAndBodyLimit(t *testing.T) {
	release := make(chan struct{})
	slow := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		select {
		case <-release:
		case <-time.After(5 * time.Second):
		}
	}))
	defer slow.Close()
	defer close(release)
	start := time.Now()
	a := client(true, 200*time.Millisecond).Post(context.Background(), slow.URL, http.Header{}, []byte(`{}`))
	assert.Equal(t, "timeout", a.Error)
	assert.Less(t, time.Since(start), 2*time.Second)

	var written atomic.Int64
	endless := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.WriteHeader(http.StatusOK)
		chunk := []byte(strings.Repeat("x", 1024))
		for range 10_000 { // 10 MB unless the client hangs up
			if _, err := w.Write(chunk); err != nil {
				return
			}
			written.Add(int64(len(chunk)))
		}
	}))
	defer endless.Close()
	a = client(true, 5*time.Second).Post(context.Background(), endless.URL, http.Header{}, []byte(`{}`))
	assert.Equal(t, http.StatusOK, a.ResponseCode)
	assert.Empty(t, a.Error)
	assert.Less(t, a.DurationMs, int64(2000))
}

// The request carries the signature headers given, and the client's
// own content type and user agent.
func TestClient_sendsTheHeaders(t *testing.T) {
	var got http.Header
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) { got = r.Header.Clone() }))
	defer srv.Close()
	h := http.Header{}
	h.Set(HeaderID, "ev1")
	a := client(true, time.Second).Post(context.Background(), srv.URL, h, []byte(`{}`))
	assert.Empty(t, a.Error)
	assert.Equal(t, "ev1", got.Get(HeaderID))
	assert.Equal(t, "application/json", got.Get("Content-Type"))
	assert.Equal(t, UserAgent, got.Get("User-Agent"))
}
