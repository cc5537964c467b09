package app_test

import (
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/bookplatform/backend/local/testenv"
	"github.com/bookplatform/backend/shared/auth"
	"github.com/bookplatform/backend/shared/dynamo"
	"github.com/bookplatform/backend/shared/groups"
	"github.com/bookplatform/backend/shared/httpapi"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// samplePath fills a route's path parameters with values of the right
// shape for nothing that exists: the answers here are decided before any
// record is looked up, or are the same 404 whatever the caller.
func samplePath(path string) string {
	values := map[string]string{"username": "nobody_here", "isbn": "9780306406157", "slug": "no-such-store"}
	segs := strings.Split(path, "/")
	for i, s := range segs {
		if strings.HasPrefix(s, "{") && strings.HasSuffix(s, "}") {
			v, ok := values[strings.Trim(s, "{}")]
			if !ok {
				v = "00000000-0000-4000-8000-000000000000"
			}
			segs[i] = v
		}
	}
	return strings.Join(segs, "/")
}

// sampleBody is a body of the route's kind that decodes: its validation
// comes after authentication, so only the order matters here.
func sampleBody(r httpapi.Route) (string, string) {
	switch {
	case r.Doc.Multipart != "":
		return "multipart/form-data; boundary=x", "--x--\r\n"
	case r.Doc.Body != nil:
		return "application/json", "{}"
	}
	return "", ""
}

// The route × credentials matrix, generated from the route tables, so a
// new route is covered without a test of its own: every Bearer route
// answers the spec's exact 401 for each kind of bad credentials; an
// Optional route serves a caller without a header and refuses bad
// credentials as a Bearer route does; a public route (None) ignores the
// header altogether and answers as it does without one. The functions
// themselves refuse a forgery, which is why API Gateway's Lambda
// authorizer runs before the back office's routes alone
// (groups.AuthorizerInvoked).
func TestRoutes_AuthMatrix(t *testing.T) {
	clock := testenv.NewClock(time.Date(2026, 11, 23, 10, 0, 0, 0, time.UTC))
	env := testenv.New(t, testenv.WithClock(clock))
	keys, err := auth.NewKeySet([]byte(testenv.JWTSecret))
	require.NoError(t, err)
	other, err := auth.NewKeySet([]byte("another-key-another-key-another-key!"))
	require.NoError(t, err)

	gone := env.Signup(t, "gone_reader")
	env.DeleteItem(t, dynamo.UserKey(gone.ID))
	live := env.Signup(t, "live_reader")

	past := auth.NewTokens(keys, time.Minute, func() time.Time { return clock.Now().Add(-time.Hour) })
	expired, err := past.Issue(auth.Claims{UserID: live.ID, Tier: "free"})
	require.NoError(t, err)
	otherKey := auth.NewTokens(other, time.Hour, clock.Now)
	forged, err := otherKey.Issue(auth.Claims{UserID: live.ID, Tier: "premium"})
	require.NoError(t, err)
	parts := strings.Split(live.Token, ".")
	require.Len(t, parts, 3)
	badSignature := parts[0] + "." + parts[1] + "." + strings.Repeat("A", len(parts[2]))

	credentials := []struct {
		name, header, message string
	}{
		{"a scheme other than Bearer", "Token " + live.Token, httpapi.MsgMissingAuth},
		{"Bearer without a token", "Bearer", httpapi.MsgMissingAuth},
		{"Bearer with two words", "Bearer a b", httpapi.MsgMissingAuth},
		{"not a JWT", "Bearer not-a-jwt", httpapi.MsgInvalidToken},
		{"signed with another key", "Bearer " + forged, httpapi.MsgInvalidToken},
		{"a signature that does not verify", "Bearer " + badSignature, httpapi.MsgInvalidToken},
		{"expired", "Bearer " + expired, httpapi.MsgInvalidToken},
		{"of a deleted user", "Bearer " + gone.Token, httpapi.MsgUserNotFound},
	}

	send := func(r httpapi.Route, method, authorization string) *testenv.Response {
		ct, body := sampleBody(r)
		h := map[string]string{}
		if ct != "" {
			h["Content-Type"] = ct
		}
		if authorization != "" {
			h["Authorization"] = authorization
		}
		var b any
		if body != "" {
			b = body
		}
		return env.DoHeaders(method, samplePath(r.Path), b, h)
	}

	routes := groups.Routes()
	require.NotEmpty(t, routes)
	for _, r := range routes {
		t.Run(r.Method+" "+r.Path, func(t *testing.T) {
			anonymous := send(r, r.Method, "")
			switch r.Auth {
			case httpapi.AuthBearer:
				testenv.AssertError(t, anonymous, http.StatusUnauthorized, "Unauthorized", httpapi.MsgMissingAuth)
			default:
				assert.NotEqual(t, http.StatusUnauthorized, anonymous.Status, "a caller without a header is served: %s", anonymous)
			}
			for _, c := range credentials {
				res := send(r, r.Method, c.header)
				if r.Auth == httpapi.AuthNone {
					assert.Equal(t, anonymous.Status, res.Status, "%s: a public route ignores the header: %s", c.name, res)
					continue
				}
				if res.Status != http.StatusUnauthorized {
					t.Errorf("%s: want the spec's 401, got %s", c.name, res)
					continue
				}
				e := testenv.ErrorOf(t, res)
				assert.Equal(t, c.message, e["message"], c.name)
				assert.Equal(t, "UNAUTHORIZED", e["code"], c.name)
			}
		})
	}
}

// Every GET route answers HEAD with the GET's status and headers and no
// body; a path with no GET answers HEAD 405 naming HEAD nowhere.
func TestRoutes_EveryGETAnswersHEAD(t *testing.T) {
	env := testenv.New(t)
	a := env.Signup(t, "head_reader")
	for _, r := range groups.Routes() {
		if r.Method != http.MethodGet {
			continue
		}
		t.Run(r.Path, func(t *testing.T) {
			path := samplePath(r.Path)
			if r.Path == "/v1/books" {
				path += "?q=dune"
			}
			get := env.Do("GET", path, nil, a.Token)
			head := env.Do("HEAD", path, nil, a.Token)
			assert.Equal(t, get.Status, head.Status, "GET %s, HEAD %s", get, head)
			assert.Empty(t, head.Body)
			assert.NotEmpty(t, head.Header.Get("X-Request-Id"))
			assert.Equal(t, get.Header.Get("Content-Type"), head.Header.Get("Content-Type"))
			if get.Status == http.StatusOK && get.Header.Get("Content-Length") != "" {
				// (Go's client asks a GET, not a HEAD, for gzip, and drops
				// the length of a body it decompresses.)
				assert.Equal(t, get.Header.Get("Content-Length"), head.Header.Get("Content-Length"), "a HEAD reports the GET's length")
			}
		})
	}
	t.Run("a path without GET is 405 to HEAD", func(t *testing.T) {
		res := env.Do("HEAD", "/v1/auth/login", nil, "")
		assert.Equal(t, http.StatusMethodNotAllowed, res.Status)
		assert.Equal(t, "POST", res.Header.Get("Allow"))
	})
	t.Run("Allow names HEAD beside GET", func(t *testing.T) {
		res := env.Do("DELETE", "/v1/users/me", nil, a.Token)
		assert.Equal(t, http.StatusMethodNotAllowed, res.Status)
		assert.Equal(t, "GET, HEAD, PUT", res.Header.Get("Allow"))
	})
}
