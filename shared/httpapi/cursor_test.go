package httpapi

import (
	"encoding/base64"
	"encoding/json"
	"io"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"net/url"
	"strings"
	"testing"

	"github.com/bookplatform/backend/shared/apperr"
	"github.com/bookplatform/backend/shared/page"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// pageRouter serves one cursor list; it echoes what CursorPage read and
// issues the page token "next-of-<after>".
func pageRouter(key string) *Router {
	return NewRouter(Options{CursorKeys: func() [][]byte { return [][]byte{[]byte(key)} }, Logger: slog.New(slog.NewTextHandler(io.Discard, nil))}, []Route{
		{Method: "GET", Path: "/v1/books/{id}/lines", Handler: func(w http.ResponseWriter, r *http.Request) error {
			c, err := CursorPage(r)
			if err != nil {
				return err
			}
			body := NewCursorBody(r, page.Page[string]{Items: []string{c.After}, Next: "next-of-" + c.After}, func(s string) string { return s })
			return JSON(w, http.StatusOK, map[string]any{"limit": c.Limit, "after": c.After, "nextCursor": body.NextCursor, "hasMore": body.HasMore})
		}},
	})
}

func getPage(t *testing.T, rt http.Handler, path string) (int, map[string]any) {
	t.Helper()
	rec := httptest.NewRecorder()
	rt.ServeHTTP(rec, httptest.NewRequest("GET", path, nil))
	body := map[string]any{}
	require.NoError(t, json.Unmarshal(rec.Body.Bytes(), &body))
	return rec.Code, body
}

func TestCursorPage(t *testing.T) {
	key := strings.Repeat("k", 32)
	rt := pageRouter(key)
	code, first := getPage(t, rt, "/v1/books/b1/lines")
	require.Equal(t, http.StatusOK, code)
	assert.EqualValues(t, 20, first["limit"])
	assert.Equal(t, "", first["after"])
	assert.Equal(t, true, first["hasMore"])
	cursor := first["nextCursor"].(string)

	code, second := getPage(t, rt, "/v1/books/b1/lines?limit=100&cursor="+url.QueryEscape(cursor))
	require.Equal(t, http.StatusOK, code)
	assert.Equal(t, "next-of-", second["after"], "the storage token comes back as issued")
	assert.EqualValues(t, 100, second["limit"])

	raw, err := base64.RawURLEncoding.DecodeString(cursor)
	require.NoError(t, err)
	assert.NotContains(t, string(raw), "next-of", "a cursor does not show the token it carries")
	flipped := append([]byte(nil), raw...)
	flipped[len(flipped)-1] ^= 1
	_, foreign := getPage(t, pageRouter(strings.Repeat("x", 32)), "/v1/books/b1/lines")
	bad := map[string]string{
		"altered":   base64.RawURLEncoding.EncodeToString(flipped),
		"other key": foreign["nextCursor"].(string),
		"garbage":   "not-a-cursor",
		"truncated": cursor[:len(cursor)-3],
		"too short": "AAAA",
	}
	for name, c := range bad {
		t.Run(name+" is 400", func(t *testing.T) {
			code, body := getPage(t, rt, "/v1/books/b1/lines?cursor="+url.QueryEscape(c))
			assert.Equal(t, http.StatusBadRequest, code)
			assert.Equal(t, "Invalid cursor", body["error"].(map[string]any)["message"])
		})
	}
	for _, limit := range []string{"0", "101", "-1", "ten", "2.5", ""} {
		t.Run("limit "+limit+" is 400", func(t *testing.T) {
			code, _ := getPage(t, rt, "/v1/books/b1/lines?limit="+limit)
			assert.Equal(t, http.StatusBadRequest, code)
		})
	}
	t.Run("two cursors of one token differ", func(t *testing.T) {
		_, again := getPage(t, rt, "/v1/books/b1/lines")
		assert.NotEqual(t, cursor, again["nextCursor"], "each cursor has its own nonce")
	})
	t.Run("no next page is null", func(t *testing.T) {
		req := httptest.NewRequest("GET", "/", nil)
		b := NewCursorBody(req, page.Page[int]{Items: []int{}}, func(i int) int { return i })
		assert.Nil(t, b.NextCursor)
		assert.False(t, b.HasMore)
		assert.NotNil(t, b.Items, "an empty page is [] on the wire")
	})
}

func TestOffsetPage(t *testing.T) {
	l := OffsetLimits{Default: 20, Max: 50}
	get := func(q string) (page.Offset, error) {
		return OffsetPage(httptest.NewRequest("GET", "/x?"+q, nil), l)
	}
	o, err := get("")
	require.NoError(t, err)
	assert.Equal(t, page.Offset{Limit: 20, Offset: 0}, o)
	o, err = get("limit=50&offset=7")
	require.NoError(t, err)
	assert.Equal(t, page.Offset{Limit: 50, Offset: 7}, o)
	o, err = get("offset=10000")
	require.NoError(t, err)
	assert.Equal(t, page.MaxOffset, o.Offset)
	for _, q := range []string{"limit=0", "limit=51", "limit=x", "limit=", "offset=-1", "offset=1.5", "offset=10001", "offset=9223372036854775807", "offset=99999999999999999999"} {
		_, err := get(q)
		assert.Equal(t, apperr.CodeValidation, apperr.CodeOf(err), q)
	}
	l.Code = apperr.CodeBadRequest
	_, err = get("limit=51")
	assert.Equal(t, apperr.CodeBadRequest, apperr.CodeOf(err))
}
