package devserver

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"net/http"
	"strings"
	"sync/atomic"
	"time"

	"github.com/bookplatform/backend/shared/apperr"
	"github.com/bookplatform/backend/shared/httpapi"
)

// Settings are the local server's limits. DefaultSettings holds those of
// `make run`; local/main.go reads overrides from its LOCAL_* variables.
type Settings struct {
	// ReadHeaderTimeout bounds the reading of a request's header block. A
	// client that has not sent it whole by then is disconnected without an
	// answer (net/http answers nothing to a read timeout).
	ReadHeaderTimeout time.Duration
	// ReadTimeout bounds the reading of a whole request, body included,
	// from its first byte. A body that stops short of its Content-Length
	// fails the handler's read at that moment, so the handler answers its
	// error and the connection is closed.
	ReadTimeout time.Duration
	// WriteTimeout bounds the time from the end of the header block to the
	// end of the answer. It must exceed RequestTimeout, or the answer to a
	// request that ran out of time could not be written.
	WriteTimeout time.Duration
	// IdleTimeout bounds how long a kept-alive connection waits for its
	// next request.
	IdleTimeout time.Duration
	// RequestTimeout is each request's deadline (its context's), the local
	// stand-in for API Gateway's 30 s integration timeout: a stuck handler
	// ends instead of holding its client forever.
	RequestTimeout time.Duration
	// MaxHeaderBytes limits a request's request line, header names and
	// header values (Host included); a larger request is refused with 431
	// in the error envelope. API Gateway's HTTP API allows 10240 bytes of
	// request line and header values, a measure never above this one, so
	// what passes here passes there.
	MaxHeaderBytes int
}

// DefaultSettings returns the limits of `make run`.
func DefaultSettings() Settings {
	return Settings{
		ReadHeaderTimeout: 10 * time.Second,
		ReadTimeout:       30 * time.Second,
		WriteTimeout:      60 * time.Second,
		IdleTimeout:       120 * time.Second,
		RequestTimeout:    30 * time.Second,
		MaxHeaderBytes:    10240,
	}
}

// Check reports settings that cannot work, all at once: a limit that is
// not positive, a request deadline that leaves no time to write the
// answer, a header limit that net/http's own would hide.
func (s Settings) Check() error {
	var errs []error
	for _, d := range []struct {
		name string
		v    time.Duration
	}{
		{"read header timeout", s.ReadHeaderTimeout}, {"read timeout", s.ReadTimeout},
		{"write timeout", s.WriteTimeout}, {"idle timeout", s.IdleTimeout}, {"request timeout", s.RequestTimeout},
	} {
		if d.v <= 0 {
			errs = append(errs, fmt.Errorf("%s must be positive, got %s", d.name, d.v))
		}
	}
	if s.RequestTimeout >= s.WriteTimeout {
		errs = append(errs, fmt.Errorf("request timeout (%s) must be shorter than write timeout (%s), or a late answer cannot be written",
			s.RequestTimeout, s.WriteTimeout))
	}
	if s.MaxHeaderBytes <= 0 || s.MaxHeaderBytes > http.DefaultMaxHeaderBytes {
		errs = append(errs, fmt.Errorf("header limit must be from 1 to %d bytes (net/http's own), got %d",
			http.DefaultMaxHeaderBytes, s.MaxHeaderBytes))
	}
	return errors.Join(errs...)
}

// NewServer returns the local run's server of h, with s's connection
// timeouts. http.Server.MaxHeaderBytes stays at net/http's default (1 MB),
// far above s.MaxHeaderBytes: a header block between the two reaches the
// Front, which refuses it in the envelope; only one over 1 MB gets
// net/http's own plain-text 431, which no handler sees or can change.
func NewServer(h http.Handler, s Settings) *http.Server {
	return &http.Server{
		Handler:           h,
		ReadHeaderTimeout: s.ReadHeaderTimeout,
		ReadTimeout:       s.ReadTimeout,
		WriteTimeout:      s.WriteTimeout,
		IdleTimeout:       s.IdleTimeout,
	}
}

// startingRetryAfter is the Retry-After of the start-up 503: the first
// start takes 10-25 s, later ones a few seconds.
const startingRetryAfter = 2 * time.Second

// Front is the local server's outermost handler. While the stack starts
// it answers every request at once, /health included, with 503
// ServiceUnavailable in the error envelope, naming the start-up stage,
// with Retry-After: a client never waits on a port that accepts and says
// nothing. Ready switches it to the app. In both states it refuses a
// header block over Settings.MaxHeaderBytes with 431, and once ready it
// gives each request the Settings.RequestTimeout deadline. Its own answers
// carry X-Request-Id and are logged with it, like the router's. It is safe
// for concurrent use.
type Front struct {
	settings Settings
	logger   *slog.Logger
	stage    atomic.Pointer[string]
	next     atomic.Pointer[http.Handler] // nil while starting
}

// NewFront returns a Front in its starting state. A nil logger is
// slog.Default().
func NewFront(s Settings, logger *slog.Logger) *Front {
	if logger == nil {
		logger = slog.Default()
	}
	f := &Front{settings: s, logger: logger}
	f.Starting("starting")
	return f
}

// Starting sets the stage the start-up 503 names, as in "loading the demo
// catalog (412 of 698 books)". It has no effect on answers once f is
// ready.
func (f *Front) Starting(stage string) { f.stage.Store(&stage) }

// Ready makes f serve h from now on, for every request that arrives after
// the call.
func (f *Front) Ready(h http.Handler) { f.next.Store(&h) }

// ServeHTTP refuses an oversized header block, answers 503 while starting,
// and serves the app within the request deadline once ready.
func (f *Front) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	if n := headerBytes(r); n > f.settings.MaxHeaderBytes {
		f.refuse(w, r, apperr.New(apperr.CodeHeadersTooLarge,
			"The request line and headers are %d bytes; the limit is %d", n, f.settings.MaxHeaderBytes))
		return
	}
	next := f.next.Load()
	if next == nil {
		f.refuse(w, r, &apperr.Error{Code: apperr.CodeUnavailable,
			Message: "The local stack is starting: " + *f.stage.Load(), RetryAfter: startingRetryAfter})
		return
	}
	// The app answers whatever its handler returns once the deadline
	// passes: the context error of its next AWS call.
	ctx, cancel := context.WithTimeout(r.Context(), f.settings.RequestTimeout)
	defer cancel()
	(*next).ServeHTTP(w, r.WithContext(ctx))
}

// refuse answers err in the envelope, readable by a browser app as any
// answer of the API is (the router sets the same CORS headers).
func (f *Front) refuse(w http.ResponseWriter, r *http.Request, err error) {
	start, id := time.Now(), httpapi.NewRequestID(r)
	r = httpapi.WithRequestID(r, id)
	h := w.Header()
	h.Set("Access-Control-Allow-Origin", "*")
	h.Set("Access-Control-Expose-Headers", strings.Join(httpapi.ExposedHeaders, ", "))
	logRequest(f.logger, r, id, writeError(w, r, f.logger, err), start)
}

// headerBytes measures r as API Gateway's HTTP API quota does (request line
// and header values) plus the header names, so that it is never below
// API Gateway's measure. net/http moves Host out of r.Header: it is
// counted from r.Host.
func headerBytes(r *http.Request) int {
	n := len(r.Method) + 1 + len(r.RequestURI) + 1 + len(r.Proto) + len(r.Host)
	for name, values := range r.Header {
		for _, v := range values {
			n += len(name) + len(v)
		}
	}
	return n
}
