package testenv

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"
	"github.com/bookplatform/backend/local/devserver"
	"github.com/bookplatform/backend/local/dnslocal"
	"github.com/bookplatform/backend/local/maillocal"
	"github.com/bookplatform/backend/shared/api"
	"github.com/bookplatform/backend/shared/dynamo"
	"github.com/bookplatform/backend/shared/groups"
	"github.com/bookplatform/backend/shared/openapi"
	guregu "github.com/guregu/dynamo/v2"
)

// Response is what a client saw.
type Response struct {
	Status int
	Header http.Header
	Body   []byte
	// JSON is the body decoded as a JSON object (numbers as float64); nil
	// when the body is not one. Use Decode for arrays and typed structs.
	JSON map[string]any

	tb testing.TB
}

// Decode unmarshals the body into v and fails the test if it cannot.
// Call it from the test's goroutine.
func (r *Response) Decode(v any) {
	r.tb.Helper()
	if err := json.Unmarshal(r.Body, v); err != nil {
		r.tb.Fatalf("decode response (HTTP %d) into %T: %v\nbody: %s", r.Status, v, err, r.Body)
	}
}

// String is the status and body, for failure messages.
func (r *Response) String() string { return fmt.Sprintf("HTTP %d %s", r.Status, r.Body) }

// Do sends a request to the server and reads the whole answer. body is sent
// as JSON: nil sends no body, a string, []byte or io.Reader is sent as is,
// anything else is marshalled. token, when not empty, goes in an
// "Authorization: Bearer" header. path is relative to the server
// ("/v1/users/me") or an absolute URL (an avatarUrl).
//
// Do is safe to call from several goroutines at once (concurrency tests):
// a transport failure is reported with Errorf and gives Status 0.
func (e *Env) Do(method, path string, body any, token string) *Response {
	e.tb.Helper()
	h := map[string]string{}
	if token != "" {
		h["Authorization"] = "Bearer " + token
	}
	return e.DoHeaders(method, path, body, h)
}

// DoHeaders is Do with arbitrary request headers (a malformed
// Authorization, a custom Content-Type).
func (e *Env) DoHeaders(method, path string, body any, headers map[string]string) *Response {
	e.tb.Helper()
	rd, err := jsonBody(body)
	if err != nil {
		e.tb.Errorf("testenv: encode request body: %v", err)
		return &Response{tb: e.tb}
	}
	h := http.Header{}
	if rd != nil {
		h.Set("Content-Type", "application/json")
	}
	for k, v := range headers {
		h.Set(k, v)
	}
	return e.send(method, path, rd, h)
}

// DoRaw sends body as is with the given Content-Type (multipart uploads,
// malformed JSON).
func (e *Env) DoRaw(method, path, contentType string, body io.Reader, token string) *Response {
	e.tb.Helper()
	h := http.Header{}
	if contentType != "" {
		h.Set("Content-Type", contentType)
	}
	if token != "" {
		h.Set("Authorization", "Bearer "+token)
	}
	return e.send(method, path, body, h)
}

// Handler is the server's handler, for driving it without a network
// (httptest.NewRecorder), e.g. to control how a body is streamed.
func (e *Env) Handler() http.Handler { return e.handler }

// URL returns the absolute URL of a path on the server.
func (e *Env) URL(path string) string {
	if strings.HasPrefix(path, "http://") || strings.HasPrefix(path, "https://") {
		return path
	}
	return e.Server.URL + path
}

