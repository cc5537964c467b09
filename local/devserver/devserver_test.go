package devserver_test

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"log/slog"
	"net"
	"net/http"
	"net/http/httptest"
	"regexp"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/bookplatform/backend/local/devserver"
	"github.com/bookplatform/backend/local/testenv"
	"github.com/bookplatform/backend/shared/apperr"
	"github.com/bookplatform/backend/shared/httpapi"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func TestMain(m *testing.M) { testenv.Main(m) }

// requestIDPattern is the shape of a request id outside Lambda.
var requestIDPattern = regexp.MustCompile(`^[0-9a-f]{24}$`)

// answer is what a client saw.
type answer struct {
	status int
	header http.Header
	body   []byte
	err    httpapi.ErrorObject // the envelope's inside, when there is one
}

// send sends a request with extra headers and reads the answer.
func send(t *testing.T, method, url string, body io.Reader, headers map[string]string) answer {
	t.Helper()
	req, err := http.NewRequest(method, url, body)
	require.NoError(t, err)
	for k, v := range headers {
		req.Header.Set(k, v)
	}
	resp, err := http.DefaultClient.Do(req)
	require.NoError(t, err)
	defer resp.Body.Close()
	data, err := io.ReadAll(resp.Body)
	require.NoError(t, err)
	a := answer{status: resp.StatusCode, header: resp.Header, body: data}
	var env httpapi.ErrorBody
	if json.Unmarshal(data, &env) == nil {
		a.err = env.Error
	}
	return a
}

// assertEnvelope checks an error answer: its status, the envelope's code
// and name, and one request id in the header and the body.
func assertEnvelope(t *testing.T, a answer, status int, code apperr.Code, name string) {
	t.Helper()
	assert.Equal(t, status, a.status, "%s", a.body)
	assert.Equal(t, "application/json; charset=utf-8", a.header.Get("Content-Type"))
	assert.Equal(t, code, a.err.Code, "%s", a.body)
	assert.Equal(t, name, a.err.Name)
	assert.NotEmpty(t, a.err.Message)
	assert.Regexp(t, requestIDPattern, a.header.Get("X-Request-Id"))
	assert.Equal(t, a.header.Get("X-Request-Id"), a.err.RequestID, "the envelope names the id of the header")
}

// While the stack starts, every path, /health included, is answered at
// once with 503 in the envelope naming the stage; once ready, the same
// server answers from the app.
func TestFront_startingThenReady(t *testing.T) {
	t.Parallel()
	env := testenv.New(t)
	front := devserver.NewFront(devserver.DefaultSettings(), env.App.Logger)
	srv := httptest.NewServer(front)
	t.Cleanup(srv.Close)

	front.Starting("loading the demo catalog (412 of 698 books)")
	ids := map[string]bool{}
	for _, c := range []struct{ method, path, body string }{
		{"GET", "/health", ""},
		{"GET", "/v1/books?q=tolkien", ""},
		{"POST", "/v1/auth/login", `{"email":"reader@example.com","password":"demo-password"}`},
		{"GET", devserver.MediaPrefix + "avatars/u/a.png", ""},
		{"DELETE", "/no/such/route", ""},
	} {
		t.Run(c.method+" "+c.path, func(t *testing.T) {
			start := time.Now()
			a := send(t, c.method, srv.URL+c.path, strings.NewReader(c.body), nil)
			assert.Less(t, time.Since(start), time.Second, "answered at once")
			assertEnvelope(t, a, http.StatusServiceUnavailable, apperr.CodeUnavailable, "ServiceUnavailable")
			assert.Equal(t, "The local stack is starting: loading the demo catalog (412 of 698 books)", a.err.Message)
			assert.Equal(t, "2", a.header.Get("Retry-After"))
			assert.Equal(t, "*", a.header.Get("Access-Control-Allow-Origin"), "a browser app can read it")
			assert.Contains(t, a.header.Get("Access-Control-Expose-Headers"), "Retry-After")
			ids[a.err.RequestID] = true
		})
	}
	assert.Len(t, ids, 5, "one id per request")

	front.Starting("starting the queue workers")
	a := send(t, "GET", srv.URL+"/health", nil, nil)
	assert.Equal(t, "The local stack is starting: starting the queue workers", a.err.Message)

	front.Ready(env.Handler())
	a = send(t, "GET", srv.URL+"/health", nil, nil)
	require.Equal(t, http.StatusOK, a.status, "%s", a.body)
	assert.Contains(t, string(a.body), `"status":"ok"`)
	assert.Regexp(t, requestIDPattern, a.header.Get("X-Request-Id"))
	assert.Empty(t, a.header.Get("Retry-After"))
	a = send(t, "GET", srv.URL+"/v1/no-such-route", nil, nil)
	assertEnvelope(t, a, http.StatusNotFound, apperr.CodeNotFound, "NotFound")
}

