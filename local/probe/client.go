package main

import (
	"bufio"
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"net"
	"net/http"
	"os"
	"sort"
	"strconv"
	"strings"
	"sync"
	"time"
)

// answer is what the server sent back to one request.
type answer struct {
	method, path string
	status       int
	header       http.Header
	body         []byte
	err          error // transport failure: no answer
	elapsed      time.Duration
	leftover     int // raw requests: bytes after the header block of a HEAD answer
}

// envelope is the inside of the error envelope {error:{code,name,message,details,requestId}}.
type envelope struct {
	Code      string         `json:"code"`
	Name      string         `json:"name"`
	Message   string         `json:"message"`
	Details   map[string]any `json:"details"`
	RequestID string         `json:"requestId"`
}

// env parses the error envelope; ok is false when the body is not one.
func (a *answer) env() (envelope, bool) {
	var body struct {
		Error *envelope `json:"error"`
	}
	if a == nil || json.Unmarshal(a.body, &body) != nil || body.Error == nil {
		return envelope{}, false
	}
	e := *body.Error
	return e, e.Code != "" && e.Name != "" && e.Message != "" && e.RequestID != ""
}

// obj parses a JSON object body.
func (a *answer) obj() map[string]any {
	m := map[string]any{}
	if a != nil {
		_ = json.Unmarshal(a.body, &m)
	}
	return m
}

// detail returns details[key] of an error answer.
func (a *answer) detail(key string) any {
	e, _ := a.env()
	return e.Details[key]
}

// short describes the answer: status, and for an error its code and message.
func (a *answer) short() string {
	if a == nil {
		return "no request"
	}
	if a.err != nil {
		return "transport error: " + a.err.Error()
	}
	s := strconv.Itoa(a.status)
	if e, ok := a.env(); ok {
		s += fmt.Sprintf(" %s %q", e.Code, e.Message)
	}
	return s
}

// hdr formats the named headers of the answer as k=v pairs.
func (a *answer) hdr(names ...string) string {
	var parts []string
	for _, n := range names {
		v := "-"
		if a != nil && a.header != nil && a.header.Get(n) != "" {
			v = a.header.Get(n)
		}
		parts = append(parts, n+"="+v)
	}
	return strings.Join(parts, " ")
}

// intHeader reads a header as an integer.
func (a *answer) intHeader(name string) (int64, bool) {
	if a == nil || a.header == nil {
		return 0, false
	}
	n, err := strconv.ParseInt(strings.TrimSpace(a.header.Get(name)), 10, 64)
	return n, err == nil
}

// num reads a JSON number.
func num(v any) (float64, bool) {
	f, ok := v.(float64)
	return f, ok
}

// str reads a JSON string.
func str(v any) string {
	s, _ := v.(string)
	return s
}

// request is one HTTP request to send.
type request struct {
	method, path string
	body         []byte // sent as is when not nil
	json         any    // marshalled when body is nil
	ctype        string // Content-Type; "application/json" when there is a body and none is set
	token        string // Authorization: Bearer <token>
	header       map[string]string
	// paced: the anonymous budget was already taken for this request
	// (parallel batches take theirs at once).
	paced bool
}

// anonymous reports whether the request is counted against the caller
// address's rate (no Authorization; /health and /media/ are not metered).
func (r request) anonymous() bool {
	if r.token != "" {
		return false
	}
	if _, ok := r.header["Authorization"]; ok {
		return false
	}
	return r.path != "/health" && !strings.HasPrefix(r.path, "/media/")
}

// prober sends requests and keeps the checks every answer is subject to.
type prober struct {
	base   string
	host   string // host:port for raw TCP
	hc     *http.Client
	pace   *pacer
	mu     sync.Mutex
	total  int
	errs   int      // error answers with a body checked against the envelope
	fiveXX []string // answers with a 5xx status
	badEnv []string // error answers not in the envelope, or whose requestId is not X-Request-Id
	noID   []string // answers without X-Request-Id
}

