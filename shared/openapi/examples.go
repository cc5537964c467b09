package openapi

import (
	"bytes"
	_ "embed"
	"encoding/json"
	"fmt"
	"maps"
	"slices"
	"strconv"
	"strings"

	"github.com/getkin/kin-openapi/openapi3"
)

// ExamplesFile is where the recorded examples are kept, relative to the
// module root (`make examples` writes it: local/bench examples).
const ExamplesFile = "shared/openapi/examples.json"

// examplesJSON is the recorded examples, merged into every document.
//
//go:embed examples.json
var examplesJSON []byte

// Examples are bodies the service really sent and received: the call
// benchmark's scenario (each group's apitest steps, local/bench) run
// once, with each operation's first request body of a 2xx answer and
// the first body of each status it answered, long arrays cut short.
// Nothing in them is typed by hand, so they stay true: `make examples`
// records them again, and a test fails when one no longer fits its
// schema, names an operation that no longer exists, or an operation
// lacks one (see ExampleExemptions).
type Examples struct {
	// About says what the file is and how it is made.
	About string `json:"about"`
	// Errors are the first body of each error status the run was
	// answered with ("404"): the error response components' examples.
	Errors map[string]any `json:"errors,omitempty"`
	// Operations are keyed by route ("METHOD /pattern").
	Operations map[string]OperationExamples `json:"operations"`
}

// OperationExamples are one operation's examples.
type OperationExamples struct {
	// Request is the JSON body of the first request answered 2xx (nil:
	// none had a JSON body).
	Request any `json:"request,omitempty"`
	// Responses are the first JSON body answered with each status, keyed
	// by the status ("200", "404").
	Responses map[string]any `json:"responses,omitempty"`
}

// RecordedExamples reads the embedded examples file.
func RecordedExamples() (Examples, error) {
	var ex Examples
	dec := json.NewDecoder(bytes.NewReader(examplesJSON))
	dec.UseNumber() // numbers are written back as they were answered
	if err := dec.Decode(&ex); err != nil {
		return Examples{}, fmt.Errorf("openapi: %s: %w", ExamplesFile, err)
	}
	return ex, nil
}

// ExampleExemptions are the answers and requests an operation may go
// without an example of, and why: keyed by route, then by "request" or
// a status.
var ExampleExemptions = map[string]map[string]string{
	"GET /openapi.json": {"200": "the document itself: an example of it inside it would double its size"},
	"GET /docs":         {"200": "an HTML page, not JSON"},
	"GET /docs/redoc.standalone.js": {
		"200": "a script, not JSON",
	},
}

// addExamples puts the recorded examples into doc: each operation's
// request and success examples on its own request body and responses,
// and for each error response component, the first body its status was
// answered with in the run (the error answers are shared components, so
// that generators see one type per status; an operation's own error
// example would have to copy the component); a component no status of
// the run names (the 403 of a monthly quota) takes the first, by route,
// of the operations that refer to it, or, when they answered it in
// different ways, the first of each kind as named examples. Examples of routes the
// document does not have are left out (TestExamples_current fails on
// them); so is an example where the operation has no JSON body.
func addExamples(doc *openapi3.T, ex Examples) {
	for status, body := range ex.Errors {
		code, err := strconv.Atoi(status)
		if err != nil {
			continue
		}
		if c := doc.Components.Responses[responseName(code)]; c != nil && c.Value != nil {
			if mt := c.Value.Content.Get(jsonMedia); mt != nil {
				mt.Example = body
			}
		}
	}
	// Bodies of components no error status of the run set, in route
	// order: shown as named examples when the operations sharing the
	// component answered it in different ways (exampleVariants).
	var shared []*openapi3.MediaType
	bodies := map[*openapi3.MediaType][]any{}
	keys := make([]string, 0, len(ex.Operations))
	for k := range ex.Operations {
		keys = append(keys, k)
	}
	// Sorted, so that the component examples are the same on every run.
	slices.Sort(keys)
	for _, key := range keys {
		op := operationOf(doc, key)
		if op == nil {
			continue
		}
		oe := ex.Operations[key]
		if oe.Request != nil && op.RequestBody != nil && op.RequestBody.Value != nil {
			if mt := op.RequestBody.Value.Content.Get(jsonMedia); mt != nil {
				mt.Example = oe.Request
			}
		}
		statuses := make([]string, 0, len(oe.Responses))
		for s := range oe.Responses {
			statuses = append(statuses, s)
		}
		slices.Sort(statuses)
		for _, status := range statuses {
			body := oe.Responses[status]
			ref := op.Responses.Value(status)
			if ref == nil {
				continue
			}
			if ref.Ref != "" {
				name := strings.TrimPrefix(ref.Ref, "#/components/responses/")
				if c := doc.Components.Responses[name]; c != nil && c.Value != nil {
					if mt := c.Value.Content.Get(jsonMedia); mt != nil && (mt.Example == nil || bodies[mt] != nil) {
						if bodies[mt] == nil {
							shared = append(shared, mt)
						}
						bodies[mt] = append(bodies[mt], body)
						mt.Example = bodies[mt][0]
					}
				}
				continue
			}
			if text, ok := body.(string); ok && ref.Value != nil {
				// A plain-text answer (a receipt): the example of its
				// one text medium, as it was sent.
				for media, mt := range ref.Value.Content {
					if strings.HasPrefix(media, "text/plain") {
						mt.Example = text
					}
				}
				continue
			}
			if ref.Value == nil || ref.Value.Content.Get(jsonMedia) == nil {
				continue
			}
			// Two success statuses share one response value (Doc.Also):
			// each gets its own copy before its example.
			resp := *ref.Value
			mt := *resp.Content.Get(jsonMedia)
			mt.Example = body
			resp.Content = openapi3.Content{jsonMedia: &mt}
			op.Responses.Set(status, &openapi3.ResponseRef{Value: &resp})
		}
	}
	for _, mt := range shared {
		if named := exampleVariants(bodies[mt]); len(named) > 1 {
			mt.Example, mt.Examples = nil, named
		}
	}
}

