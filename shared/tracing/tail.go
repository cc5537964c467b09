package tracing

import (
	"context"
	"encoding/binary"
	"math/rand/v2"
	"sync"
	"time"

	sdktrace "go.opentelemetry.io/otel/sdk/trace"
	"go.opentelemetry.io/otel/trace"
)

// Bounds of what waits in memory for its trace's decision: a Lambda
// environment serves one request at a time, so these only matter to a
// span that outlives its request (a goroutine left running) or to a
// server serving many at once; past them spans are dropped, never the
// request.
const (
	maxPendingTraces = 1024
	maxSpansPerTrace = 1000
	// stalePending is how long a trace whose root never ended is kept
	// before finish clears it.
	stalePending = time.Minute
)

// pending is the span processor that holds every ended span under its
// trace until the trace's root span ends (finish takes them). A root span
// itself is not held: finish has it, and a root that no End finishes (an
// SDK call outside a request, at a cold start) is simply not kept.
type pending struct {
	mu     sync.Mutex
	traces map[trace.TraceID]*held
}

type held struct {
	spans   []sdktrace.ReadOnlySpan
	dropped int
	since   time.Time
}

func newPending() *pending { return &pending{traces: map[trace.TraceID]*held{}} }

func (p *pending) OnStart(context.Context, sdktrace.ReadWriteSpan) {}

func (p *pending) OnEnd(s sdktrace.ReadOnlySpan) {
	if !s.Parent().IsValid() {
		return
	}
	id := s.SpanContext().TraceID()
	p.mu.Lock()
	defer p.mu.Unlock()
	h := p.traces[id]
	if h == nil {
		if len(p.traces) >= maxPendingTraces {
			// The oldest held trace makes room: it is the likeliest to
			// be one whose root never ends (spans of a goroutine that
			// outlived its request), while this one's request is running
			// now and may fail.
			p.evictOldest()
		}
		h = &held{since: time.Now()}
		p.traces[id] = h
	}
	if len(h.spans) >= maxSpansPerTrace {
		h.dropped++
		return
	}
	h.spans = append(h.spans, s)
}

// evictOldest drops the trace held longest (p.mu held).
func (p *pending) evictOldest() {
	var oldest trace.TraceID
	var since time.Time
	for k, h := range p.traces {
		if since.IsZero() || h.since.Before(since) {
			oldest, since = k, h.since
		}
	}
	delete(p.traces, oldest)
}

// take removes and returns the spans held for trace id, and clears the
// traces held for longer than stalePending.
func (p *pending) take(id trace.TraceID) []sdktrace.ReadOnlySpan {
	p.mu.Lock()
	defer p.mu.Unlock()
	h := p.traces[id]
	delete(p.traces, id)
	cutoff := time.Now().Add(-stalePending)
	for k, o := range p.traces {
		if o.since.Before(cutoff) {
			delete(p.traces, k)
		}
	}
	if h == nil {
		return nil
	}
	return h.spans
}

// heldTraces reports how many traces wait for their decision (tests).
func (p *pending) heldTraces() int {
	p.mu.Lock()
	defer p.mu.Unlock()
	return len(p.traces)
}

func (p *pending) Shutdown(context.Context) error   { return nil }
func (p *pending) ForceFlush(context.Context) error { return nil }

// xrayIDs draws trace ids X-Ray's way: the first 4 bytes are the epoch
// second the trace started (X-Ray's console sorts and ages traces by
// it), the other 12 random; span ids are 8 random bytes, never zero.
type xrayIDs struct{}

func (xrayIDs) NewIDs(context.Context) (trace.TraceID, trace.SpanID) {
	var t trace.TraceID
	binary.BigEndian.PutUint32(t[:4], uint32(time.Now().Unix()))
	binary.BigEndian.PutUint32(t[4:8], rand.Uint32())
	binary.BigEndian.PutUint64(t[8:], rand.Uint64())
	return t, newSpanID()
}

func (xrayIDs) NewSpanID(context.Context, trace.TraceID) trace.SpanID { return newSpanID() }

func newSpanID() trace.SpanID {
	var s trace.SpanID
	binary.BigEndian.PutUint64(s[:], rand.Uint64()|1)
	return s
}