func newProber(base string, timeout time.Duration) (*prober, error) {
	base = strings.TrimRight(base, "/")
	req, err := http.NewRequest("GET", base, nil)
	if err != nil {
		return nil, err
	}
	host := req.URL.Host
	if req.URL.Port() == "" {
		host = net.JoinHostPort(req.URL.Hostname(), "80")
	}
	tr := &http.Transport{MaxIdleConns: 100, MaxIdleConnsPerHost: 100, IdleConnTimeout: 30 * time.Second}
	return &prober{
		base: base, host: host,
		hc:   &http.Client{Timeout: timeout, Transport: tr},
		pace: &pacer{},
	}, nil
}

// note writes a remark to stderr (waits, retries), apart from the result lines.
func note(format string, args ...any) {
	fmt.Fprintf(os.Stderr, "note: "+format+"\n", args...)
}

// send sends r and records the general checks. An anonymous request
// refused by the address's own rate (action request, search or feed:
// not what any probe is about) is retried after Retry-After, twice at
// most.
func (p *prober) send(r request) *answer {
	for attempt := 0; ; attempt++ {
		if r.anonymous() && !r.paced {
			p.pace.take(1)
		}
		a := p.do(r)
		if r.anonymous() && a.err == nil {
			p.pace.observe(a.header)
		}
		act := str(a.detail("action"))
		if a.status != http.StatusTooManyRequests || !r.anonymous() || attempt == 2 ||
			(act != "request" && act != "search" && act != "feed") {
			return a
		}
		wait := time.Second
		if ra, ok := a.intHeader("Retry-After"); ok {
			wait = time.Duration(ra)*time.Second + 500*time.Millisecond
		}
		note("%s %s: the address's %s rate refused it; retrying in %s", r.method, r.path, act, wait.Round(time.Second))
		time.Sleep(wait)
		r.paced = false
	}
}

func (p *prober) do(r request) *answer {
	a := &answer{method: r.method, path: r.path}
	body := r.body
	if body == nil && r.json != nil {
		body, _ = json.Marshal(r.json)
	}
	var rd io.Reader
	if body != nil {
		rd = bytes.NewReader(body)
	}
	req, err := http.NewRequest(r.method, p.base+r.path, rd)
	if err != nil {
		a.err = err
		return a
	}
	req.Header.Set("User-Agent", "probe")
	if body != nil {
		ct := r.ctype
		if ct == "" {
			ct = "application/json"
		}
		req.Header.Set("Content-Type", ct)
	}
	if r.token != "" {
		req.Header.Set("Authorization", "Bearer "+r.token)
	}
	for k, v := range r.header {
		req.Header.Set(k, v)
	}
	start := time.Now()
	resp, err := p.hc.Do(req)
	if err != nil {
		a.err, a.elapsed = err, time.Since(start)
		p.record(a)
		return a
	}
	defer resp.Body.Close()
	a.body, a.err = io.ReadAll(resp.Body)
	a.status, a.header, a.elapsed = resp.StatusCode, resp.Header, time.Since(start)
	p.record(a)
	return a
}

// raw sends data over a new TCP connection and reads until the server
// closes it (or wait passes), then parses the answer as one to method.
// leftover counts the bytes after the header block of a HEAD answer
// (there must be none).
func (p *prober) raw(method, path string, data []byte, wait time.Duration, anonymous bool) *answer {
	a := &answer{method: method, path: path}
	if anonymous {
		p.pace.take(1)
	}
	start := time.Now()
	conn, err := net.DialTimeout("tcp", p.host, 5*time.Second)
	if err != nil {
		a.err = err
		return a
	}
	defer conn.Close()
	_ = conn.SetDeadline(time.Now().Add(wait))
	if _, err := conn.Write(data); err != nil {
		a.err = err
		return a
	}
	all, err := io.ReadAll(conn)
	a.elapsed = time.Since(start)
	if len(all) == 0 {
		if err == nil {
			err = io.ErrUnexpectedEOF
		}
		a.err = fmt.Errorf("no answer after %s: %v", a.elapsed.Round(time.Millisecond), err)
		return a
	}
	resp, perr := http.ReadResponse(bufio.NewReader(bytes.NewReader(all)), &http.Request{Method: method})
	if perr != nil {
		a.err = fmt.Errorf("unparsable answer %q: %v", truncate(string(all), 120), perr)
		return a
	}
	a.status, a.header = resp.StatusCode, resp.Header
	if method == http.MethodHead {
		if i := bytes.Index(all, []byte("\r\n\r\n")); i >= 0 {
			a.leftover = len(all) - (i + 4)
		}
	} else {
		a.body, _ = io.ReadAll(resp.Body)
	}
	resp.Body.Close()
	if anonymous {
		p.pace.observe(a.header)
	}
	p.record(a)
	return a
}