// A header block over the front's limit (but under net/http's 1 MB) is
// refused with 431 in the envelope, starting or ready; the request line
// counts; a block under the limit is served.
func TestFront_headerLimit(t *testing.T) {
	t.Parallel()
	env := testenv.New(t)
	front := devserver.NewFront(devserver.DefaultSettings(), env.App.Logger)
	srv := httptest.NewServer(front)
	t.Cleanup(srv.Close)
	headers := func(kb int) map[string]string {
		h := map[string]string{}
		for i := range kb {
			h[fmt.Sprintf("X-Filler-%d", i)] = strings.Repeat("a", 1000)
		}
		return h
	}

	a := send(t, "GET", srv.URL+"/health", nil, headers(40))
	assertEnvelope(t, a, http.StatusRequestHeaderFieldsTooLarge, "REQUEST_HEADER_FIELDS_TOO_LARGE", "RequestHeaderFieldsTooLarge")

	front.Ready(env.Handler())
	a = send(t, "GET", srv.URL+"/health", nil, headers(40))
	assertEnvelope(t, a, http.StatusRequestHeaderFieldsTooLarge, "REQUEST_HEADER_FIELDS_TOO_LARGE", "RequestHeaderFieldsTooLarge")
	assert.Contains(t, a.err.Message, "the limit is 10240")

	a = send(t, "GET", srv.URL+"/v1/books?q="+strings.Repeat("a", 11000), nil, nil)
	assertEnvelope(t, a, http.StatusRequestHeaderFieldsTooLarge, "REQUEST_HEADER_FIELDS_TOO_LARGE", "RequestHeaderFieldsTooLarge")

	a = send(t, "GET", srv.URL+"/health", nil, headers(8))
	assert.Equal(t, http.StatusOK, a.status, "8 KB of headers pass: %s", a.body)
}

// Every /media answer carries X-Request-Id, the stored bytes and errors in
// the envelope alike.
func TestMedia_requestID(t *testing.T) {
	t.Parallel()
	env := testenv.New(t)
	url, err := env.Media.PutImage(context.Background(), "avatars/u1/a.png", "image/png", []byte("png bytes"))
	require.NoError(t, err)

	a := send(t, "GET", url, nil, nil)
	require.Equal(t, http.StatusOK, a.status, "%s", a.body)
	assert.Equal(t, "png bytes", string(a.body))
	assert.Equal(t, "image/png", a.header.Get("Content-Type"))
	assert.Regexp(t, requestIDPattern, a.header.Get("X-Request-Id"))

	head := send(t, "HEAD", url, nil, nil)
	assert.Equal(t, http.StatusOK, head.status)
	assert.Regexp(t, requestIDPattern, head.header.Get("X-Request-Id"))
	assert.NotEqual(t, a.header.Get("X-Request-Id"), head.header.Get("X-Request-Id"))

	missing := send(t, "GET", env.URL(devserver.MediaPrefix+"avatars/u1/none.png"), nil, nil)
	assertEnvelope(t, missing, http.StatusNotFound, apperr.CodeNotFound, "NotFound")
	assert.Equal(t, "*", missing.header.Get("Access-Control-Allow-Origin"), "a web app can read the error too")

	post := send(t, "POST", url, strings.NewReader("x"), nil)
	assertEnvelope(t, post, http.StatusMethodNotAllowed, apperr.CodeMethodNotAllowed, "MethodNotAllowed")
	assert.Equal(t, "GET, HEAD", post.header.Get("Allow"))
}

// logBuffer collects the app's log lines for a test to read.
type logBuffer struct {
	mu  sync.Mutex
	buf bytes.Buffer
}

func (b *logBuffer) Write(p []byte) (int, error) {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.buf.Write(p)
}

// requests returns the access-log lines of path.
func (b *logBuffer) requests(path string) []map[string]any {
	b.mu.Lock()
	defer b.mu.Unlock()
	var out []map[string]any
	for _, line := range strings.Split(b.buf.String(), "\n") {
		var m map[string]any
		if json.Unmarshal([]byte(line), &m) == nil && m["msg"] == "request" && m["path"] == path {
			out = append(out, m)
		}
	}
	return out
}

// serve starts the local run's server (NewServer over a ready Front) with
// s on a free port, as local/main.go does, and returns its address.
func serve(t *testing.T, env *testenv.Env, s devserver.Settings) string {
	t.Helper()
	front := devserver.NewFront(s, env.App.Logger)
	front.Ready(env.Handler())
	srv := devserver.NewServer(front, s)
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	require.NoError(t, err)
	go func() { _ = srv.Serve(ln) }()
	t.Cleanup(func() { _ = srv.Close() })
	return ln.Addr().String()
}

