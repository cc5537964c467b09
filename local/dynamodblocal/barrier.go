package dynamodblocal

import (
	"context"
	"errors"
	"fmt"
	"net"
	"net/http"
	"net/http/httputil"
	"net/url"
	"strconv"
	"strings"
	"time"
)

// DynamoDB Local answers a transaction before it is on disk. It runs
// every SQLite statement on one queue thread; TransactWriteItems (and
// PartiQL's ExecuteTransaction) opens an SQLite transaction, writes its
// items, then puts the COMMIT on that queue and answers without waiting
// for it (SQLiteDBAccess.commitTransaction queues the job and does not
// call get(), unlike every other write, which waits for its own
// auto-committed job). A process killed in the moment between the answer
// and the queued COMMIT loses an acknowledged write: SQLite rolls the
// open transaction back from its journal on the next start. Measured
// before this barrier: two transactions in three lost when the JVM got
// SIGKILL right after the answer, none of the plain puts.
//
// The barrier is a reverse proxy in front of a DynamoDB Local that keeps
// its data: after a transaction's 200 it sends ListTables, which runs on
// the same queue after the COMMIT, and passes the answer on only when
// that returns, so what the client was told is committed is in the
// database file (the OS has it: it survives the process, not a power
// cut). An in-memory instance has nothing to keep and gets no proxy.
var committedLater = []string{".TransactWriteItems", ".ExecuteTransaction"}

// barrier is the proxy and its server.
type barrier struct {
	srv  *http.Server
	done chan struct{}
}

// startBarrier listens on port (0 picks one) and proxies to jvm, the
// DynamoDB Local endpoint. It returns the proxy's endpoint and port.
func startBarrier(port int, jvm string) (*barrier, string, int, error) {
	target, err := url.Parse(jvm)
	if err != nil {
		return nil, "", 0, err
	}
	ln, err := net.Listen("tcp", "127.0.0.1:"+strconv.Itoa(port))
	if err != nil {
		return nil, "", 0, fmt.Errorf("dynamodb local: barrier: %w", err)
	}
	client := &http.Client{Timeout: 30 * time.Second}
	rp := httputil.NewSingleHostReverseProxy(target)
	rp.ModifyResponse = func(resp *http.Response) error {
		if resp.StatusCode != http.StatusOK || !commitsLater(resp.Request.Header.Get("X-Amz-Target")) {
			return nil
		}
		// An error here answers 502 instead of the 200: the client is
		// not told a write is kept before it is; the SDK retries a
		// transaction with the same client token, so the retry is safe.
		if err := ping(resp.Request.Context(), client, jvm); err != nil {
			return fmt.Errorf("dynamodb local: wait for the commit: %w", err)
		}
		return nil
	}
	b := &barrier{srv: &http.Server{Handler: rp, ReadHeaderTimeout: 10 * time.Second}, done: make(chan struct{})}
	go func() {
		defer close(b.done)
		_ = b.srv.Serve(ln)
	}()
	p := ln.Addr().(*net.TCPAddr).Port
	return b, "http://127.0.0.1:" + strconv.Itoa(p), p, nil
}

// commitsLater reports whether a request's X-Amz-Target is an operation
// whose COMMIT DynamoDB Local queues after answering.
func commitsLater(target string) bool {
	for _, op := range committedLater {
		if strings.HasSuffix(target, op) {
			return true
		}
	}
	return false
}

// close stops accepting requests and waits for the server to end.
func (b *barrier) close() error {
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	err := b.srv.Shutdown(ctx)
	<-b.done
	if errors.Is(err, context.DeadlineExceeded) {
		return b.srv.Close()
	}
	return err
}
