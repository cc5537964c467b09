package httpapi_test

import (
	"bytes"
	"encoding/json"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"reflect"
	"testing"
	"unicode/utf8"

	"github.com/bookplatform/backend/shared/groups"
	"github.com/bookplatform/backend/shared/httpapi"
)

// bodyRoutes are the routes of every group that read a JSON body, from
// the route tables: a new route is fuzzed without a target of its own.
func bodyRoutes() []httpapi.Route {
	var out []httpapi.Route
	for _, r := range groups.Routes() {
		if r.Doc.Body != nil {
			out = append(out, r)
		}
	}
	return out
}

// Every request decoder takes any body and content type: it never
// panics, answers 200 only for a body that is valid JSON in UTF-8 (or
// left out where the route allows it), and otherwise 400, 413 or 415 in
// the envelope, quoting little of the input.
// The handler of each route is replaced by a decode of its documented
// body type (Doc.Body), which is what the handler decodes into.
func FuzzDecode(f *testing.F) {
	routes := bodyRoutes()
	if len(routes) == 0 {
		f.Fatal("no route reads a JSON body")
	}
	rts := make([]*httpapi.Router, len(routes))
	for i, r := range routes {
		typ := reflect.TypeOf(r.Doc.Body)
		rt := r
		rt.Auth, rt.Actions, rt.Unmetered, rt.Idempotent, rt.Quota, rt.Role = httpapi.AuthNone, nil, true, false, "", httpapi.Role{}
		rt.Handler = func(w http.ResponseWriter, req *http.Request) error {
			if err := httpapi.Decode(w, req, reflect.New(typ).Interface()); err != nil {
				return err
			}
			return httpapi.JSON(w, http.StatusOK, httpapi.Success{Success: true})
		}
		rts[i] = httpapi.NewRouter(httpapi.Options{MaxBodyBytes: 4096, Logger: slog.New(slog.DiscardHandler)}, []httpapi.Route{rt})
	}
	for i := range routes {
		for _, body := range []string{`{}`, `{"email":"a@b.co","password":"x"}`, `{"content":"\u200b","pageNumber":1.5}`,
			`{"rating":5,"rating":1}`, `{"bio":"\ud800"}`, `null`, ``, `[]`, `{"a":{"b":[{"c":1},{"c":2}]}} `, "{\"x\":\"\xff\"}"} {
			f.Add(uint8(i), "application/json", []byte(body))
		}
	}
	f.Add(uint8(0), "text/plain", []byte(`{}`))
	f.Add(uint8(0), "application/json; charset=latin1", []byte(`{}`))
	f.Fuzz(func(t *testing.T, which uint8, contentType string, body []byte) {
		i := int(which) % len(routes)
		r := routes[i]
		req := httptest.NewRequest(r.Method, samplePath(r.Path), bytes.NewReader(body))
		if contentType != "" {
			req.Header.Set("Content-Type", contentType)
		}
		rec := httptest.NewRecorder()
		rts[i].ServeHTTP(rec, req)
		switch rec.Code {
		case http.StatusOK:
			if r.Doc.OptionalBody && len(bytes.TrimSpace(body)) == 0 {
				return // a body the route lets the client leave out
			}
			if !json.Valid(body) || !utf8.Valid(body) {
				t.Fatalf("%s %s accepted %q", r.Method, r.Path, body)
			}
		case http.StatusBadRequest, http.StatusRequestEntityTooLarge, http.StatusUnsupportedMediaType:
			var e httpapi.ErrorBody
			if err := json.Unmarshal(rec.Body.Bytes(), &e); err != nil || e.Error.Code == "" || e.Error.RequestID == "" {
				t.Fatalf("%s %s: %d not in the envelope: %s", r.Method, r.Path, rec.Code, rec.Body)
			}
			if rec.Body.Len() > 1024 {
				t.Fatalf("%s %s: an error of %d bytes quotes too much: %.200s", r.Method, r.Path, rec.Body.Len(), rec.Body)
			}
		default:
			t.Fatalf("%s %s answered %d for %q: %s", r.Method, r.Path, rec.Code, body, rec.Body)
		}
	})
}

// samplePath fills a route's path parameters.
func samplePath(path string) string {
	out := []byte{}
	in := false
	for i := 0; i < len(path); i++ {
		switch c := path[i]; {
		case c == '{':
			in = true
			out = append(out, "00000000-0000-4000-8000-000000000000"...)
		case c == '}':
			in = false
		case !in:
			out = append(out, c)
		}
	}
	return string(out)
}