// The connection timeouts cut off a client that stops sending: one that
// announced a 1,000-byte body and sent 7 bytes gets the handler's answer
// to its unreadable body once ReadTimeout passes, and the connection is
// closed; one that never finishes its headers is disconnected without an
// answer once ReadHeaderTimeout passes.
func TestServer_readTimeouts(t *testing.T) {
	t.Parallel()
	logs := &logBuffer{}
	env := testenv.New(t, testenv.WithLogger(slog.New(slog.NewJSONHandler(logs, nil))))
	s := devserver.DefaultSettings()
	s.ReadHeaderTimeout, s.ReadTimeout = time.Second, time.Second
	addr := serve(t, env, s)

	t.Run("short body", func(t *testing.T) {
		t.Parallel()
		conn, err := net.Dial("tcp", addr)
		require.NoError(t, err)
		defer conn.Close()
		require.NoError(t, conn.SetDeadline(time.Now().Add(10*time.Second)))
		start := time.Now()
		_, err = io.WriteString(conn, "POST /v1/auth/login HTTP/1.1\r\nHost: "+addr+"\r\n"+
			"Content-Type: application/json\r\nContent-Length: 1000\r\n\r\n"+`{"email`)
		require.NoError(t, err)

		br := bufio.NewReader(conn)
		resp, err := http.ReadResponse(br, nil)
		require.NoError(t, err, "the client gets an answer")
		took := time.Since(start)
		body, _ := io.ReadAll(resp.Body)
		resp.Body.Close()
		assert.GreaterOrEqual(t, took, 900*time.Millisecond, "not before ReadTimeout")
		assert.Less(t, took, 3*time.Second, "soon after ReadTimeout")
		assert.Equal(t, http.StatusRequestTimeout, resp.StatusCode, "%s", body)
		assert.Contains(t, string(body), `"code":"REQUEST_TIMEOUT"`)
		assert.Regexp(t, requestIDPattern, resp.Header.Get("X-Request-Id"))
		_, err = br.ReadByte()
		assert.ErrorIs(t, err, io.EOF, "then the server closes the connection")

		logged := logs.requests("/v1/auth/login")
		require.Len(t, logged, 1, "one access-log line")
		assert.EqualValues(t, resp.StatusCode, logged[0]["status"], "logged with the status the client got")
		assert.Equal(t, resp.Header.Get("X-Request-Id"), logged[0]["requestId"])
	})

	t.Run("unfinished headers", func(t *testing.T) {
		t.Parallel()
		conn, err := net.Dial("tcp", addr)
		require.NoError(t, err)
		defer conn.Close()
		require.NoError(t, conn.SetDeadline(time.Now().Add(10*time.Second)))
		start := time.Now()
		_, err = io.WriteString(conn, "GET /health HTTP/1.1\r\nHost: "+addr+"\r\nX-Slow: ")
		require.NoError(t, err)
		data, err := io.ReadAll(conn)
		took := time.Since(start)
		require.NoError(t, err, "the connection is closed, not timed out on the client's side")
		assert.Empty(t, data, "no answer")
		assert.GreaterOrEqual(t, took, 900*time.Millisecond)
		assert.Less(t, took, 3*time.Second)
	})
}

// The request deadline ends a handler that would run on, and the app
// answers a request past it in the envelope.
func TestFront_requestDeadline(t *testing.T) {
	t.Parallel()
	env := testenv.New(t)
	s := devserver.DefaultSettings()
	s.RequestTimeout = 300 * time.Millisecond

	t.Run("a stuck handler ends", func(t *testing.T) {
		t.Parallel()
		front := devserver.NewFront(s, env.App.Logger)
		front.Ready(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			select {
			case <-r.Context().Done():
				w.WriteHeader(http.StatusGatewayTimeout)
			case <-time.After(10 * time.Second):
				w.WriteHeader(http.StatusOK)
			}
		}))
		srv := httptest.NewServer(front)
		t.Cleanup(srv.Close)
		start := time.Now()
		a := send(t, "GET", srv.URL+"/anything", nil, nil)
		assert.Equal(t, http.StatusGatewayTimeout, a.status)
		assert.Less(t, time.Since(start), 2*time.Second)
	})

	t.Run("the app answers in the envelope", func(t *testing.T) {
		t.Parallel()
		s := s
		s.RequestTimeout = time.Nanosecond // over before the first AWS call
		front := devserver.NewFront(s, env.App.Logger)
		front.Ready(env.Handler())
		srv := httptest.NewServer(front)
		t.Cleanup(srv.Close)
		a := send(t, "GET", srv.URL+"/v1/users/0b9c3f5e-8a51-4c1e-9d43-7f0c2b8e6a11", nil, nil)
		assert.GreaterOrEqual(t, a.status, 500, "%s", a.body)
		assert.NotEmpty(t, a.err.Code, "%s", a.body)
		assert.Equal(t, a.header.Get("X-Request-Id"), a.err.RequestID)
		t.Logf("past its deadline the app answers %d %s", a.status, a.body)
	})
}