// record applies the checks every answer is subject to.
func (p *prober) record(a *answer) {
	p.mu.Lock()
	defer p.mu.Unlock()
	p.total++
	what := fmt.Sprintf("%s %s → %s", a.method, truncate(a.path, 60), a.short())
	if a.err != nil {
		return
	}
	if a.status >= 500 {
		p.fiveXX = append(p.fiveXX, what)
	}
	id := a.header.Get("X-Request-Id")
	if id == "" {
		p.noID = append(p.noID, what)
	}
	if a.status >= 400 && a.method != http.MethodHead {
		p.errs++
		e, ok := a.env()
		switch {
		case !ok:
			p.badEnv = append(p.badEnv, what+" body "+strconv.Quote(truncate(string(a.body), 80)))
		case e.RequestID != id:
			p.badEnv = append(p.badEnv, fmt.Sprintf("%s requestId %q ≠ X-Request-Id %q", what, e.RequestID, id))
		}
	}
}

// pacer keeps anonymous requests within the address's rate (guest tier,
// per clock minute), reading what is left from the answers'
// X-RateLimit-* headers: before a request would leave fewer than
// reserve, it waits for the window to end.
type pacer struct {
	mu        sync.Mutex
	known     bool
	remaining int64
	reset     time.Time
}

const paceReserve = 3

// take accounts for n anonymous requests about to be sent.
func (pc *pacer) take(n int) {
	pc.mu.Lock()
	defer pc.mu.Unlock()
	if pc.known && time.Now().After(pc.reset) {
		pc.known = false
	}
	if pc.known && pc.remaining-int64(n) < paceReserve {
		wait := time.Until(pc.reset) + 700*time.Millisecond
		note("pacing: %d anonymous requests left in this minute's window; waiting %s", pc.remaining, wait.Round(100*time.Millisecond))
		time.Sleep(wait)
		pc.known = false
	}
	if pc.known {
		pc.remaining -= int64(n)
	}
}

// observe reads what an anonymous answer reports as left.
func (pc *pacer) observe(h http.Header) {
	rem, err1 := strconv.ParseInt(h.Get("X-RateLimit-Remaining"), 10, 64)
	reset, err2 := strconv.ParseInt(h.Get("X-RateLimit-Reset"), 10, 64)
	if err1 != nil || err2 != nil {
		return
	}
	rt := time.Unix(reset, 0)
	pc.mu.Lock()
	defer pc.mu.Unlock()
	switch {
	case !pc.known || rt.After(pc.reset):
		pc.known, pc.remaining, pc.reset = true, rem, rt
	case rt.Equal(pc.reset) && rem < pc.remaining:
		pc.remaining = rem
	}
}

// waitForWindow waits for the next clock-aligned window of length w when
// fewer than margin of the current one are left, so that a probe's
// requests fall in one window of the server's fixed windows.
func waitForWindow(w, margin time.Duration, why string) {
	now := time.Now()
	left := now.Truncate(w).Add(w).Sub(now)
	if left < margin {
		note("%s: waiting %s for the next %s window", why, (left + 500*time.Millisecond).Round(100*time.Millisecond), w)
		time.Sleep(left + 500*time.Millisecond)
	}
}

// statusCounts formats a status histogram: "201×10 429×50".
func statusCounts(as []*answer) string {
	counts := map[string]int{}
	for _, a := range as {
		k := strconv.Itoa(a.status)
		if a.err != nil {
			k = "error"
		}
		counts[k]++
	}
	keys := make([]string, 0, len(counts))
	for k := range counts {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	var parts []string
	for _, k := range keys {
		parts = append(parts, fmt.Sprintf("%s×%d", k, counts[k]))
	}
	return strings.Join(parts, " ")
}

func truncate(s string, n int) string {
	if len(s) <= n {
		return s
	}
	return s[:n] + "…"
}
