package httpapi

import (
	"encoding/json"
	"io"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"net/url"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// pageRouter serves one cursor list; it echoes what CursorPage read and
// issues a next cursor for the token "next-of-<after>".
func pageRouter(key string) *Router {
	return NewRouter(Options{CursorKey: []byte(key), Logger: slog.New(slog.NewTextHandler(io.Discard, nil))}, Group{Routes: []Route{
		{Method: "GET", Path: "/v1/books/{id}/lines", Handler: func(w http.ResponseWriter, r *http.Request) error {
			scope := "book-lines:" + r.PathValue("id")
			limit, after, err := CursorPage(r, scope)
			if err != nil {
				return err
			}
			return JSON(w, http.StatusOK, map[string]any{"limit": limit, "after": after, "nextCursor": NextCursor(r, scope, "next-of-"+after)})
		}},
	}})
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
	rt := pageRouter("key-one")
	code, first := getPage(t, rt, "/v1/books/b1/lines")
	require.Equal(t, http.StatusOK, code)
	assert.EqualValues(t, 20, first["limit"])
	assert.Equal(t, "", first["after"])
	cursor := first["nextCursor"].(string)

	code, second := getPage(t, rt, "/v1/books/b1/lines?limit=100&cursor="+url.QueryEscape(cursor))
	require.Equal(t, http.StatusOK, code)
	assert.Equal(t, "next-of-", second["after"], "the storage token comes back as issued")
	assert.EqualValues(t, 100, second["limit"])

	tampered := strings.Replace(cursor, cursor[:4], "AAAA", 1)
	bad := map[string]string{
		"tampered":      tampered,
		"other list":    "", // filled below
		"other key":     "",
		"garbage":       "not-a-cursor",
		"no mac":        strings.Split(cursor, ".")[0],
		"truncated mac": cursor[:len(cursor)-3],
	}
	_, other := getPage(t, rt, "/v1/books/b2/lines")
	bad["other list"] = other["nextCursor"].(string)
	_, foreign := getPage(t, pageRouter("key-two"), "/v1/books/b1/lines")
	bad["other key"] = foreign["nextCursor"].(string)
	for name, c := range bad {
		t.Run(name+" is 400", func(t *testing.T) {
			code, body := getPage(t, rt, "/v1/books/b1/lines?cursor="+url.QueryEscape(c))
			assert.Equal(t, http.StatusBadRequest, code)
			assert.Equal(t, "Invalid cursor", body["error"].(map[string]any)["message"])
		})
	}
	for _, limit := range []string{"0", "101", "-1", "ten", "2.5"} {
		t.Run("limit "+limit+" is 400", func(t *testing.T) {
			code, _ := getPage(t, rt, "/v1/books/b1/lines?limit="+limit)
			assert.Equal(t, http.StatusBadRequest, code)
		})
	}
	t.Run("no next page is null", func(t *testing.T) {
		req := httptest.NewRequest("GET", "/", nil)
		assert.Nil(t, NextCursor(req, "s", ""))
	})
}
