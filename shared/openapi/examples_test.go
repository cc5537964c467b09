package openapi_test

import (
	"encoding/json"
	"errors"
	"fmt"
	"maps"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/bookplatform/backend/shared/api"
	"github.com/bookplatform/backend/shared/groups"
	"github.com/bookplatform/backend/shared/openapi"
	"github.com/getkin/kin-openapi/openapi3"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// example is one example of the document: where it is, what it must fit.
type example struct {
	where   string
	schema  *openapi3.Schema
	value   any
	request bool
}

// examples lists every example of doc: the operations' request bodies
// and answers, and the error response components.
func examples(doc *openapi3.T) []example {
	var out []example
	for path, item := range doc.Paths.Map() {
		for method, op := range item.Operations() {
			if rb := op.RequestBody; rb != nil && rb.Value != nil {
				for media, mt := range rb.Value.Content {
					if mt.Example != nil {
						out = append(out, example{fmt.Sprintf("%s %s request (%s)", method, path, media), mt.Schema.Value, mt.Example, true})
					}
				}
			}
			for status, r := range op.Responses.Map() {
				if r.Ref != "" || r.Value == nil {
					continue // a component: below
				}
				for media, mt := range r.Value.Content {
					if mt.Example != nil {
						out = append(out, example{fmt.Sprintf("%s %s %s (%s)", method, path, status, media), mt.Schema.Value, mt.Example, false})
					}
				}
			}
		}
	}
	for name, r := range doc.Components.Responses {
		for media, mt := range r.Value.Content {
			if mt.Example != nil {
				out = append(out, example{fmt.Sprintf("response %s (%s)", name, media), mt.Schema.Value, mt.Example, false})
			}
			for kind, ex := range mt.Examples {
				out = append(out, example{fmt.Sprintf("response %s (%s) %s", name, media, kind), mt.Schema.Value, ex.Value.Value, false})
			}
		}
	}
	slices.SortFunc(out, func(a, b example) int { return strings.Compare(a.where, b.where) })
	return out
}

// Every example fits its schema, read as the answer or request it is
// (JSON Schema 2020-12, the document's formats: uuid, date-time): a
// schema that changed since the last recording fails here, and `make
// examples` records them again.
func TestExamples_valid(t *testing.T) {
	validator(t) // defines the uuid format
	doc := document(t)
	all := examples(doc)
	require.NotEmpty(t, all)
	for _, ex := range all {
		opts := []openapi3.SchemaValidationOption{openapi3.MultiErrors(), openapi3.EnableJSONSchema2020()}
		if ex.request {
			opts = append(opts, openapi3.VisitAsRequest())
		} else {
			opts = append(opts, openapi3.VisitAsResponse())
		}
		if err := doc.ValidateSchemaJSON(ex.schema, ex.value, opts...); err != nil {
			t.Errorf("%s: the example does not fit its schema (run make examples): %s", ex.where, short(err))
		}
	}
	t.Logf("%d examples", len(all))
}

// short is a schema error without kin-openapi's dump of the schema.
func short(err error) string {
	var me openapi3.MultiError
	if errors.As(err, &me) {
		var parts []string
		for _, e := range me {
			parts = append(parts, short(e))
		}
		return strings.Join(parts, "; ")
	}
	var se *openapi3.SchemaError
	if errors.As(err, &se) {
		return fmt.Sprintf("at /%s: %s", strings.Join(se.JSONPointer(), "/"), se.Reason)
	}
	return err.Error()
}

// Every operation shows an example of its JSON request body and of each
// 2xx answer with a body, unless openapi.ExampleExemptions says why not.
// A multipart upload (an image file) and an answer without a JSON body
// (204, the page and its script) need none. A new operation fails here
// until `make examples` records it: its group's apitest steps are its
// examples.
func TestExamples_everyOperation(t *testing.T) {
	doc := document(t)
	var missing []string
	for path, item := range doc.Paths.Map() {
		for method, op := range item.Operations() {
			key := method + " " + path
			exempt := openapi.ExampleExemptions[key]
			if rb := op.RequestBody; rb != nil && rb.Value != nil {
				if mt := rb.Value.Content.Get("application/json"); mt != nil && mt.Example == nil && exempt["request"] == "" {
					missing = append(missing, key+": no request example")
				}
			}
			for status, r := range op.Responses.Map() {
				code, _ := strconv.Atoi(status)
				if code < 200 || code > 299 || r.Value == nil || exempt[status] != "" {
					continue
				}
				for media, mt := range r.Value.Content {
					if mt.Example == nil && len(mt.Examples) == 0 {
						missing = append(missing, fmt.Sprintf("%s: no example of its %s answer (%s)", key, status, media))
					}
				}
			}
		}
	}
	slices.Sort(missing)
	for _, m := range missing {
		t.Errorf("%s: run make examples (the group's apitest steps must reach it)", m)
	}
	// An exemption names an operation and a status it has.
	for key, why := range openapi.ExampleExemptions {
		method, path, _ := strings.Cut(key, " ")
		item := doc.Paths.Value(path)
		if item == nil || item.GetOperation(method) == nil {
			t.Errorf("exemption of %s: no such operation", key)
			continue
		}
		for status := range why {
			if status != "request" && item.GetOperation(method).Responses.Value(status) == nil {
				t.Errorf("exemption of %s %s: the operation has no such answer", key, status)
			}
		}
	}
}

// Every error answer shows an example: each error response component
// (the statuses every operation shares, 431, 500 and 503 among them, and
// the monthly limit's 403) has the body the recording run was answered
// with. The examples run's probes provoke what no group's steps ask for
// (local/bench examples_test.go): a missing one fails here until `make
// examples` records it.
func TestExamples_everyErrorAnswer(t *testing.T) {
	doc := document(t)
	for _, name := range slices.Sorted(maps.Keys(doc.Components.Responses)) {
		r := doc.Components.Responses[name]
		if r.Value == nil {
			continue
		}
		for media, mt := range r.Value.Content {
			if mt.Example == nil && len(mt.Examples) == 0 {
				t.Errorf("response %s (%s) has no example: run make examples (a probe of local/bench must provoke it)", name, media)
			}
		}
	}
	// The monthly limit's 403 shows both of its bodies, by name.
	shown := doc.Components.Responses["ForbiddenOrMonthlyLimit"].Value.Content.Get("application/json").Examples
	require.Contains(t, shown, "monthly_limit_reached")
	require.Contains(t, shown, "forbidden")
	details, ok := shown["monthly_limit_reached"].Value.Value.(map[string]any)["error"].(map[string]any)["details"].(map[string]any)
	require.True(t, ok, "the monthly limit's example has no details")
	assert.Equal(t, "monthly_limit_reached", details["error"])
	assert.Nil(t, shown["forbidden"].Value.Value.(map[string]any)["error"].(map[string]any)["details"])
}

// The recorded file names only operations the route tables have, and
// statuses they document: a route removed or a status dropped since the
// recording fails here (the document would silently lose the example).
func TestExamples_current(t *testing.T) {
	doc := document(t)
	ex, err := openapi.RecordedExamples()
	require.NoError(t, err)
	for key, oe := range ex.Operations {
		method, path, ok := strings.Cut(key, " ")
		item := doc.Paths.Value(path)
		if !ok || item == nil || item.GetOperation(method) == nil {
			t.Errorf("%s has examples but is no operation: run make examples", key)
			continue
		}
		op := item.GetOperation(method)
		for status := range oe.Responses {
			if op.Responses.Value(status) == nil {
				t.Errorf("%s answered %s in the recording, which it does not document", key, status)
			}
		}
		if oe.Request != nil && op.RequestBody == nil {
			t.Errorf("%s has a request example but no request body", key)
		}
	}
}

// The examples land where a reader and a generator look: the request
// body and the success answers of the operation, a copy per success
// status where two share a response (201 and 200 of POST /v1/reviews),
// and the error components.
func TestExamples_merged(t *testing.T) {
	doc := document(t)
	signup := doc.Paths.Value("/v1/auth/signup").Post
	req, ok := signup.RequestBody.Value.Content.Get("application/json").Example.(map[string]any)
	require.True(t, ok, "signup has no request example")
	assert.NotEmpty(t, req["username"])
	res, ok := signup.Responses.Status(201).Value.Content.Get("application/json").Example.(map[string]any)
	require.True(t, ok, "signup's 201 has no example")
	assert.NotEmpty(t, res["token"])

	review := doc.Paths.Value("/v1/reviews").Post
	created := review.Responses.Status(201).Value.Content.Get("application/json").Example
	updated := review.Responses.Status(200).Value.Content.Get("application/json").Example
	require.NotNil(t, created)
	require.NotNil(t, updated)
	assert.NotEqual(t, created, updated, "the 201 and the 200 of POST /v1/reviews show their own answers")

	notFound := doc.Components.Responses["NotFound"].Value.Content.Get("application/json").Example
	body, ok := notFound.(map[string]any)
	require.True(t, ok, "NotFound has no example")
	assert.Equal(t, "NOT_FOUND", body["error"].(map[string]any)["code"])
}

// Each example, named ones too, is written on one line of the document (the document
// stays under the repository's file size limit), and reads back as the
// example it was.
func TestExamples_oneLineEach(t *testing.T) {
	data, err := openapi.JSON(groups.All(api.Deps{}))
	require.NoError(t, err)
	n := 0
	examplesAt := "" // the indentation of an open "examples" object
	for line := range strings.Lines(string(data)) {
		indent := line[:len(line)-len(strings.TrimLeft(line, " "))]
		if strings.HasSuffix(strings.TrimSpace(line), `"examples": {`) {
			examplesAt = indent
			continue
		}
		if examplesAt != "" && indent == examplesAt && strings.HasPrefix(strings.TrimSpace(line), "}") {
			examplesAt = ""
		}
		key := `"example": `
		if examplesAt != "" {
			key = `"value": ` // a named example's
		}
		_, value, ok := strings.Cut(line, key)
		if !ok {
			continue
		}
		n++
		value = strings.TrimSuffix(strings.TrimSpace(value), ",")
		assert.True(t, json.Valid([]byte(value)), "an example spans lines: %.80s", line)
	}
	assert.Len(t, examples(document(t)), n)
	assert.NotContains(t, string(data), `\u0000example`, "a placeholder was left in")
}