// exampleVariants are the first body of each kind among bodies, named by
// kind: an error envelope's details.error ("monthly_limit_reached"), else
// its code in lower case ("forbidden"). The 403 of the routes that charge
// a monthly quota is either the quota's body or a plain refusal, and a
// reader sees both.
func exampleVariants(bodies []any) openapi3.Examples {
	out := openapi3.Examples{}
	for _, body := range bodies {
		name := "example"
		if m, ok := body.(map[string]any); ok {
			if e, ok := m["error"].(map[string]any); ok {
				if code, ok := e["code"].(string); ok {
					name = strings.ToLower(code)
				}
				if d, ok := e["details"].(map[string]any); ok {
					if kind, ok := d["error"].(string); ok {
						name = kind
					}
				}
			}
		}
		if _, seen := out[name]; !seen {
			out[name] = &openapi3.ExampleRef{Value: openapi3.NewExample(body)}
		}
	}
	return out
}

const jsonMedia = "application/json"

// operationOf finds the operation of a route key ("METHOD /pattern").
func operationOf(doc *openapi3.T, key string) *openapi3.Operation {
	method, path, ok := strings.Cut(key, " ")
	if !ok {
		return nil
	}
	item := doc.Paths.Value(path)
	if item == nil {
		return nil
	}
	return item.GetOperation(method)
}

// eachExample calls f with every media type of doc that may carry an
// example: the operations' request bodies and own responses, and the
// response components.
func eachExample(doc *openapi3.T, f func(*openapi3.MediaType)) {
	content := func(c openapi3.Content) {
		for _, name := range slices.Sorted(maps.Keys(c)) {
			f(c[name])
		}
	}
	for _, path := range doc.Paths.InMatchingOrder() {
		item := doc.Paths.Value(path)
		for _, method := range slices.Sorted(maps.Keys(item.Operations())) {
			op := item.GetOperation(method)
			if op.RequestBody != nil && op.RequestBody.Value != nil {
				content(op.RequestBody.Value.Content)
			}
			for _, status := range slices.Sorted(maps.Keys(op.Responses.Map())) {
				if r := op.Responses.Value(status); r.Ref == "" && r.Value != nil {
					content(r.Value.Content)
				}
			}
		}
	}
	for _, name := range slices.Sorted(maps.Keys(doc.Components.Responses)) {
		if r := doc.Components.Responses[name]; r.Value != nil {
			content(r.Value.Content)
		}
	}
}

// placeholdExamples swaps every example of doc for a placeholder string
// and returns each placeholder's example as compact JSON (JSON writes
// them back in place).
func placeholdExamples(doc *openapi3.T) (map[string][]byte, error) {
	out := map[string][]byte{}
	var err error
	hold := func(v *any) {
		if *v == nil || err != nil {
			return
		}
		var b bytes.Buffer
		enc := json.NewEncoder(&b)
		enc.SetEscapeHTML(false)
		if err = enc.Encode(*v); err != nil {
			err = fmt.Errorf("openapi: write example: %w", err)
			return
		}
		placeholder := fmt.Sprintf("\x00example %d\x00", len(out))
		out[placeholder] = bytes.TrimSuffix(b.Bytes(), []byte("\n"))
		*v = placeholder
	}
	eachExample(doc, func(mt *openapi3.MediaType) {
		hold(&mt.Example)
		for _, name := range slices.Sorted(maps.Keys(mt.Examples)) {
			if ex := mt.Examples[name]; ex != nil && ex.Value != nil {
				hold(&ex.Value.Value)
			}
		}
	})
	return out, err
}
