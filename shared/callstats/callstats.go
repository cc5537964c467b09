// Package callstats records the backend calls one request makes (DynamoDB,
// S3, SQS) so that logs and benchmarks can report how many calls an endpoint
// needs and how many of them had to run one after the other, and which IAM
// actions they needed, so that a test can hold the grants to the calls.
package callstats

import (
	"context"
	"slices"
	"sort"
	"sync"
	"time"
)

// Call is one recorded backend call.
type Call struct {
	Service, Operation string
	Start, End         time.Time
	Failed             bool
	// Refused is set when the call failed in a way that proves it
	// changed nothing (the function Refused tells which); a failed call
	// that is not refused may have taken effect.
	Refused bool
	// Actions are the IAM actions AWS authorizes the call by (Middleware's
	// Actions rule): one per part of a DynamoDB transaction, both of an
	// S3 copy. What is granted must cover them.
	Actions []string
	// Capacity is what the service reported the call consumed (DynamoDB's
	// ConsumedCapacity, set by its adapter through SetCapacity); zero for
	// a service that reports none.
	Capacity Capacity
}

// Capacity is the capacity one call, or the calls of a request,
// consumed, in the units DynamoDB bills on demand: read and write
// request units, of the table and of its indexes (an index's share of a
// write is the write of its projected copy).
type Capacity struct {
	TableRead, TableWrite float64
	IndexRead, IndexWrite float64
}

// Read and Write are the request units billed: table and indexes.
func (c Capacity) Read() float64  { return c.TableRead + c.IndexRead }
func (c Capacity) Write() float64 { return c.TableWrite + c.IndexWrite }

// Add returns the sum of c and d.
func (c Capacity) Add(d Capacity) Capacity {
	return Capacity{c.TableRead + d.TableRead, c.TableWrite + d.TableWrite, c.IndexRead + d.IndexRead, c.IndexWrite + d.IndexWrite}
}

// Recorder collects the calls of one request. Safe for concurrent use.
type Recorder struct {
	mu    sync.Mutex
	calls []Call
	// parent, when set, records every call too: the recorder of a
	// context the request's own was made in (a test's, around a router).
	parent *Recorder
}

type ctxKey struct{}

// With returns a context carrying a fresh recorder. A recorder ctx
// already carries keeps seeing every call recorded in the new one (its
// summaries stay its own): a test that wraps the router sees the calls
// of each request the router records.
func With(ctx context.Context) (context.Context, *Recorder) {
	r := &Recorder{parent: From(ctx)}
	return context.WithValue(ctx, ctxKey{}, r), r
}

// From returns the context's recorder, or nil.
func From(ctx context.Context) *Recorder {
	r, _ := ctx.Value(ctxKey{}).(*Recorder)
	return r
}

// Record adds a call. A nil recorder ignores it.
func (r *Recorder) Record(c Call) {
	if r == nil {
		return
	}
	r.mu.Lock()
	r.calls = append(r.calls, c)
	r.mu.Unlock()
	r.parent.Record(c)
}

// Calls returns the recorded calls in start order.
func (r *Recorder) Calls() []Call {
	if r == nil {
		return nil
	}
	r.mu.Lock()
	out := append([]Call(nil), r.calls...)
	r.mu.Unlock()
	sort.Slice(out, func(i, j int) bool { return out[i].Start.Before(out[j].Start) })
	return out
}

// Operations names the recorded calls in start order ("dynamodb:GetItem").
func (r *Recorder) Operations() []string {
	calls := r.Calls()
	ops := make([]string, len(calls))
	for i, c := range calls {
		ops[i] = c.Service + ":" + c.Operation
	}
	return ops
}

// Actions are the distinct IAM actions the recorded calls needed, sorted.
func (r *Recorder) Actions() []string {
	var out []string
	for _, c := range r.Calls() {
		out = append(out, c.Actions...)
	}
	slices.Sort(out)
	return slices.Compact(out)
}

// Capacity is the capacity the recorded calls consumed, summed.
func (r *Recorder) Capacity() Capacity {
	var sum Capacity
	for _, c := range r.Calls() {
		sum = sum.Add(c.Capacity)
	}
	return sum
}

// Summary counts the calls of one service and their sequential depth: the
// longest chain of calls in which each started after the previous ended.
// Calls that overlapped in time ran concurrently and add no depth.
func (r *Recorder) Summary(service string) (count, depth int) {
	var calls []Call
	for _, c := range r.Calls() {
		if c.Service == service {
			calls = append(calls, c)
		}
	}
	// Longest chain over an interval order: depth[i] = 1 + max depth[j]
	// over calls j that ended before call i started.
	d := make([]int, len(calls))
	for i, c := range calls {
		d[i] = 1
		for j := 0; j < i; j++ {
			if !calls[j].End.After(c.Start) && d[j]+1 > d[i] {
				d[i] = d[j] + 1
			}
		}
		if d[i] > depth {
			depth = d[i]
		}
	}
	return len(calls), depth
}

// ChangedSince reports whether a call with a side effect that started at
// or after since may have taken effect: it succeeded, or it failed in a
// way that does not prove it changed nothing (a timeout, a 5xx, a reset
// connection: the write may have committed). The request has then
// changed something, or may have, since then: an idempotency record must
// keep its outcome rather than let a retry run the request again. Only
// refused calls (Refused) changed nothing for certain. isRead tells
// side-effect-free operations.
func (r *Recorder) ChangedSince(since time.Time, isRead func(operation string) bool) bool {
	for _, c := range r.Calls() {
		if !c.Start.Before(since) && !c.Refused && !isRead(c.Operation) {
			return true
		}
	}
	return false
}
