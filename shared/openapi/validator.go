package openapi

import (
	"bytes"
	"compress/gzip"
	"context"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"strings"
	"sync"

	"github.com/bookplatform/backend/shared/httpapi"
	"github.com/getkin/kin-openapi/openapi3"
	"github.com/getkin/kin-openapi/openapi3filter"
	"github.com/getkin/kin-openapi/routers"
)

// Validator checks answers against a document: the contract test of
// every response a handler test receives. Build one per test binary; it
// is safe for concurrent use.
type Validator struct {
	doc      *openapi3.T
	patterns *httpapi.Patterns // the router's own matching
	items    map[string]*openapi3.PathItem
	// unrouted answers the router's own 404 and 405, which belong to no
	// operation.
	unrouted *openapi3.Operation
	options  *openapi3filter.Options
}

// uuidFormat defines the uuid format once per process (kin-openapi keeps
// formats in a package variable).
var uuidFormat sync.Once

// NewValidator returns a validator of answers against doc, which must be
// valid (Document and Load return valid documents).
func NewValidator(doc *openapi3.T) (*Validator, error) {
	// The reference states format uuid (constraints.go); kin-openapi
	// checks date and date-time itself, uuid only once defined.
	uuidFormat.Do(func() {
		openapi3.DefineStringFormatValidator("uuid", openapi3.NewRegexpFormatValidator(openapi3.FormatOfStringForUUIDOfRFC4122))
	})
	v := &Validator{doc: doc, options: &openapi3filter.Options{IncludeResponseStatus: true}}
	// kin-openapi's default message appends the whole schema and value,
	// pages long for a list: the place and the reason are what a failing
	// test needs.
	v.options.WithCustomSchemaErrorFunc(schemaErrorMessage)
	v.items = doc.Paths.Map()
	paths := make([]string, 0, len(v.items))
	for path := range v.items {
		paths = append(paths, path)
	}
	v.patterns = httpapi.NewPatterns(paths...)

	v.unrouted = &openapi3.Operation{OperationID: "(router)", Responses: openapi3.NewResponses()}
	for _, status := range []int{http.StatusNotFound, http.StatusMethodNotAllowed} {
		var r *openapi3.ResponseRef
		if doc.Components != nil {
			r = doc.Components.Responses[responseName(status)]
		}
		if r == nil {
			return nil, fmt.Errorf("openapi: document has no %s response component", responseName(status))
		}
		v.unrouted.Responses.Set(fmt.Sprint(status), r)
	}
	return v, nil
}

// Check reports whether an answer to method and path (the request's URL
// path as the router sees it, r.URL.Path; a query string is ignored) is
// one the document allows: a documented status of the operation the
// router would run, with its headers and body (decompressed first if
// gzip). The
// router's own answers are checked too: a path no route matches must be
// a 404, a method its route lacks a 405 with Allow, both in the error
// envelope, and a CORS preflight (OPTIONS) a 204. The error names the
// request, the operation and status, and the failing field.
func (v *Validator) Check(method, path string, status int, header http.Header, body []byte) error {
	path, _, _ = strings.Cut(path, "?")
	if method == http.MethodOptions {
		if status != http.StatusNoContent {
			return fmt.Errorf("openapi: %s %s: a preflight is answered 204, not %d", method, path, status)
		}
		return nil
	}
	options := v.options
	if method == http.MethodHead {
		// A HEAD is its GET without the body.
		if len(body) > 0 {
			return fmt.Errorf("openapi: %s %s answered %d with a body", method, path, status)
		}
		o := *options
		o.ExcludeResponseBody = true
		options = &o
		if item, _ := v.match(path); item != nil && item.Get != nil {
			method = http.MethodGet
		}
	}
	item, tmpl := v.match(path)
	var op *openapi3.Operation
	switch {
	case item == nil:
		if status != http.StatusNotFound {
			return fmt.Errorf("openapi: %s %s: no operation has this path, so the answer must be 404, not %d", method, path, status)
		}
		op, tmpl = v.unrouted, path
	case item.GetOperation(method) == nil:
		if status != http.StatusMethodNotAllowed {
			return fmt.Errorf("openapi: %s %s: %s has no %s operation, so the answer must be 405, not %d", method, path, tmpl, method, status)
		}
		if header.Get("Allow") == "" {
			return fmt.Errorf("openapi: %s %s: a 405 must name the allowed methods in Allow", method, path)
		}
		op = v.unrouted
	default:
		op = item.GetOperation(method)
	}

	if strings.EqualFold(header.Get("Content-Encoding"), "gzip") {
		// What the client reads is the decompressed body (Go's client
		// decompresses by itself; a recorder does not).
		zr, err := gzip.NewReader(bytes.NewReader(body))
		if err == nil {
			body, err = io.ReadAll(zr)
		}
		if err != nil {
			return fmt.Errorf("openapi: %s %s answered %d with Content-Encoding gzip and a body that is not gzip: %w", method, path, status, err)
		}
	}
	// Only the method is read from the request (a HEAD has no body).
	req := &http.Request{Method: method, URL: &url.URL{Path: path}, Header: http.Header{}}
	input := &openapi3filter.ResponseValidationInput{
		RequestValidationInput: &openapi3filter.RequestValidationInput{
			Request: req,
			Route:   &routers.Route{Spec: v.doc, Path: tmpl, PathItem: item, Method: method, Operation: op},
		},
		Status:  status,
		Header:  header,
		Body:    io.NopCloser(bytes.NewReader(body)),
		Options: options,
	}
	if err := openapi3filter.ValidateResponse(context.Background(), input); err != nil {
		return fmt.Errorf("openapi: %s %s (operation %s, %s %s) answered %d: %s", method, path, op.OperationID, method, tmpl, status, reason(err))
	}
	return nil
}

// match finds the path the router would serve path with
// (httpapi.Patterns): the most specific matching pattern decides even when
// it lacks the method (then the answer is 405).
func (v *Validator) match(path string) (*openapi3.PathItem, string) {
	tmpl, _, ok := v.patterns.Match(path)
	if !ok {
		return nil, ""
	}
	return v.items[tmpl], tmpl
}

// schemaErrorMessage writes a schema error as where and why, without
// kin-openapi's dump of the whole schema and value (pages long for a
// list). A failed allOf, anyOf or oneOf lists its causes, one per line.
func schemaErrorMessage(err *openapi3.SchemaError) string {
	msg := err.Reason
	switch {
	case strings.HasPrefix(msg, "jsonschema validation failed with "):
		// The JSON Schema 2020-12 validator's tree of causes, under a
		// line naming its internal schema address.
		_, tree, _ := strings.Cut(msg, "\n")
		return strings.TrimPrefix(tree, "- ")
	case strings.HasPrefix(msg, "error at "):
		// kin-openapi's copy of the place, before the validator's own.
		if _, after, ok := strings.Cut(msg, "\": "); ok {
			return after
		}
		return msg
	}
	msg = fmt.Sprintf("at '/%s': %s", strings.Join(err.JSONPointer(), "/"), msg)
	var causes openapi3.MultiError
	if errors.As(err.Origin, &causes) {
		for _, c := range causes {
			msg += "\n  - " + c.Error()
		}
	}
	return msg
}

// reason is what failed (the body, a header, the status) and why.
func reason(err error) string {
	var re *openapi3filter.ResponseError
	if !errors.As(err, &re) {
		return err.Error()
	}
	if re.Err == nil {
		return re.Reason
	}
	return re.Reason + ": " + re.Err.Error()
}
