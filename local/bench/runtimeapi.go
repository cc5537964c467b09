package main

import (
	"encoding/json"
	"fmt"
	"io"
	"net"
	"net/http"
	"strconv"
	"sync"
	"time"
)

// runtimeAPI stands in for the Lambda Runtime API
// (https://docs.aws.amazon.com/lambda/latest/dg/runtimes-api.html) for one
// cold start: it hands out exactly one invocation and records when the
// function asked for it and when it posted the answer. aws-lambda-go built
// with lambda.norpc talks only to this API, so the function under test is
// the very binary Lambda runs, not a test harness around its handler.
type runtimeAPI struct {
	event     []byte
	requestID string

	srv  *http.Server
	addr string

	mu       sync.Mutex
	served   bool
	nextAt   time.Time  // first GET .../next: init is over
	result   chan reply // the first invocation's answer
	closed   chan struct{}
	closeErr sync.Once
}

// reply is what the function posted for the invocation.
type reply struct {
	at      time.Time
	isError bool // posted to /error or /init/error
	body    []byte
}

const runtimePrefix = "/2018-06-01/runtime/"

// dynamoPrefix is where the same server stands in for DynamoDB, for the
// yardstick function only (local/bench/minimal): its endpoint is
// http://<addr>/dynamodb/. The functions under test keep a closed port.
const dynamoPrefix = "/dynamodb/"

// getItem answers a DynamoDB call with a found item, as a GetItem of an
// existing key would: an SDK round trip on loopback, nothing more.
func getItem(w http.ResponseWriter, r *http.Request) {
	_, _ = io.Copy(io.Discard, r.Body)
	w.Header().Set("Content-Type", "application/x-amz-json-1.0")
	_, _ = w.Write([]byte(`{"Item":{"PK":{"S":"BENCH"},"SK":{"S":"BENCH"}}}`))
}

func startRuntimeAPI(event []byte, requestID string) (*runtimeAPI, error) {
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return nil, err
	}
	api := &runtimeAPI{
		event: event, requestID: requestID, addr: l.Addr().String(),
		result: make(chan reply, 1), closed: make(chan struct{}),
	}
	mux := http.NewServeMux()
	mux.HandleFunc("GET "+runtimePrefix+"invocation/next", api.next)
	mux.HandleFunc("POST "+runtimePrefix+"invocation/{id}/response", api.post(false))
	mux.HandleFunc("POST "+runtimePrefix+"invocation/{id}/error", api.post(true))
	mux.HandleFunc("POST "+runtimePrefix+"init/error", api.post(true))
	mux.HandleFunc("POST "+dynamoPrefix, getItem)
	api.srv = &http.Server{Handler: mux}
	go func() { _ = api.srv.Serve(l) }()
	return api, nil
}

// next serves the one invocation; later calls block as the real API does
// between invocations, until the process is stopped.
func (a *runtimeAPI) next(w http.ResponseWriter, r *http.Request) {
	a.mu.Lock()
	first := !a.served
	if first {
		a.served, a.nextAt = true, time.Now()
	}
	a.mu.Unlock()
	if !first {
		select {
		case <-r.Context().Done():
		case <-a.closed:
		}
		return
	}
	h := w.Header()
	h.Set("Content-Type", "application/json")
	h.Set("Lambda-Runtime-Aws-Request-Id", a.requestID)
	h.Set("Lambda-Runtime-Deadline-Ms", strconv.FormatInt(time.Now().Add(30*time.Second).UnixMilli(), 10))
	h.Set("Lambda-Runtime-Invoked-Function-Arn", "arn:aws:lambda:eu-west-1:123456789012:function:bench")
	_, _ = w.Write(a.event)
}

func (a *runtimeAPI) post(isError bool) http.HandlerFunc {
	return func(w http.ResponseWriter, r *http.Request) {
		// The clock stops when the post arrives, before its body is read:
		// that is when Lambda would start returning the answer.
		at := time.Now()
		body, _ := io.ReadAll(r.Body)
		if id := r.PathValue("id"); id != "" && id != a.requestID {
			isError, body = true, fmt.Appendf(nil, "answer for unknown request id %q: %s", id, body)
		}
		select {
		case a.result <- reply{at: at, isError: isError, body: body}:
		default: // only the first answer counts
		}
		w.WriteHeader(http.StatusAccepted)
		_, _ = w.Write([]byte(`{"status":"OK"}`))
	}
}

// initDoneAt returns when the function first asked for work.
func (a *runtimeAPI) initDoneAt() time.Time {
	a.mu.Lock()
	defer a.mu.Unlock()
	return a.nextAt
}

func (a *runtimeAPI) close() {
	a.closeErr.Do(func() { close(a.closed) })
	_ = a.srv.Close()
}

// responseStatus summarises a function's answer for the report: the HTTP
// status of an API Gateway proxy response, or the authorizer's verdict.
func responseStatus(body []byte) string {
	var v struct {
		StatusCode   *int  `json:"statusCode"`
		IsAuthorized *bool `json:"isAuthorized"`
	}
	if err := json.Unmarshal(body, &v); err != nil {
		return "unparsed answer"
	}
	switch {
	case v.StatusCode != nil:
		return "HTTP " + strconv.Itoa(*v.StatusCode)
	case v.IsAuthorized != nil:
		return "isAuthorized=" + strconv.FormatBool(*v.IsAuthorized)
	}
	return "answer without status"
}
