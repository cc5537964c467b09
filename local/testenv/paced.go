package testenv

import (
	"net/http"
	"net/url"
	"strings"
	"testing"
	"time"

	"github.com/bookplatform/backend/shared/config"
)

// PacedStart is where a Paced environment's clock starts.
var PacedStart = time.Date(2026, 3, 2, 9, 0, 0, 0, time.UTC)

// Paced is an Env on a fake clock that moves on by Step before each
// signup and each request sent with Req, so that what they write has
// distinct, ordered times (lists sorted by creation, updatedAt that
// moves). Its tokens last 30 days (refresh 60), so no test's clock
// outruns them. Env.Do sends a request without moving the clock, for
// requests sent at once.
type Paced struct {
	*Env
	Clock *Clock
	// Step is how far the clock moves before each signup and Req: a
	// little over a second unless a test sets it (wider to stay under
	// a rate limit's pace).
	Step time.Duration
}

// NewPaced returns a Paced environment; opts come after its own clock
// and token lifetimes, so they may change either.
func NewPaced(tb testing.TB, opts ...Option) *Paced {
	tb.Helper()
	clock := NewClock(PacedStart)
	env := New(tb, append([]Option{
		WithClock(clock),
		WithConfig(func(c *config.Config) { c.AccessTokenTTL, c.RefreshTokenTTL = 30*24*time.Hour, 60*24*time.Hour }),
	}, opts...)...)
	return &Paced{Env: env, Clock: clock, Step: 1100 * time.Millisecond}
}

// Signup moves the clock on by Step and signs up username (Env.Signup).
func (p *Paced) Signup(tb testing.TB, username string) Account {
	tb.Helper()
	p.Clock.Advance(p.Step)
	return p.Env.Signup(tb, username)
}

// Req moves the clock on by Step and sends the request (Env.Do).
func (p *Paced) Req(method, path string, body any, token string) *Response {
	p.Clock.Advance(p.Step)
	return p.Do(method, path, body, token)
}

// ReadPages reads a cursor list from its first page to its last: path
// names the list with its query (a limit, say), token the caller. It
// returns every page's response, each checked to be 200 with hasMore
// true exactly when nextCursor is set, and fails the test after 100
// pages.
func (e *Env) ReadPages(tb testing.TB, path, token string) []*Response {
	tb.Helper()
	sep := "?"
	if strings.Contains(path, "?") {
		sep = "&"
	}
	var pages []*Response
	next := ""
	for {
		if len(pages) == 100 {
			tb.Fatalf("testenv: %s has no last page after 100", path)
		}
		p := path
		if next != "" {
			p += sep + "cursor=" + url.QueryEscape(next)
		}
		res := e.Do(http.MethodGet, p, nil, token)
		if res.Status != http.StatusOK {
			tb.Fatalf("testenv: GET %s: %s", p, res)
		}
		pages = append(pages, res)
		next, _ = res.JSON["nextCursor"].(string)
		if more, _ := res.JSON["hasMore"].(bool); more != (next != "") {
			tb.Fatalf("testenv: GET %s: hasMore %v beside nextCursor %q", p, res.JSON["hasMore"], next)
		}
		if next == "" {
			return pages
		}
	}
}
