package main

import (
	"fmt"
	"io"
	"net"
	"net/http"
	"sort"
	"strings"
	"sync"
	"sync/atomic"
	"time"
)

// loadSpec is one load run: workers send requests back to back (a closed
// loop: a new request starts when the worker's previous one ends) until
// the duration is over or max requests have been sent.
type loadSpec struct {
	workers  int
	duration time.Duration
	max      int64 // 0: no limit
	// next builds request number i and names the client to send it with
	// (the client decides the source address).
	next func(i int64) (*http.Client, *http.Request, error)
}

// loadResult holds the latency of every answered request by status.
type loadResult struct {
	byStatus map[int][]time.Duration
	errors   int
	firstErr error
	elapsed  time.Duration
}

func generate(spec loadSpec) loadResult {
	var (
		seq      atomic.Int64
		mu       sync.Mutex
		res      = loadResult{byStatus: map[int][]time.Duration{}}
		wg       sync.WaitGroup
		start    = time.Now()
		deadline = start.Add(spec.duration)
	)
	for range spec.workers {
		wg.Add(1)
		go func() {
			defer wg.Done()
			local := map[int][]time.Duration{}
			var errs int
			var firstErr error
			for time.Now().Before(deadline) {
				i := seq.Add(1) - 1
				if spec.max > 0 && i >= spec.max {
					break
				}
				client, req, err := spec.next(i)
				if err == nil {
					t0 := time.Now()
					var resp *http.Response
					if resp, err = client.Do(req); err == nil {
						// The latency includes reading the body: that is
						// when a client has the answer.
						_, err = io.Copy(io.Discard, resp.Body)
						resp.Body.Close()
						if err == nil {
							local[resp.StatusCode] = append(local[resp.StatusCode], time.Since(t0))
						}
					}
				}
				if err != nil {
					errs++
					if firstErr == nil {
						firstErr = err
					}
				}
			}
			mu.Lock()
			for s, ds := range local {
				res.byStatus[s] = append(res.byStatus[s], ds...)
			}
			res.errors += errs
			if res.firstErr == nil {
				res.firstErr = firstErr
			}
			mu.Unlock()
		}()
	}
	wg.Wait()
	res.elapsed = time.Since(start)
	return res
}

// ok returns the sorted latencies of the 2xx answers.
func (r loadResult) ok() []time.Duration {
	var all []time.Duration
	for s, ds := range r.byStatus {
		if s >= 200 && s < 300 {
			all = append(all, ds...)
		}
	}
	return sortedCopy(all)
}

func (r loadResult) total() int {
	n := 0
	for _, ds := range r.byStatus {
		n += len(ds)
	}
	return n
}

// nonOK describes the answers that were not 2xx, and transport errors.
func (r loadResult) nonOK() string {
	var statuses []int
	for s := range r.byStatus {
		if s < 200 || s >= 300 {
			statuses = append(statuses, s)
		}
	}
	sort.Ints(statuses)
	var parts []string
	for _, s := range statuses {
		parts = append(parts, fmt.Sprintf("%d x%d", len(r.byStatus[s]), s))
	}
	if r.errors > 0 {
		parts = append(parts, fmt.Sprintf("%d transport errors (first: %v)", r.errors, r.firstErr))
	}
	if len(parts) == 0 {
		return "0"
	}
	return strings.Join(parts, ", ")
}

// clientPool holds one HTTP client per source address. On Linux every
// 127.x.y.z address is the loopback interface, so a benchmark can send
// from many addresses and the server sees many callers, as API Gateway
// would pass on many client IPs; per-address rate limits then apply per
// simulated client instead of to the whole benchmark.
type clientPool struct {
	clients []*http.Client
}

// newClientPool returns n clients sending from 127.0.1.1, 127.0.1.2, ...;
// n = 0 gives one client with the system's choice (127.0.0.1).
func newClientPool(n, connsPerClient int) *clientPool {
	if n == 0 {
		return &clientPool{clients: []*http.Client{newClient(nil, connsPerClient)}}
	}
	p := &clientPool{}
	for i := range n {
		ip := net.IPv4(127, 0, byte(1+i/250), byte(1+i%250))
		p.clients = append(p.clients, newClient(&net.TCPAddr{IP: ip}, connsPerClient))
	}
	return p
}

func newClient(local *net.TCPAddr, conns int) *http.Client {
	d := &net.Dialer{Timeout: 5 * time.Second, LocalAddr: local}
	return &http.Client{
		Timeout: 30 * time.Second,
		Transport: &http.Transport{
			DialContext:         d.DialContext,
			MaxIdleConns:        conns,
			MaxIdleConnsPerHost: conns,
			IdleConnTimeout:     time.Minute,
			DisableCompression:  true,
		},
	}
}

func (p *clientPool) get(i int64) *http.Client { return p.clients[int(i%int64(len(p.clients)))] }

func (p *clientPool) close() {
	for _, c := range p.clients {
		c.CloseIdleConnections()
	}
}

// sourceAddressesWork reports whether this machine can send from 127.0.1.1
// (Linux can; macOS has only 127.0.0.1 unless aliases are added).
func sourceAddressesWork(target string) bool {
	d := &net.Dialer{Timeout: 2 * time.Second, LocalAddr: &net.TCPAddr{IP: net.IPv4(127, 0, 1, 1)}}
	c, err := d.Dial("tcp", target)
	if err != nil {
		return false
	}
	c.Close()
	return true
}