func (e *Env) send(method, path string, body io.Reader, h http.Header) *Response {
	e.tb.Helper()
	req, err := http.NewRequest(method, e.URL(path), body)
	if err != nil {
		e.tb.Errorf("testenv: %s %s: %v", method, path, err)
		return &Response{tb: e.tb}
	}
	req.Header = h
	// Redirects are not followed: a test sees the 302 the API answers
	// (the point-of-sale connect and callback) and follows it itself.
	client := *e.Server.Client()
	client.CheckRedirect = func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse }
	resp, err := client.Do(req)
	if err != nil {
		e.tb.Errorf("testenv: %s %s: %v", method, path, err)
		return &Response{tb: e.tb}
	}
	defer resp.Body.Close()
	data, err := io.ReadAll(resp.Body)
	if err != nil {
		e.tb.Errorf("testenv: %s %s: read body: %v", method, path, err)
	}
	r := &Response{Status: resp.StatusCode, Header: resp.Header, Body: data, tb: e.tb}
	if len(bytes.TrimSpace(data)) > 0 && bytes.TrimSpace(data)[0] == '{' {
		_ = json.Unmarshal(data, &r.JSON)
	}
	local := strings.HasPrefix(req.URL.Path, devserver.MediaPrefix) || strings.HasPrefix(req.URL.Path, dnslocal.Prefix) ||
		(e.Mail != nil && (req.URL.Path == maillocal.Prefix || strings.HasPrefix(req.URL.Path, maillocal.Prefix+"/")))
	if !local && req.URL.Host == e.Server.Listener.Addr().String() {
		// The contract test: every answer a test receives must be one the
		// API reference documents, so a group is contract-tested from its
		// first handler test.
		if err := checkContract(req.Method, req.URL.Path, resp.StatusCode, resp.Header, data); err != nil {
			e.tb.Errorf("testenv: the answer does not follow the API reference (docs/openapi.json):\n%v\n%s", err, r)
		}
	}
	return r
}

func jsonBody(body any) (io.Reader, error) {
	switch b := body.(type) {
	case nil:
		return nil, nil
	case string:
		return strings.NewReader(b), nil
	case []byte:
		return bytes.NewReader(b), nil
	case io.Reader:
		return b, nil
	}
	data, err := json.Marshal(body)
	if err != nil {
		return nil, err
	}
	return bytes.NewReader(data), nil
}

// Item reads one item of the table (strongly consistent) as a map of
// plain Go values; nil when there is none. Tests use it to assert what was
// stored, beside what the API answered; the key comes from the storage's
// key builders (dynamo.LineKey, ...), so no test spells a key format.
func (e *Env) Item(tb testing.TB, k dynamo.Key) map[string]any {
	tb.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	out, err := e.App.DB.GetItem(ctx, &dynamodb.GetItemInput{
		TableName:      aws.String(e.Config.TableName),
		Key:            key(k),
		ConsistentRead: aws.Bool(true),
	})
	if err != nil {
		tb.Fatalf("testenv: get item %s %s: %v", k.PK, k.SK, err)
	}
	if out.Item == nil {
		return nil
	}
	var item map[string]any
	if err := guregu.UnmarshalItem(out.Item, &item); err != nil {
		tb.Fatalf("testenv: decode item %s %s: %v", k.PK, k.SK, err)
	}
	return item
}

// DeleteItem removes one item of the table behind the API's back (a
// record deleted by another process, a state no endpoint produces).
func (e *Env) DeleteItem(tb testing.TB, k dynamo.Key) {
	tb.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	_, err := e.App.DB.DeleteItem(ctx, &dynamodb.DeleteItemInput{
		TableName: aws.String(e.Config.TableName),
		Key:       key(k),
	})
	if err != nil {
		tb.Fatalf("testenv: delete item %s %s: %v", k.PK, k.SK, err)
	}
}

// PutItem writes one item of the table behind the API's back (a state
// no endpoint produces at that moment, such as a store whose deletion has
// begun): item holds PK and SK and any attributes, as plain Go values.
func (e *Env) PutItem(tb testing.TB, item map[string]any) {
	tb.Helper()
	av, err := guregu.MarshalItem(item)
	if err != nil {
		tb.Fatalf("testenv: encode item: %v", err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	if _, err := e.App.DB.PutItem(ctx, &dynamodb.PutItemInput{TableName: aws.String(e.Config.TableName), Item: av}); err != nil {
		tb.Fatalf("testenv: put item %v %v: %v", item[dynamo.AttrPK], item[dynamo.AttrSK], err)
	}
}

func key(k dynamo.Key) map[string]types.AttributeValue {
	return map[string]types.AttributeValue{
		dynamo.AttrPK: &types.AttributeValueMemberS{Value: k.PK},
		dynamo.AttrSK: &types.AttributeValueMemberS{Value: k.SK},
	}
}

// contract is the API reference of the route tables and its validator,
// built once per test binary.
var contract = sync.OnceValues(func() (*openapi.Validator, error) {
	doc, err := openapi.Document(groups.All(api.Deps{}))
	if err != nil {
		return nil, err
	}
	return openapi.NewValidator(doc)
})

func checkContract(method, path string, status int, header http.Header, body []byte) error {
	v, err := contract()
	if err != nil {
		return err
	}
	return v.Check(method, path, status, header, body)
}
