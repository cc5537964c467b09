package main

import (
	"bytes"
	"encoding/base64"
	"fmt"
	"net/url"
	"strings"
	"time"
)

// headAndRequestIDs: finding 6. Every GET route answers HEAD with the
// GET's status and no body; every answer carries X-Request-Id, the
// refusals outside the router included.
func (r *run) headAndRequestIDs(u *account) {
	type target struct {
		name, path string
		auth       bool
	}
	targets := []target{
		{"head-health", "/health", false},
		{"head-books-search", "/v1/books?q=" + url.QueryEscape("harry potter") + "&limit=2", false},
	}
	if u != nil {
		targets = append(targets,
			target{"head-users-me", "/v1/users/me", true},
			target{"head-public-profile", "/v1/users/" + u.id, false},
			target{"head-profile-by-username", "/v1/users/username/" + u.username, false})
	} else {
		r.skip("head-users-me", "no account (strict-input sign-up failed)")
	}
	for _, t := range targets {
		token := ""
		if t.auth {
			token = u.token
		}
		get := r.p.send(request{method: "GET", path: t.path, token: token})
		var raw bytes.Buffer
		fmt.Fprintf(&raw, "HEAD %s HTTP/1.1\r\nHost: %s\r\nUser-Agent: probe\r\nConnection: close\r\n", t.path, r.p.host)
		if token != "" {
			fmt.Fprintf(&raw, "Authorization: Bearer %s\r\n", token)
		}
		raw.WriteString("\r\n")
		head := r.p.raw("HEAD", t.path, raw.Bytes(), 10*time.Second, !t.auth && t.path != "/health")
		ok := head.err == nil && get.status == 200 && head.status == get.status && head.leftover == 0 && head.header.Get("X-Request-Id") != ""
		sent := "HEAD " + truncate(t.path, 70)
		if t.auth {
			sent += " (with a token)"
		}
		r.report(result{name: t.name, verdict: pass(ok), sent: sent + " over raw TCP, and the same GET",
			got: fmt.Sprintf("GET %s (%d bytes); HEAD %s, %d body bytes, %s Content-Length=%s",
				get.short(), len(get.body), head.short(), head.leftover, head.hdr("X-Request-Id"), head.header.Get("Content-Length")),
			want: "GET 200; HEAD 200, no body, X-Request-Id"})
	}

	env := func(name, sent string, a *answer, status int, code string, extra string) {
		e, ok := a.env()
		id := a.header.Get("X-Request-Id")
		good := a.status == status && ok && e.Code == code && id != "" && e.RequestID == id
		if extra != "" {
			good = good && a.header.Get(extra) != ""
		}
		got := fmt.Sprintf("%s X-Request-Id=%s requestId=%s", a.short(), id, e.RequestID)
		want := fmt.Sprintf("%d %s in the envelope, requestId == X-Request-Id", status, code)
		if extra != "" {
			got += " " + a.hdr(extra)
			want += ", " + extra + " header"
		}
		r.report(result{name: name, verdict: pass(good), sent: sent, got: got, want: want})
	}
	a := r.p.send(request{method: "GET", path: "/media/probe/" + randHex(6) + ".png"})
	env("reqid-media-404", "GET /media/probe/<random>.png", a, 404, "NOT_FOUND", "")
	a = r.p.send(request{method: "GET", path: "/v1/probe-no-such-route"})
	env("reqid-route-404", "GET /v1/probe-no-such-route", a, 404, "NOT_FOUND", "")
	a = r.p.send(request{method: "PATCH", path: "/health"})
	env("reqid-405", "PATCH /health", a, 405, "METHOD_NOT_ALLOWED", "Allow")
	a = r.p.send(request{method: "GET", path: "/health", header: map[string]string{"X-Probe-Padding": strings.Repeat("a", 40*1024)}})
	env("reqid-431", "GET /health with a 40 KB header (X-Probe-Padding)", a, 431, "REQUEST_HEADER_FIELDS_TOO_LARGE", "")
}

// cursors: finding 8. A nextCursor does not show table keys or ids, and
// a cursor with one bit flipped is refused with 400.
func (r *run) cursors(u *account) {
	if u == nil || r.book == "" {
		r.skip("cursor-opaque", "no account or no demo book")
		return
	}
	var lines []string
	for i := range 2 {
		a := r.postLine(u, fmt.Sprintf("probe cursor line %d", i))
		if a.status != 201 {
			r.fail("cursor-opaque", "POST /v1/lines (setup: two lines on the demo book)", a, "201")
			return
		}
		lines = append(lines, str(a.obj()["id"]))
	}
	path := "/v1/books/" + r.book + "/lines?limit=1"
	first := r.p.send(request{method: "GET", path: path, token: u.token})
	m := first.obj()
	cursor := str(m["nextCursor"])
	if first.status != 200 || cursor == "" {
		r.fail("cursor-opaque", "GET "+path, first, "200 with a nextCursor (the book has at least 2 lines)")
		return
	}
	if items, _ := m["items"].([]any); len(items) > 0 {
		if it, ok := items[0].(map[string]any); ok {
			lines = append(lines, str(it["id"]), str(it["userId"]))
		}
	}

	decoded, enc := decodeCursor(cursor)
	haystack := strings.ToUpper(cursor + "\x00" + string(decoded))
	var found []string
	for _, needle := range append([]string{"LINE#", "BOOK#", "USER#", "REPLY#", "TOK#", r.book, u.id}, lines...) {
		if needle == "" {
			continue
		}
		for _, form := range []string{needle, strings.ReplaceAll(needle, "-", "")} {
			if strings.Contains(haystack, strings.ToUpper(form)) {
				found = append(found, form)
				break
			}
		}
	}
	printable := 0
	for _, c := range decoded {
		if c >= 0x20 && c < 0x7f {
			printable++
		}
	}
	ratio := 0.0
	if len(decoded) > 0 {
		ratio = float64(printable) / float64(len(decoded))
	}
	encName := "not base64"
	if enc != nil {
		encName = encNames[enc]
	}
	r.report(result{name: "cursor-opaque", verdict: pass(len(found) == 0 && ratio < 0.8),
		sent: "GET " + path + " (with a token), nextCursor decoded as " + encName,
		got: fmt.Sprintf("cursor %d chars, %d decoded bytes, %.0f%% printable, keys/ids found: %v, decoded starts %q",
			len(cursor), len(decoded), ratio*100, found, truncate(string(decoded), 24)),
		want: "no LINE#/BOOK#/USER# and no book, line or user id in the cursor or its decoding; not readable text"})

	flipped := flipBit(cursor, decoded, enc)
	again := r.p.send(request{method: "GET", path: path + "&cursor=" + url.QueryEscape(cursor), token: u.token})
	bad := r.p.send(request{method: "GET", path: path + "&cursor=" + url.QueryEscape(flipped), token: u.token})
	e, _ := bad.env()
	r.report(result{name: "cursor-bit-flip", verdict: pass(again.status == 200 && bad.status == 400 && e.Code == "VALIDATION_ERROR"),
		sent: "the same GET with ?cursor=<nextCursor>, then with one bit of the cursor flipped",
		got:  fmt.Sprintf("original %s; flipped %s", again.short(), bad.short()),
		want: "original 200; flipped 400 VALIDATION_ERROR (Invalid cursor)"})
}

var encNames = map[*base64.Encoding]string{
	base64.RawURLEncoding: "base64url (raw)", base64.URLEncoding: "base64url",
	base64.RawStdEncoding: "base64 (raw)", base64.StdEncoding: "base64",
}

// decodeCursor decodes the cursor with the first base64 variant that
// reads it back exactly; enc is nil when none does.
func decodeCursor(c string) ([]byte, *base64.Encoding) {
	for _, enc := range []*base64.Encoding{base64.RawURLEncoding, base64.URLEncoding, base64.RawStdEncoding, base64.StdEncoding} {
		if b, err := enc.DecodeString(c); err == nil && enc.EncodeToString(b) == c {
			return b, enc
		}
	}
	return nil, nil
}

// flipBit flips the lowest bit of the middle byte of the decoded cursor
// and encodes it again the same way; a cursor that is not base64 gets its
// middle character changed instead.
func flipBit(c string, decoded []byte, enc *base64.Encoding) string {
	if enc != nil && len(decoded) > 0 {
		b := append([]byte(nil), decoded...)
		b[len(b)/2] ^= 1
		return enc.EncodeToString(b)
	}
	b := []byte(c)
	i := len(b) / 2
	if b[i] == 'A' {
		b[i] = 'B'
	} else {
		b[i] = 'A'
	}
	return string(b)
}

// readTimeout408: finding 7. A body that stops short of its
// Content-Length is cut off after the read timeout with 408 in the
// envelope (raw TCP, -slow). The start-up 503 and a client that goes
// away cannot be probed against a started server.
func (r *run) readTimeout408(u *account) {
	r.skip("starting-503", "the 503 while the stack starts cannot be probed against a started server")
	r.skip("client-disconnect", "a client that disconnects mid-request: no answer to observe")
	if u == nil {
		r.skip("read-timeout-408", "no account (strict-input sign-up failed)")
		return
	}
	r.slowly("read-timeout-408", fmt.Sprintf("PUT /v1/users/me announcing 1000 body bytes and sending 7, waiting for LOCAL_READ_TIMEOUT (%s)", r.cfg.readTimeout), func() []result {
		body := `{"bio":`
		req := fmt.Sprintf("PUT /v1/users/me HTTP/1.1\r\nHost: %s\r\nUser-Agent: probe\r\nAuthorization: Bearer %s\r\nContent-Type: application/json\r\nContent-Length: 1000\r\n\r\n%s",
			r.p.host, u.token, body)
		a := r.p.raw("PUT", "/v1/users/me", []byte(req), r.cfg.readTimeout+20*time.Second, false)
		e, ok := a.env()
		id := a.header.Get("X-Request-Id")
		good := a.err == nil && a.status == 408 && ok && e.Code == "REQUEST_TIMEOUT" && id != "" && e.RequestID == id &&
			a.elapsed >= r.cfg.readTimeout-2*time.Second && a.elapsed <= r.cfg.readTimeout+10*time.Second
		return []result{{name: "read-timeout-408", verdict: pass(good),
			sent: "raw TCP: PUT /v1/users/me (token) with Content-Length: 1000 and a 7-byte body " + `{"bio":` + ", then silence",
			got:  fmt.Sprintf("%s after %s, X-Request-Id=%s requestId=%s", a.short(), a.elapsed.Round(100*time.Millisecond), id, e.RequestID),
			want: fmt.Sprintf("408 REQUEST_TIMEOUT in the envelope after about %s (LOCAL_READ_TIMEOUT), requestId == X-Request-Id", r.cfg.readTimeout)}}
	})
}
